package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

// modelVerdict says in a phrase how one model coped: whether it served
// what was offered, and how busy its busiest loop was.
func (f *Figures) modelVerdict() string {
	var parts []string
	if f.OfferedRPS > 0 {
		if f.RPS < 0.9*f.OfferedRPS {
			parts = append(parts, fmt.Sprintf("fell behind: served %.0f of %.0f req/s offered", f.RPS, f.OfferedRPS))
		} else {
			parts = append(parts, fmt.Sprintf("kept up with %.0f req/s", f.OfferedRPS))
		}
	}
	if f.AcceptLoops > 1 {
		parts = append(parts, fmt.Sprintf("accepted on %d loops (%s), accept p99 %s", f.AcceptLoops, f.Listening, usText(f.AcceptP99US)))
	}
	if f.BusiestLoop != "" {
		parts = append(parts, fmt.Sprintf("%s busy %.0f%% of the run", f.BusiestLoop, f.BusyMax))
	}
	if f.StalledLoops > 0 && f.blocking {
		parts = append(parts, fmt.Sprintf("clients of %d of %d loops stalled", f.StalledLoops, f.ServedLoops))
	}
	parts = append(parts, "p99 "+usText(f.P99US))
	return strings.Join(parts, ", ")
}

// verdict is the comparison's line, computed from the figures: which
// models differ beyond their runs' noise and why, and which are about the
// same (and, when they have the same shape here, that they are one program).
func (c *Comparison) verdict() string {
	if len(c.Figures) < 2 {
		return ""
	}
	head, ranked := c.headline()
	if busy, ok := contended(c.Figures); ok {
		head, ranked = c.machineBound(busy), false
		c.MachineBusy = true
	}
	return strings.Join(append([]string{head}, alikeLines(c.Figures, ranked)...), "; ")
}

// headline ranks the slowest model against the fastest and those alike
// with it, when the difference stands out of the noise.
func (c *Comparison) headline() (string, bool) {
	fs := c.Figures
	best, worst, low, high := extremes(fs)
	if rpsRanked(fs, best, worst) {
		return fmt.Sprintf("%s at p99 %s vs %s: %s", moreRPSText(fs, best, worst),
			usText(best.P99US), usText(worst.P99US), reason(worst, best, alikeWith(fs, best))), true
	}
	if p99Ranked(fs, high, low) {
		return slowerP99Text(fs, high, low) + ": " + reason(high, low, alikeWith(fs, low)), true
	}
	busiest := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.BusyMax, b.BusyMax) })
	if idlest := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.BusyMax, b.BusyMax) }); idlest.BusyMax >= 90 {
		return fmt.Sprintf("the models perform about the same (about %.0f req/s, p99 %s to %s, within the runs' noise), and every model's busiest loop was busy %.0f%% or more: the machine's CPU, not the model, was the limit (other work running?), so no model could spread the load",
			best.RPS, usText(low.P99US), usText(high.P99US), idlest.BusyMax), false
	}
	if busiest.BusyMax >= 80 {
		return fmt.Sprintf("the models perform about the same (about %.0f req/s, p99 %s to %s): their difference stays inside the runs' noise, window by window, although %s's %s was busy %.0f%% of the run",
			best.RPS, usText(low.P99US), usText(high.P99US), busiest.Model, busiest.BusiestLoop, busiest.BusyMax), false
	}
	return fmt.Sprintf("the models perform about the same (about %.0f req/s, p99 %s to %s, within the runs' noise): no loop is busy enough for the model to matter (busiest: %s's %s, %.0f%% of the run)",
		best.RPS, usText(low.P99US), usText(high.P99US), busiest.Model, busiest.BusiestLoop, busiest.BusyMax), false
}

// moreRPSText says best (and those alike with it) served more than
// worst, for a verdict that ranks them on it (rpsRanked).
func moreRPSText(fs []Figures, best, worst Figures) string {
	return fmt.Sprintf("%s served %.1f× %s's requests (%.0f vs %.0f req/s%s)", names(alikeWith(fs, best)),
		best.RPS/worst.RPS, worst.Model, best.RPS, worst.RPS, pairedText(best, worst, windowRPS))
}

// slowerP99Text says high's p99 is worse than low's (and those alike
// with it), for a verdict that ranks them on it (p99Ranked).
func slowerP99Text(fs []Figures, high, low Figures) string {
	return fmt.Sprintf("same throughput, but %s's p99 is %.1f× %s's (%s vs %s%s)", high.Model,
		high.P99US/low.P99US, names(alikeWith(fs, low)), usText(high.P99US), usText(low.P99US), pairedText(high, low, windowP99))
}

// machineBound is the verdict of runs the machine's other work starved:
// what the clients saw is not ranked (it measures the machine); the
// models are ranked instead on what the load does not change, each
// loop's own CPU per request and so the rate each model could serve with
// a core per loop; and each model's shape, the lesson whatever the load.
func (c *Comparison) machineBound(w Figures) string {
	var shapes []string
	for _, f := range c.Figures {
		shapes = append(shapes, fmt.Sprintf("%s: %s, busiest %s %.0f%% of the run", f.Model, structure(f), f.BusiestLoop, f.BusyMax))
	}
	waited := ""
	if w.CPUWaitMax >= 0 && w.CPUWaitLoop != "" {
		waited = fmt.Sprintf(" and its %s waited for a CPU %.0f%% of the run", w.CPUWaitLoop, w.CPUWaitMax)
	}
	head := fmt.Sprintf("the machine was busy: other processes used %.0f%% of its CPUs during %s's run%s, so what the clients saw (req/s, latency) measures the machine, not the models, and is not ranked",
		w.OtherCPU, w.Model, waited)
	if w.blocking {
		// A blocked handler sleeps: it takes no CPU, so capacity does not
		// tell the models apart; whose clients it held does, busy machine
		// or not (stalled is read from their median).
		head += "; what the load does not change: " + stalledRank(c.Figures)
	} else if rank := c.capacityRank(); rank != "" {
		head += "; ranked instead on each loop's own CPU per request, which the machine's load does not change: " + rank
	}
	return head + "; what holds regardless — " + strings.Join(shapes, "; ")
}

// stalledRank says, model by model, how many loops' clients the blocked
// handler held.
func stalledRank(fs []Figures) string {
	var parts []string
	for _, f := range fs {
		if f.ServedLoops > 0 && f.StalledLoops >= f.ServedLoops {
			parts = append(parts, fmt.Sprintf("under %s the blocked handler stalled the clients of every loop (%d of %d)", f.Model, f.StalledLoops, f.ServedLoops))
		} else {
			parts = append(parts, fmt.Sprintf("under %s those of %d of %d loops", f.Model, f.StalledLoops, f.ServedLoops))
		}
	}
	return strings.Join(parts, ", ")
}

// structure is a model's shape as the lesson puts it: who runs the
// handlers.
func structure(f Figures) string {
	switch {
	case f.Shape.Serving == 1 && f.Shape.Shared:
		return "one loop accepts and runs every handler"
	case f.Shape.Serving == 1:
		return f.Shape.String() + ", one runs every handler"
	case f.Shape.Serving > 1:
		return f.Shape.String() + " and share the handlers"
	}
	return f.Shape.String()
}

// capacityRank ranks the models by the rate each could serve with a core
// per loop, when the best is capacityMargin ahead of the worst and their
// shapes differ; "" otherwise (the capacities alike, or none measured).
func (c *Comparison) capacityRank() string {
	best, worst, ahead, measured, ranked := capacityRanked(c.Figures)
	if !measured {
		return ""
	}
	if !ranked {
		return fmt.Sprintf("the models could serve about the same with a core per loop (%.0f to %.0f req/s)", worst.CapacityRPS, best.CapacityRPS)
	}
	return fmt.Sprintf("with a core per loop %s could serve %.1f× %s's requests (capacity %.0f vs %.0f req/s): %s's %s spent %s of CPU per request it served, %s's busiest %s %s on its share",
		names(ahead), best.CapacityRPS/worst.CapacityRPS, worst.Model, best.CapacityRPS, worst.CapacityRPS,
		worst.Model, worst.CapacityLoop, usText(worst.CPUPerReqUS), best.Model, best.CapacityLoop, usText(best.CPUPerReqUS))
}

// alikeLines says, for each pair of models nothing measured tells apart,
// that they are the same shape here, or, when the headline ranked some
// (ranked), that they are about the same and by which ranges: with
// nothing ranked the headline already says all are alike.
func alikeLines(fs []Figures, ranked bool) []string {
	var out []string
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			a, b := fs[i], fs[j]
			switch {
			case sameShape(a, b):
				out = append(out, sameShapeLine(a, b))
			case ranked && alike(a, b):
				out = append(out, fmt.Sprintf("%s and %s are about the same (p99 %s vs %s over the runs' windows, %.0f vs %.0f req/s)",
					a.Model, b.Model, spreadText(a.P99Spread, a.P99US), spreadText(b.P99Spread, b.P99US), a.RPS, b.RPS))
			}
		}
	}
	return out
}

// sameShapeLine says two models are one program here, naming what made
// them so: master-slave with one port has one boss accepting, as multi.
func sameShapeLine(a, b Figures) string {
	if b.Model == string(scenarios.ModelMasterSlave) {
		a, b = b, a
	}
	if a.Model == string(scenarios.ModelMasterSlave) && a.Shape.Accepting == 1 {
		return fmt.Sprintf("%s with %s is %s: %s, so any difference between them is the runs' noise (p99 %s vs %s)",
			a.Model, a.Listening, b.Model, a.Shape, usText(a.P99US), usText(b.P99US))
	}
	return fmt.Sprintf("%s and %s have the same shape here (%s), so their difference is the runs' noise (p99 %s vs %s)",
		a.Model, b.Model, a.Shape, usText(a.P99US), usText(b.P99US))
}

// spreadText is a figure's range over the windows, or the figure itself
// when none was measured.
func spreadText(s Spread, v float64) string {
	if !s.known() {
		return usText(v)
	}
	return usText(s.Lo) + "–" + usText(s.Hi)
}

// reason explains why slow did worse than fast (and those alike with it)
// from their figures: the mechanism, not the ranking.
func reason(slow, fast Figures, peers []Figures) string {
	who := names(peers)
	switch {
	case slow.blocking && slow.StalledLoops > 0 && slow.StalledLoops >= slow.ServedLoops:
		return fmt.Sprintf("in %s every loop's clients stalled behind the blocked handler; in %s %d of %d loops' did",
			slow.Model, who, fast.StalledLoops, fast.ServedLoops)
	case slow.AcceptLoops < fast.AcceptLoops && slow.AcceptP99US > 1.5*fast.AcceptP99US && fast.AcceptP99US > 0:
		return fmt.Sprintf("%s accepted on %d loop with accept p99 %s, %s on %d (%s) with %s",
			slow.Model, slow.AcceptLoops, usText(slow.AcceptP99US), who, fast.AcceptLoops, fast.Listening, usText(fast.AcceptP99US))
	case slow.BusyMax >= 80 && slow.BusyMax > fast.BusyMax+10 && slow.Shape.Serving == 1:
		return fmt.Sprintf("%s's one loop %s spent %.0f%% of its time in I/O and tasks, so requests queued behind each other; %s's %d workers shared the channels (busiest %s %.0f%%)",
			slow.Model, slow.BusiestLoop, slow.BusyMax, who, fast.Shape.Serving, fast.BusiestLoop, fast.BusyMax)
	case slow.BusyMax >= 80 && slow.BusyMax > fast.BusyMax+10:
		return fmt.Sprintf("%s's %s was busy %.0f%% of the time and requests queued behind it; %s spread the load over %d loops (busiest %s %.0f%%)",
			slow.Model, slow.BusiestLoop, slow.BusyMax, who, fast.Shape.Serving, fast.BusiestLoop, fast.BusyMax)
	}
	return fmt.Sprintf("%s's busiest loop %s was busy %.0f%%, %s's %s %.0f%%",
		slow.Model, slow.BusiestLoop, slow.BusyMax, fast.Model, fast.BusiestLoop, fast.BusyMax)
}

// variantVerdict is the verdict of a comparison of loop designs or
// transports: what the clients saw, ranked only beyond the runs' noise,
// and where to look for the difference (the cause lines).
func variantVerdict(fs []Figures, axis string, causes bool) string {
	if len(fs) < 2 {
		return ""
	}
	best, worst, low, high := extremes(fs)
	var head string
	switch {
	case rpsRanked(fs, best, worst):
		head = moreRPSText(fs, best, worst)
	case p99Ranked(fs, high, low):
		head = slowerP99Text(fs, high, low)
	case worstApart(fs):
		head = fmt.Sprintf("the clients' req/s and run p99 were about the same under every %s (about %.0f req/s, p99 %s to %s), but not their worst %s: %s",
			axis, best.RPS, usText(low.P99US), usText(high.P99US), sim.WindowEvery, worstWindows(fs))
	default:
		head = fmt.Sprintf("the clients saw about the same under every %s (about %.0f req/s, p99 %s to %s, within the runs' noise%s)",
			axis, best.RPS, usText(low.P99US), usText(high.P99US), worstAlike(fs))
	}
	if causes {
		return head + "; the " + axis + "s differ inside the loop: why they differ, below"
	}
	return head + "; the loops' counters differ by no more than a run's noise either"
}

// worstWindows lists each run's worst window, worst first: its p99 and
// when it began.
func worstWindows(fs []Figures) string {
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b Figures) int { return cmp.Compare(b.WorstWindowP99US, a.WorstWindowP99US) })
	var parts []string
	for _, f := range sorted {
		parts = append(parts, fmt.Sprintf("p99 %s under %s (the window from %s)", usText(f.WorstWindowP99US), f.Model,
			time.Duration(f.WorstWindowAtNS).Round(10*time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

// worstAlike names the worst windows' range when every run had one.
func worstAlike(fs []Figures) string {
	lo, hi := math.Inf(1), 0.0
	for _, f := range fs {
		if f.WorstWindowP99US <= 0 {
			return ""
		}
		lo, hi = min(lo, f.WorstWindowP99US), max(hi, f.WorstWindowP99US)
	}
	return fmt.Sprintf("; worst %s p99 %s to %s", sim.WindowEvery, usText(lo), usText(hi))
}

// fewestSyscalls names the transport whose requests cost the fewest
// system calls, with every transport's figure.
func fewestSyscalls(ts []LoopTotals) string {
	if len(ts) < 2 {
		return ""
	}
	best := slices.MinFunc(ts, func(a, b LoopTotals) int { return cmp.Compare(a.syscallsPerRequest(), b.syscallsPerRequest()) })
	var each []string
	for _, t := range ts {
		each = append(each, fmt.Sprintf("%s %.2f", t.Name, t.syscallsPerRequest()))
	}
	return fmt.Sprintf("%s made the fewest system calls a request (%s)", best.Name, strings.Join(each, ", "))
}

// pairedText says how far apart two runs stayed window by window, for a
// verdict that ranks them.
func pairedText(a, b Figures, pick func(sim.Window) float64) string {
	r, ok := pairedRatio(a.windows, b.windows, pick)
	if !ok {
		return ""
	}
	return fmt.Sprintf(", %.1f× to %.1f× in each of %d windows", r.Lo, r.Hi, r.N)
}

// names joins the models' names as a sentence does: "a", "a and b",
// "a, b and c".
func names(fs []Figures) string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, f.Model)
	}
	if len(ns) < 2 {
		return strings.Join(ns, "")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

func (s Shape) String() string {
	switch {
	case s.Shared && s.Serving == 1:
		return "one loop accepts and serves every channel"
	case s.Shared:
		return fmt.Sprintf("%s accept and serve", plural(s.Serving, "loop"))
	}
	return fmt.Sprintf("%s, %s serve", acceptText(s.Accepting), plural(s.Serving, "worker"))
}

func acceptText(n int) string {
	if n == 1 {
		return "one boss accepts"
	}
	return fmt.Sprintf("%d bosses accept", n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// usText formats microseconds for a sentence.
func usText(us float64) string {
	d := time.Duration(us * float64(time.Microsecond))
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0fµs", us)
}

func nsText(ns int64) string { return usText(float64(ns) / 1000) }
