package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
)

// Figures are the numbers compare sets side by side for one model, and
// that a workload's compare clauses read (scenarios.CompareFigures).
type Figures struct {
	Model string `json:"model"`
	// OfferedRPS is what the clients asked for; 0 when some send at max.
	OfferedRPS float64 `json:"offered_rps"`
	RPS        float64 `json:"rps"`
	P50US      float64 `json:"p50_us"`
	P99US      float64 `json:"p99_us"`
	P999US     float64 `json:"p999_us"`
	Errors     int64   `json:"errors"`
	// AcceptP99US is the p99 of dial → registered on the serving loop.
	AcceptP99US float64 `json:"accept_p99_us"`
	AcceptLoops int     `json:"accept_loops"` // loops that accepted a connection
	// Listening says how the boss loops share the accepts: "2 ports" (one
	// server channel per port, dealt to the boss loops by the chooser) or
	// "SO_REUSEPORT" (one server channel per boss loop on each port).
	Listening string `json:"listening"`
	// BusyMax is the largest share of the run (%) a loop serving
	// connections spent in I/O and tasks; BusiestLoop is that loop.
	BusyMax     float64 `json:"busy_max"`
	BusiestLoop string  `json:"busiest_loop"`
	// Split is the time split over the run of the loops that carry
	// connections, averaged.
	Split TimeShares `json:"time_split"`
	// ServedLoops counts the loops whose channels' clients got answers;
	// StalledLoops those whose clients' p99 reached StallUS.
	ServedLoops  int     `json:"served_loops"`
	StalledLoops int     `json:"stalled_loops"`
	StallUS      float64 `json:"stall_us"`
	Verdict      string  `json:"verdict"`
	// RPSSpread and P99Spread are the range of the run's per-window
	// figures (Window): the run's own noise. A verdict ranks two models
	// only when their ranges do not overlap.
	RPSSpread Spread `json:"rps_spread"`
	P99Spread Spread `json:"p99_spread_us"`
	// Shape is the topology that served: how many loops accepted, how many
	// served channels, and whether one loop did both.
	Shape Shape `json:"shape"`
	// CPUWaitMax is the largest share of the run (%) a serving loop was
	// ready to run but waited for a CPU: other work on the machine. -1
	// when not measured.
	CPUWaitMax  float64 `json:"cpu_wait_max"`
	CPUWaitLoop string  `json:"cpu_wait_loop,omitempty"`
	// OtherCPU is the share (%) of the machine's CPUs that other processes
	// used while the run ran (/proc/stat less this process); -1 unknown.
	OtherCPU float64 `json:"other_cpu"`
	// CapacityRPS is the rate the model could serve with a core per loop
	// (Summary.CapacityRPS); CapacityLoop the loop that bounds it and
	// CPUPerReqUS that loop's CPU per request its channels answered. From
	// the loops' own CPU time, they do not depend on the machine's load.
	// 0 where the kernel keeps no schedstat.
	CapacityRPS  float64 `json:"capacity_rps"`
	CapacityLoop string  `json:"capacity_loop,omitempty"`
	CPUPerReqUS  float64 `json:"cpu_per_request_us"`
	// WorstWindowP99US is the clients' highest p99 over any WindowEvery of
	// the run, requests in flight counted at their age, and WorstWindowAtNS
	// when that window began.
	WorstWindowP99US float64 `json:"worst_window_p99_us"`
	WorstWindowAtNS  int64   `json:"worst_window_at_ns"`
	blocking         bool    // the timeline blocks a handler
	windows          []Window
}

// figure returns the compare figure of that name.
func (f *Figures) figure(name string) (float64, bool) {
	switch name {
	case "rps":
		return f.RPS, true
	case "p50_us":
		return f.P50US, true
	case "p99_us":
		return f.P99US, true
	case "p999_us":
		return f.P999US, true
	case "errors":
		return float64(f.Errors), true
	case "accept_p99_us":
		return f.AcceptP99US, true
	case "accept_loops":
		return float64(f.AcceptLoops), true
	case "busy_max":
		return f.BusyMax, true
	case "served_loops":
		return float64(f.ServedLoops), true
	case "stalled_loops":
		return float64(f.StalledLoops), true
	case "capacity_rps":
		return f.CapacityRPS, true
	case "worst_window_p99_us":
		return f.WorstWindowP99US, true
	}
	return 0, false
}

func listening(sc *scenarios.Scenario) string {
	if sc.Server.ReusePort {
		return "SO_REUSEPORT"
	}
	if sc.Server.Ports == 1 {
		return "1 port"
	}
	return fmt.Sprintf("%d ports", sc.Server.Ports)
}

// blocks reports whether the timeline makes a handler block.
func blocks(sc *scenarios.Scenario) bool {
	for _, a := range sc.Timeline {
		if in, ok := a.(scenarios.Inject); ok && in.Fault == scenarios.FaultBlockingHandler {
			return true
		}
	}
	return false
}

// stallThreshold is the client p99 that marks a loop's clients as
// stalled: half the longest blocking handler of the timeline, or 100 ms.
func stallThreshold(sc *scenarios.Scenario) time.Duration {
	block := time.Duration(0)
	for _, a := range sc.Timeline {
		if in, ok := a.(scenarios.Inject); ok && in.Fault == scenarios.FaultBlockingHandler {
			block = max(block, in.Duration)
		}
	}
	if block == 0 {
		return 100 * time.Millisecond
	}
	return block / 2
}

// offered is the request rate the scenario's clients ask for, 0 when one
// sends as fast as it is answered.
func offered(sc *scenarios.Scenario) float64 {
	total := 0.0
	for _, c := range sc.Clients {
		if c.Rate.Max() {
			return 0
		}
		total += c.Rate.PerSecond * float64(c.Connections)
	}
	return total
}

// figuresOf reads one model's figures from its summary.
func figuresOf(s *Summary, sc *scenarios.Scenario) Figures {
	f := Figures{Model: s.Model, OfferedRPS: offered(sc), CPUWaitMax: -1, OtherCPU: s.otherCPU, RPS: s.Clients.ThroughputRPS,
		P50US: s.Clients.LatencyUS.P50, P99US: s.Clients.LatencyUS.P99, P999US: s.Clients.LatencyUS.P999,
		Errors: s.Clients.Errors, AcceptP99US: s.Clients.AcceptUS.P99,
		StallUS: float64(stallThreshold(sc) / time.Microsecond), blocking: blocks(sc),
		Listening: listening(sc), CapacityRPS: s.CapacityRPS, CapacityLoop: s.CapacityLoop}
	if w := s.Clients.LatencyUS.WorstWindow; w != nil {
		f.WorstWindowP99US, f.WorstWindowAtNS = w.P99US, w.AtNS
	}
	io := ioGroups(s)
	n := 0
	for _, l := range s.Loops {
		if l.Accepted > 0 {
			f.AcceptLoops++
		}
		if !io[l.Group] || l.Time == nil {
			continue
		}
		n++
		f.Split.Select += l.Time.Run.Select
		f.Split.IO += l.Time.Run.IO
		f.Split.Tasks += l.Time.Run.Tasks
		if c := l.LoopCPU; c != nil && s.DurationNS > 0 {
			if pct := math.Round(min(100, 100*float64(c.CPUWaitNanos)/float64(s.DurationNS))); pct > f.CPUWaitMax || f.CPUWaitLoop == "" {
				f.CPUWaitMax, f.CPUWaitLoop = pct, l.Name
			}
		}
		if b := l.Time.Run.Busy(); b > f.BusyMax || f.BusiestLoop == "" {
			f.BusyMax, f.BusiestLoop = b, l.Name
		}
		if c := l.Time.Clients; c != nil && c.Requests > 0 {
			f.ServedLoops++
			// Stalled by the median, not the tail: a blocked handler
			// holds most of its loop's requests, while a busy machine
			// adds a tail to every loop's.
			if c.LatencyUS.P50 >= f.StallUS {
				f.StalledLoops++
			}
		}
	}
	for _, l := range s.Loops {
		if l.Name == f.CapacityLoop && l.LoopCPU != nil {
			f.CPUPerReqUS = float64(l.CPUNanosPerRequest) / 1000
		}
	}
	if n > 0 {
		r := func(x float64) float64 { return math.Round(x/float64(n)*10) / 10 }
		f.Split = TimeShares{Select: r(f.Split.Select), IO: r(f.Split.IO), Tasks: r(f.Split.Tasks)}
	}
	f.RPSSpread, f.P99Spread, f.Shape = rpsSpread(s.windows), p99Spread(s.windows), shapeOf(s)
	f.windows = s.windows
	f.Verdict = f.modelVerdict()
	return f
}

// ioGroups names the groups whose loops carry connections: the worker
// group, or single's one reactor group.
func ioGroups(s *Summary) map[string]bool {
	out := map[string]bool{}
	for _, g := range s.Groups {
		if g.Name == scenarios.GroupClient || g.Name == "boss" {
			continue
		}
		out[g.Name] = true
	}
	return out
}

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
	parts := []string{head}
	for _, l := range alikeLines(c.Figures) {
		// With nothing ranked the headline already says all are alike;
		// only a same shape is worth a line of its own.
		if ranked || l.sameShape {
			parts = append(parts, l.text)
		}
	}
	return strings.Join(parts, "; ")
}

// headline ranks the slowest model against the fastest and those alike
// with it, when the difference stands out of the noise.
func (c *Comparison) headline() (string, bool) {
	fs := c.Figures
	best := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.RPS, b.RPS) })
	worst := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.RPS, b.RPS) })
	if moreRPS(best, worst) && !anyAlike(alikeWith(fs, best), worst) {
		return fmt.Sprintf("%s served %.1f× %s's requests (%.0f vs %.0f req/s%s) at p99 %s vs %s: %s",
			names(alikeWith(fs, best)), best.RPS/worst.RPS, worst.Model, best.RPS, worst.RPS, pairedText(best, worst, windowRPS),
			usText(best.P99US), usText(worst.P99US), reason(worst, best, alikeWith(fs, best))), true
	}
	low := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.P99US, b.P99US) })
	high := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.P99US, b.P99US) })
	if slowerP99(high, low) && !anyAlike(alikeWith(fs, low), high) {
		return fmt.Sprintf("same throughput, but %s's p99 is %.1f× %s's (%s vs %s%s): %s",
			high.Model, high.P99US/low.P99US, names(alikeWith(fs, low)), usText(high.P99US), usText(low.P99US), pairedText(high, low, windowP99),
			reason(high, low, alikeWith(fs, low))), true
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

// contendedPct is the share of the machine's CPUs (%) other processes may
// use during a run before the run measures the machine more than its
// model: on two cores, a quarter is half a core taken from the loops.
const contendedPct = 25

// contended returns the figures of the run during which other processes
// used the most CPU, when that reached contendedPct.
func contended(fs []Figures) (Figures, bool) {
	w := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.OtherCPU, b.OtherCPU) })
	return w, w.OtherCPU >= contendedPct
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
	switch {
	case w.blocking:
		// A blocked handler sleeps: it takes no CPU, so capacity does not
		// tell the models apart; whose clients it held does, busy machine
		// or not (stalled is read from their median).
		head += "; what the load does not change: " + stalledRank(c.Figures)
	default:
		if rank := c.capacityRank(); rank != "" {
			head += "; ranked instead on each loop's own CPU per request, which the machine's load does not change: " + rank
		}
	}
	return head + "; what holds regardless — " + strings.Join(shapes, "; ")
}

// stalledRank says, model by model, how many loops' clients the blocked
// handler held.
func stalledRank(fs []Figures) string {
	var parts []string
	for _, f := range fs {
		switch {
		case f.ServedLoops > 0 && f.StalledLoops >= f.ServedLoops:
			parts = append(parts, fmt.Sprintf("under %s the blocked handler stalled the clients of every loop (%d of %d)", f.Model, f.StalledLoops, f.ServedLoops))
		default:
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

// capacityMargin is how far apart two models' capacities must be for the
// verdict to rank them on it: a tenth is what a thread's CPU per request
// moves from run to run (caches, frequency), a third is a structure.
const capacityMargin = 1.3

// capacityRank ranks the models by the rate each could serve with a core
// per loop, when the best is capacityMargin ahead of the worst and their
// shapes differ; "" otherwise (the capacities alike, or none measured).
func (c *Comparison) capacityRank() string {
	fs := c.Figures
	best := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.CapacityRPS, b.CapacityRPS) })
	worst := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.CapacityRPS, b.CapacityRPS) })
	if worst.CapacityRPS <= 0 {
		return ""
	}
	if best.CapacityRPS < capacityMargin*worst.CapacityRPS || sameShape(best, worst) {
		return fmt.Sprintf("the models could serve about the same with a core per loop (%.0f to %.0f req/s)", worst.CapacityRPS, best.CapacityRPS)
	}
	var ahead []Figures
	for _, f := range fs {
		if f.CapacityRPS >= best.CapacityRPS/capacityMargin {
			ahead = append(ahead, f)
		}
	}
	return fmt.Sprintf("with a core per loop %s could serve %.1f× %s's requests (capacity %.0f vs %.0f req/s): %s's %s spent %s of CPU per request it served, %s's busiest %s %s on its share",
		names(ahead), best.CapacityRPS/worst.CapacityRPS, worst.Model, best.CapacityRPS, worst.CapacityRPS,
		worst.Model, worst.CapacityLoop, usText(worst.CPUPerReqUS), best.Model, best.CapacityLoop, usText(best.CPUPerReqUS))
}

// noiseUS is the p99 difference below which the verdict calls two models
// alike whatever their spreads: a few milliseconds is what the scheduler
// of a shared machine adds on its own.
const noiseUS = 5000

// moreRPS says whether fast served clearly more than slow: by a tenth or
// more, with the ranges of their windows apart, and not the same shape.
func moreRPS(fast, slow Figures) bool {
	if slow.RPS <= 0 || fast.RPS < 1.1*slow.RPS || sameShape(fast, slow) {
		return false
	}
	if r, ok := pairedRatio(fast.windows, slow.windows, windowRPS); ok {
		return r.Lo > 1
	}
	return apart(fast.RPSSpread, slow.RPSSpread)
}

func windowRPS(w Window) float64 { return w.RPS }
func windowP99(w Window) float64 { return w.P99US }

// pairedRatio is the range of a's figure over b's window by window: the
// runs share their schedule, so window k of one meets the same load as
// window k of the other. The first window is left out and the outer tenth
// trimmed. A range that stays above 1 is a difference no window's noise
// undoes; one that straddles 1 is noise. ok is false without enough
// windows in both runs.
func pairedRatio(a, b []Window, pick func(Window) float64) (Spread, bool) {
	var rs []float64
	for k := 1; k < min(len(a), len(b)); k++ {
		if x, y := pick(a[k]), pick(b[k]); x > 0 && y > 0 {
			rs = append(rs, x/y)
		}
	}
	if len(rs) < minSpreadWindows {
		return Spread{}, false
	}
	slices.Sort(rs)
	k := len(rs) / 10
	return Spread{Lo: rs[k], Hi: rs[len(rs)-1-k], N: len(rs)}, true
}

// pairedText says how far apart two runs stayed window by window, for a
// verdict that ranks them.
func pairedText(a, b Figures, pick func(Window) float64) string {
	r, ok := pairedRatio(a.windows, b.windows, pick)
	if !ok {
		return ""
	}
	return fmt.Sprintf(", %.1f× to %.1f× in each of %d windows", r.Lo, r.Hi, r.N)
}

// slowerP99 says whether slow's p99 is clearly worse than fast's: twice or
// more, by more than noiseUS, with their windows' p99 ranges apart, and
// not the same shape.
func slowerP99(slow, fast Figures) bool {
	if fast.P99US <= 0 || slow.P99US < 2*fast.P99US || slow.P99US-fast.P99US < noiseUS || sameShape(fast, slow) {
		return false
	}
	if r, ok := pairedRatio(slow.windows, fast.windows, windowP99); ok {
		return r.Lo > 1
	}
	return apart(slow.P99Spread, fast.P99Spread)
}

// apart says whether two ranges do not overlap; with no spread measured
// (a summary rebuilt from a trace), the fixed margins alone decide.
func apart(a, b Spread) bool {
	if !a.known() || !b.known() {
		return true
	}
	return !a.overlaps(b)
}

// sameShape says whether two models built the same topology here.
func sameShape(a, b Figures) bool { return a.Shape.Serving > 0 && a.Shape == b.Shape }

// alike says whether nothing measured tells a from b.
func alike(a, b Figures) bool {
	return sameShape(a, b) || !(moreRPS(a, b) || moreRPS(b, a) || slowerP99(a, b) || slowerP99(b, a))
}

// anyAlike says whether f is alike with one of peers: then ranking f
// against the group would rank noise (or one shape against itself).
func anyAlike(peers []Figures, f Figures) bool {
	return slices.ContainsFunc(peers, func(p Figures) bool { return p.Model != f.Model && alike(p, f) })
}

// alikeWith lists f and the models alike with it, in the figures' order.
func alikeWith(fs []Figures, f Figures) []Figures {
	var out []Figures
	for _, g := range fs {
		if g.Model == f.Model || alike(f, g) {
			out = append(out, g)
		}
	}
	return out
}

// names joins the models' names as a sentence does: "a", "a and b",
// "a, b and c".
func names(fs []Figures) string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, f.Model)
	}
	switch len(ns) {
	case 0:
		return ""
	case 1:
		return ns[0]
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

// alikeLines says, for each pair of models nothing measured tells apart,
// that they are about the same and by which ranges, or that they are the
// same shape here.
func alikeLines(fs []Figures) []alikeLine {
	var out []alikeLine
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			a, b := fs[i], fs[j]
			switch {
			case sameShape(a, b):
				out = append(out, alikeLine{sameShapeLine(a, b), true})
			case alike(a, b):
				out = append(out, alikeLine{text: fmt.Sprintf("%s and %s are about the same (p99 %s vs %s over the runs' windows, %.0f vs %.0f req/s)",
					a.Model, b.Model, spreadText(a.P99Spread, a.P99US), spreadText(b.P99Spread, b.P99US), a.RPS, b.RPS)})
			}
		}
	}
	return out
}

type alikeLine struct {
	text      string
	sameShape bool
}

// sameShapeLine says two models are one program here, naming what made
// them so: master-slave with one port has one boss accepting, as multi.
func sameShapeLine(a, b Figures) string {
	if b.Model == string(scenarios.ModelMasterSlave) {
		a, b = b, a
	}
	line := fmt.Sprintf("%s and %s have the same shape here (%s), so their difference is the runs' noise (p99 %s vs %s)",
		a.Model, b.Model, a.Shape, usText(a.P99US), usText(b.P99US))
	if a.Model == string(scenarios.ModelMasterSlave) && a.Shape.Accepting == 1 {
		line = fmt.Sprintf("%s with %s is %s: %s, so any difference between them is the runs' noise (p99 %s vs %s)",
			a.Model, a.Listening, b.Model, a.Shape, usText(a.P99US), usText(b.P99US))
	}
	return line
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

// check evaluates the workload's compare clauses against the figures.
func (c *Comparison) check(clauses []*scenarios.CompareClause) {
	get := func(model, name string) (float64, bool) {
		for i := range c.Figures {
			if c.Figures[i].Model == model {
				return c.Figures[i].figure(name)
			}
		}
		return 0, false
	}
	c.Checks = c.Checks[:0]
	for _, cl := range clauses {
		c.Checks = append(c.Checks, cl.Eval(get))
	}
}

// variantVerdict is the verdict of a comparison of loop designs or
// transports: what the clients saw, ranked only beyond the runs' noise,
// and where to look for the difference (the cause lines).
func variantVerdict(fs []Figures, axis string, causes bool) string {
	if len(fs) < 2 {
		return ""
	}
	best := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.RPS, b.RPS) })
	worst := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.RPS, b.RPS) })
	low := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.P99US, b.P99US) })
	high := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.P99US, b.P99US) })
	var head string
	switch {
	case moreRPS(best, worst) && !anyAlike(alikeWith(fs, best), worst):
		head = fmt.Sprintf("%s served %.1f× %s's requests (%.0f vs %.0f req/s%s)", names(alikeWith(fs, best)),
			best.RPS/worst.RPS, worst.Model, best.RPS, worst.RPS, pairedText(best, worst, windowRPS))
	case slowerP99(high, low) && !anyAlike(alikeWith(fs, low), high):
		head = fmt.Sprintf("same throughput, but %s's p99 is %.1f× %s's (%s vs %s%s)", high.Model,
			high.P99US/low.P99US, names(alikeWith(fs, low)), usText(high.P99US), usText(low.P99US), pairedText(high, low, windowP99))
	case worstApart(fs):
		head = fmt.Sprintf("the clients' req/s and run p99 were about the same under every %s (about %.0f req/s, p99 %s to %s), but not their worst %s: %s",
			axis, best.RPS, usText(low.P99US), usText(high.P99US), WindowEvery, worstWindows(fs))
	default:
		head = fmt.Sprintf("the clients saw about the same under every %s (about %.0f req/s, p99 %s to %s, within the runs' noise%s)",
			axis, best.RPS, usText(low.P99US), usText(high.P99US), worstAlike(fs))
	}
	if causes {
		return head + "; the " + axis + "s differ inside the loop: why they differ, below"
	}
	return head + "; the loops' counters differ by no more than a run's noise either"
}

// worstWindowStall is the worst-window p99 from which a difference is a
// stall a learner would feel, not a scheduler's hiccup.
const worstWindowStall = 50_000

// worstApart says whether the runs' worst windows are far apart: one run
// held its clients for a stall the others did not (a batch that kept its
// loop), which a run's p99 dilutes.
func worstApart(fs []Figures) bool {
	lo := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.WorstWindowP99US, b.WorstWindowP99US) })
	hi := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.WorstWindowP99US, b.WorstWindowP99US) })
	return lo.WorstWindowP99US > 0 && hi.WorstWindowP99US >= 3*lo.WorstWindowP99US && hi.WorstWindowP99US-lo.WorstWindowP99US >= worstWindowStall
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
	return fmt.Sprintf("; worst %s p99 %s to %s", WindowEvery, usText(lo), usText(hi))
}
