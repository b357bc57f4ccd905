package compare

import (
	"math"
	"slices"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
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
	Split sim.TimeShares `json:"time_split"`
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
	// (sim.Summary.CapacityRPS); CapacityLoop the loop that bounds it and
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
	windows          []sim.Window
}

// clauseFigures are the figures a compare clause may read, by name.
var clauseFigures = map[string]func(*Figures) float64{
	"rps":                 func(f *Figures) float64 { return f.RPS },
	"p50_us":              func(f *Figures) float64 { return f.P50US },
	"p99_us":              func(f *Figures) float64 { return f.P99US },
	"p999_us":             func(f *Figures) float64 { return f.P999US },
	"errors":              func(f *Figures) float64 { return float64(f.Errors) },
	"accept_p99_us":       func(f *Figures) float64 { return f.AcceptP99US },
	"accept_loops":        func(f *Figures) float64 { return float64(f.AcceptLoops) },
	"busy_max":            func(f *Figures) float64 { return f.BusyMax },
	"served_loops":        func(f *Figures) float64 { return float64(f.ServedLoops) },
	"stalled_loops":       func(f *Figures) float64 { return float64(f.StalledLoops) },
	"capacity_rps":        func(f *Figures) float64 { return f.CapacityRPS },
	"worst_window_p99_us": func(f *Figures) float64 { return f.WorstWindowP99US },
}

// figuresOf reads one model's figures from its summary.
func figuresOf(s *sim.Summary, sc *scenarios.Scenario) Figures {
	f := Figures{Model: s.Model, OfferedRPS: offered(sc), CPUWaitMax: -1, OtherCPU: s.Measured.OtherCPU, RPS: s.Clients.ThroughputRPS,
		P50US: s.Clients.LatencyUS.P50, P99US: s.Clients.LatencyUS.P99, P999US: s.Clients.LatencyUS.P999,
		Errors: s.Clients.Errors, AcceptP99US: s.Clients.AcceptUS.P99,
		StallUS: float64(stallThreshold(sc) / time.Microsecond), blocking: longestBlock(sc) > 0,
		Listening: listening(sc), CapacityRPS: s.CapacityRPS, CapacityLoop: s.CapacityLoop}
	if w := s.Clients.LatencyUS.WorstWindow; w != nil {
		f.WorstWindowP99US, f.WorstWindowAtNS = w.P99US, w.AtNS
	}
	n := 0
	for _, l := range s.Loops {
		if l.Accepted > 0 {
			f.AcceptLoops++
		}
		if l.Name == f.CapacityLoop && l.LoopCPU != nil {
			f.CPUPerReqUS = float64(l.CPUNanosPerRequest) / 1000
		}
		// The shape: a loop served if it is of an I/O group and registered
		// a channel (or accepted one, as single's loop does).
		if ioGroup(l.Group) && (l.Registered > 0 || l.Accepted > 0) {
			f.Shape.Serving++
			f.Shape.Shared = f.Shape.Shared || l.Accepted > 0
		}
		if !ioGroup(l.Group) || l.Time == nil {
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
	if n > 0 {
		r := func(x float64) float64 { return math.Round(x/float64(n)*10) / 10 }
		f.Split = sim.TimeShares{Select: r(f.Split.Select), IO: r(f.Split.IO), Tasks: r(f.Split.Tasks)}
	}
	f.windows, f.Shape.Accepting = s.Measured.Windows, f.AcceptLoops
	f.RPSSpread = spreadOf(f.windows, windowRPS, nil)
	f.P99Spread = spreadOf(f.windows, windowP99, func(w sim.Window) bool { return w.RPS == 0 })
	f.Verdict = f.modelVerdict()
	return f
}

// ioGroup says whether a group's loops carry connections: the worker
// group, or single's one reactor group; not the bosses nor the clients.
func ioGroup(name string) bool { return name != scenarios.GroupClient && name != scenarios.GroupBoss }

func listening(sc *scenarios.Scenario) string {
	if sc.Server.ReusePort {
		return "SO_REUSEPORT"
	}
	return plural(sc.Server.Ports, "port")
}

// longestBlock is the longest blocking handler the timeline injects, 0
// when it makes no handler block (a blocking handler blocks 1 ms or more).
func longestBlock(sc *scenarios.Scenario) time.Duration {
	block := time.Duration(0)
	for _, a := range sc.Timeline {
		if in, ok := a.(scenarios.Inject); ok && in.Fault == scenarios.FaultBlockingHandler {
			block = max(block, in.Duration)
		}
	}
	return block
}

// stallThreshold is the client p99 that marks a loop's clients as
// stalled: half the longest blocking handler of the timeline, or 100 ms.
func stallThreshold(sc *scenarios.Scenario) time.Duration {
	if block := longestBlock(sc); block > 0 {
		return block / 2
	}
	return 100 * time.Millisecond
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

// Spread is the range a figure took over a run's windows, the first
// (clients connecting) left out and the outer tenth on each side trimmed:
// how much the figure moves on its own, which a comparison must not rank.
type Spread struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	N  int     `json:"windows"` // windows read; 0 when the run kept none
}

// minSpreadWindows is the fewest windows a spread is read from; with fewer
// a comparison falls back to fixed margins.
const minSpreadWindows = 3

// known says whether the spread was measured.
func (s Spread) known() bool { return s.N >= minSpreadWindows }

// spreadOf reads the spread of one figure of the windows; skip drops a
// window (one with no answer has no latency).
func spreadOf(ws []sim.Window, pick func(sim.Window) float64, skip func(sim.Window) bool) Spread {
	if len(ws) > 1 {
		ws = ws[1:]
	}
	var vs []float64
	for _, w := range ws {
		if skip == nil || !skip(w) {
			vs = append(vs, pick(w))
		}
	}
	if len(vs) < minSpreadWindows {
		return Spread{N: len(vs)}
	}
	return trimmed(vs)
}

// trimmed is the range of vs with the outer tenth on each side left out;
// it sorts vs.
func trimmed(vs []float64) Spread {
	slices.Sort(vs)
	k := len(vs) / 10
	return Spread{Lo: vs[k], Hi: vs[len(vs)-1-k], N: len(vs)}
}

// Shape is the topology that served a run: the loops that accepted, the
// loops that served channels, and whether one loop did both. Two models
// of the same shape are the same program here, whatever they are called.
type Shape struct {
	Accepting int  `json:"accepting"`
	Serving   int  `json:"serving"`
	Shared    bool `json:"shared"` // a loop that accepted also served
}

// LoopTotals are the counters in which Netty versions and transports
// differ, summed over a run's server loops (the load generator's loops
// left out), with the quietest loop's blocking selects: an idle loop's
// wakes (docs/netty-versions.md).
type LoopTotals struct {
	Name           string  `json:"name"` // the flavour or transport
	Requests       int64   `json:"requests"`
	Selects        int64   `json:"selects"`
	SelectNows     int64   `json:"select_nows"`
	Iterations     int64   `json:"iterations"`
	Rebuilds       int64   `json:"rebuilds"`
	QuietSelects   int64   `json:"quiet_selects"` // the fewest blocking selects of one loop
	QuietLoop      string  `json:"quiet_loop"`
	WakeupsWritten int64   `json:"wakeups_written"`
	SelfWakeups    int64   `json:"self_wakeups"`
	TasksRun       int64   `json:"tasks_run"`
	DeadlineHits   int64   `json:"deadline_hits"`
	Premature      int64   `json:"premature"`
	WaitsPerReq    float64 `json:"waits_per_request"`
	// WorstP99US is the clients' p99 in the run's worst window
	// (ClientSummary's worst_window_p99): a batch that holds a loop shows
	// here, where the run's p99 averages it away.
	WorstP99US float64 `json:"worst_window_p99_us"`
	// Syscalls are the server loops' system calls as the engine counted
	// them; nil for a run rebuilt from a trace.
	Syscalls *sim.SyscallCount `json:"syscalls,omitempty"`
	// Design is what the events say of the loop design, when counted.
	Design *sim.DesignCount `json:"design,omitempty"`
}

func totalsOf(name string, s *sim.Summary) LoopTotals {
	t := LoopTotals{Name: name, Requests: s.Clients.Requests, QuietSelects: -1}
	for _, l := range s.Loops {
		if l.Group == scenarios.GroupClient {
			continue // the engine's clients stay on epoll whatever is compared
		}
		t.Selects += l.Selects
		t.SelectNows += l.SelectNows
		t.Iterations += l.Iterations
		t.Rebuilds += l.Rebuilds
		t.WakeupsWritten += l.WakeupsWritten
		t.SelfWakeups += l.SelfWakeups
		t.TasksRun += l.TasksRun
		t.DeadlineHits += l.DeadlineHits
		t.Premature += l.Premature
		if l.TID != 0 && (t.QuietSelects < 0 || l.Selects < t.QuietSelects) {
			t.QuietSelects, t.QuietLoop = l.Selects, l.Name
		}
	}
	t.QuietSelects = max(t.QuietSelects, 0)
	if w := s.Clients.LatencyUS.WorstWindow; w != nil {
		// The requests still in flight counted at their age, as the
		// verdict and the screens read the worst window.
		t.WorstP99US = w.P99US
	}
	t.Syscalls, t.Design = s.Measured.Syscalls, s.Measured.Design
	t.WaitsPerReq = per(t.Selects+t.SelectNows, t.Requests)
	return t
}

// tasksPerBatch is how many tasks ran between two cuts of a batch by its
// deadline: a flood cut at every 64-task check shows about 64.
func (t LoopTotals) tasksPerBatch() float64 { return float64(t.TasksRun) / float64(t.DeadlineHits+1) }

// readsPerRequest is the read(2) calls a request, those that found
// nothing included, and those that found nothing (EAGAIN); ok is false
// when not counted or on a ring.
func (t LoopTotals) readsPerRequest() (reads, empty float64, ok bool) {
	c := t.Syscalls
	if c == nil || t.Requests <= 0 || c.Enters > 0 {
		return 0, 0, false
	}
	return per(c.Reads, t.Requests), per(c.EmptyReads, t.Requests), true
}

// syscallsPerRequest is the system calls a request cost, as the engine
// counted them: a readiness loop's waits, reads (the empty ones too),
// writes, epoll_ctl and eventfd writes, a ring's enters and eventfd
// writes. A run without the count (a unit's figures) gets the fewest it
// could have made: its waits and, for a readiness transport, a read and
// a write.
func (t LoopTotals) syscallsPerRequest() float64 {
	if c := t.Syscalls; c != nil && t.Requests > 0 {
		return per(c.Total(), t.Requests)
	}
	if t.Name == string(scenarios.SelectorIOUring) {
		return t.WaitsPerReq
	}
	return t.WaitsPerReq + 2
}

// per is n each of count (a request, an enter); 0 with none.
func per(n, count int64) float64 {
	if count <= 0 {
		return 0
	}
	return float64(n) / float64(count)
}
