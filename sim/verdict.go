package sim

import (
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
	blocking     bool    // the timeline blocks a handler
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
	f := Figures{Model: s.Model, OfferedRPS: offered(sc), RPS: s.Clients.ThroughputRPS,
		P50US: s.Clients.LatencyUS.P50, P99US: s.Clients.LatencyUS.P99, P999US: s.Clients.LatencyUS.P999,
		Errors: s.Clients.Errors, AcceptP99US: s.Clients.AcceptUS.P99,
		StallUS: float64(stallThreshold(sc) / time.Microsecond), blocking: blocks(sc),
		Listening: listening(sc)}
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
		if b := l.Time.Run.Busy(); b > f.BusyMax || f.BusiestLoop == "" {
			f.BusyMax, f.BusiestLoop = b, l.Name
		}
		if c := l.Time.Clients; c != nil && c.Requests > 0 {
			f.ServedLoops++
			if c.LatencyUS.P99 >= f.StallUS {
				f.StalledLoops++
			}
		}
	}
	if n > 0 {
		r := func(x float64) float64 { return math.Round(x/float64(n)*10) / 10 }
		f.Split = TimeShares{Select: r(f.Split.Select), IO: r(f.Split.IO), Tasks: r(f.Split.Tasks)}
	}
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
		parts = append(parts, fmt.Sprintf("%s busy %.0f%%", f.BusiestLoop, f.BusyMax))
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

// verdict is the comparison's one line, computed from the figures: which
// model served most, at what latency, and why.
func (c *Comparison) verdict() string {
	if len(c.Figures) < 2 {
		return ""
	}
	best := slices.MaxFunc(c.Figures, func(a, b Figures) int { return cmpFloat(a.RPS, b.RPS) })
	low := slices.MinFunc(c.Figures, func(a, b Figures) int { return cmpFloat(a.P99US, b.P99US) })
	high := slices.MaxFunc(c.Figures, func(a, b Figures) int { return cmpFloat(a.P99US, b.P99US) })
	worst := slices.MinFunc(c.Figures, func(a, b Figures) int { return cmpFloat(a.RPS, b.RPS) })
	switch {
	case worst.RPS > 0 && best.RPS >= 1.1*worst.RPS:
		return fmt.Sprintf("%s served %.1f× %s's requests (%.0f vs %.0f req/s) at p99 %s vs %s: %s",
			best.Model, best.RPS/worst.RPS, worst.Model, best.RPS, worst.RPS, usText(best.P99US), usText(worst.P99US),
			reason(worst, best))
	case low.P99US > 0 && high.P99US >= 2*low.P99US && high.P99US-low.P99US >= noiseUS:
		return fmt.Sprintf("same throughput, but %s's p99 is %.1f× %s's (%s vs %s): %s",
			high.Model, high.P99US/low.P99US, low.Model, usText(high.P99US), usText(low.P99US), reason(high, low))
	}
	busiest := slices.MaxFunc(c.Figures, func(a, b Figures) int { return cmpFloat(a.BusyMax, b.BusyMax) })
	return fmt.Sprintf("the models perform alike (about %.0f req/s, p99 %s to %s): no loop is busy enough for the model to matter (busiest: %s's %s, %.0f%%)",
		best.RPS, usText(low.P99US), usText(high.P99US), busiest.Model, busiest.BusiestLoop, busiest.BusyMax)
}

// noiseUS is the p99 difference below which the verdict calls two models
// alike: a few milliseconds is what the scheduler of a shared machine adds
// on its own.
const noiseUS = 5000

// reason explains why slow did worse than fast from their figures.
func reason(slow, fast Figures) string {
	switch {
	case slow.blocking && slow.StalledLoops > 0 && slow.StalledLoops >= slow.ServedLoops:
		return fmt.Sprintf("in %s every loop's clients stalled behind the blocked handler; in %s %d of %d loops' did",
			slow.Model, fast.Model, fast.StalledLoops, fast.ServedLoops)
	case slow.AcceptLoops < fast.AcceptLoops && slow.AcceptP99US > 1.5*fast.AcceptP99US && fast.AcceptP99US > 0:
		return fmt.Sprintf("%s accepted on %d loop with accept p99 %s, %s on %d (%s) with %s",
			slow.Model, slow.AcceptLoops, usText(slow.AcceptP99US), fast.Model, fast.AcceptLoops, fast.Listening, usText(fast.AcceptP99US))
	case slow.BusyMax >= 80 && slow.BusyMax > fast.BusyMax+10:
		return fmt.Sprintf("%s's %s was busy %.0f%% of the time and requests queued behind it; %s spread the load (busiest %s %.0f%%)",
			slow.Model, slow.BusiestLoop, slow.BusyMax, fast.Model, fast.BusiestLoop, fast.BusyMax)
	}
	return fmt.Sprintf("%s's busiest loop %s was busy %.0f%%, %s's %s %.0f%%",
		slow.Model, slow.BusiestLoop, slow.BusyMax, fast.Model, fast.BusiestLoop, fast.BusyMax)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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
