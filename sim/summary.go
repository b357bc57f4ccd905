package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/internal/safetext"
	"github.com/reactorviz/reactorviz/internal/textwidth"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
)

// Summary is the run summary (docs/scenarios.md, "Summary keys"). Its JSON
// keys are stable.
type Summary struct {
	Scenario   string         `json:"scenario"`
	Model      string         `json:"model"`
	Netty      string         `json:"netty"`
	DurationNS int64          `json:"duration_ns"`
	Groups     []GroupSummary `json:"groups"`
	Loops      []LoopSummary  `json:"loops"`
	Clients    ClientSummary  `json:"clients"`
	Events     EventSummary   `json:"events"`
	Wheel      WheelSummary   `json:"wheel"`
	Pool       PoolSummary    `json:"pool"`
	// CapacityRPS is the rate the model could serve if each of its loops
	// had a core of its own: the requests answered over the CPU time of
	// the loop that used the most (CapacityLoop). It comes from each
	// thread's own CPU time (schedstat), which other work on the machine
	// does not change, so it holds on a busy machine where the clients'
	// throughput does not. Absent where the kernel keeps no schedstat.
	CapacityRPS  float64            `json:"capacity_rps,omitempty"`
	CapacityLoop string             `json:"capacity_loop,omitempty"`
	Expect       []scenarios.Result `json:"expect"`
	Warnings     []string           `json:"warnings,omitempty"`
	Error        string             `json:"error,omitempty"`
	// Measured is what only the run itself holds, kept out of the JSON.
	Measured  Measured `json:"-"`
	resolved  map[string]scenarios.Value
	loopNames []string
	fromTrace bool // rebuilt by Replay: no client figures, no wheel cancellations
	// outside is set for a run with no clients of its own (serve): what
	// outside clients got is counted by the server, not by clients.
	outside  bool
	answered int64 // requests the protocol handlers answered (echo counts none)
}

// Measured is what a run measured besides its summary's keys, for a
// comparison of runs to read; a summary read from JSON has none of it.
type Measured struct {
	// Windows are what the clients saw in each WindowEvery of the run,
	// oldest first; a summary rebuilt from a trace has none.
	Windows []Window
	// Syscalls are the server loops' system calls; nil when rebuilt from
	// a trace.
	Syscalls *SyscallCount
	// Design is what the server loops' events say of their loop design,
	// when the run counted it (CountDesign).
	Design *DesignCount
	// OtherCPU is the share (%) of the machine's CPUs other processes used
	// during the run; -1 unknown.
	OtherCPU float64
}

// GroupSummary describes one EventLoopGroup.
type GroupSummary struct {
	Name    string `json:"name"`
	Size    int    `json:"size"`
	Chooser string `json:"chooser"`
}

// LoopSummary is one loop's identity and final counters.
type LoopSummary struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	TID   int    `json:"tid"`
	State string `json:"state"`
	reactor.Stats
	TimersFired int64 `json:"timers_fired"`
	// Time is where the loop's time went and what its clients saw; a
	// summary rebuilt from a trace has none.
	Time *LoopTime `json:"time,omitempty"`
	// ClientsLatencyUS is what the clients of the channels this loop
	// serves saw over the run, with their worst window; only when some
	// were answered.
	ClientsLatencyUS *LatencySummary `json:"clients_latency_us,omitempty"`
	// The CPU its thread used and waited for (LoopCPU); only for a live
	// run's started loops where the kernel keeps schedstat.
	*LoopCPU
}

// LoopCPU is a loop thread's own CPU time over the run and its wait for
// a CPU (schedstat), and what its CPU comes to per request its channels
// answered: the cost of a request on this loop, which the machine's load
// does not change (a request waits longer on a busy machine, it does not
// take more CPU).
type LoopCPU struct {
	CPUNanos     int64 `json:"cpu_ns"`
	CPUWaitNanos int64 `json:"cpu_wait_ns"`
	// CPUNanosPerRequest is CPUNanos over the requests the loop's channels
	// answered; absent for a loop that served none (a boss).
	CPUNanosPerRequest int64 `json:"cpu_ns_per_request,omitempty"`
	// PerRequestPhase splits CPUNanosPerRequest between the I/O and task
	// phases in proportion to the loop's own time in each (the loop
	// clocks its phases; the kernel counts its CPU as a whole).
	PerRequestPhase *PhaseCPU `json:"cpu_ns_per_request_phase,omitempty"`
}

// PhaseCPU is a loop's CPU per request by phase, in ns.
type PhaseCPU struct {
	IO    int64 `json:"io"`
	Tasks int64 `json:"tasks"`
}

// LoopTime is one loop's time split and the latency of the requests on
// the channels it serves.
type LoopTime struct {
	SelectNanos int64      `json:"select_ns"` // blocked in select over the run
	LastSecond  TimeShares `json:"last_second"`
	Run         TimeShares `json:"run"`
	// Clients is the latency of the requests on the channels the loop
	// serves over the run, ClientsLastSecond over the last second; each
	// only when some were answered.
	Clients           *LoopClients `json:"clients,omitempty"`
	ClientsLastSecond *LoopClients `json:"clients_last_second,omitempty"`
}

// LoopClients is what the clients of one loop's channels saw.
type LoopClients struct {
	Requests  int64          `json:"requests"`
	LatencyUS LatencySummary `json:"latency_us"`
}

// ClientSummary is what the clients saw.
type ClientSummary struct {
	Connections   int64          `json:"connections"`
	Requests      int64          `json:"requests"`
	Errors        int64          `json:"errors"`
	BytesVerified int64          `json:"bytes_verified"`
	ThroughputRPS float64        `json:"throughput_rps"`
	LatencyUS     LatencySummary `json:"latency_us"`
	// AcceptUS is the time from a connection's dial to its registration
	// on the loop that serves it.
	AcceptUS LatencySummary `json:"accept_us"`
}

// LatencySummary holds latency quantiles in microseconds.
type LatencySummary struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	// The worst WindowEvery of the run (a run's clients and a loop's);
	// absent elsewhere.
	*WorstWindow
}

// EventSummary counts trace events.
type EventSummary struct {
	Emitted uint64 `json:"emitted"`
	Dropped uint64 `json:"dropped"`
}

// WheelSummary is the HashedWheelTimer's totals.
type WheelSummary struct {
	Ticks     int64 `json:"ticks"`
	Expired   int64 `json:"expired"`
	Cancelled int64 `json:"cancelled"`
	Pending   int64 `json:"pending"`
}

// PoolSummary is the business pool's totals.
type PoolSummary struct {
	Size     int   `json:"size"`
	TasksRun int64 `json:"tasks_run"`
}

// Failed reports how many expectations failed.
func (s *Summary) Failed() int {
	n := 0
	for _, e := range s.Expect {
		if !e.OK {
			n++
		}
	}
	return n
}

// loopCPU is a loop's CPU figures from its thread's schedstat (the end
// sample's), per request of the clients it served; nil without them.
func loopCPU(l *sample.Loop, t *LoopTime) *LoopCPU {
	if l.CPU == nil {
		return nil
	}
	out := &LoopCPU{CPUNanos: l.CPU.RunNS, CPUWaitNanos: l.CPU.WaitNS}
	if t == nil || t.Clients == nil || t.Clients.Requests <= 0 {
		return out
	}
	out.CPUNanosPerRequest = l.CPU.RunNS / t.Clients.Requests
	if work := l.Split.IONS + l.Split.TaskNS; work > 0 {
		io := out.CPUNanosPerRequest * l.Split.IONS / work
		out.PerRequestPhase = &PhaseCPU{IO: io, Tasks: out.CPUNanosPerRequest - io}
	}
	return out
}

// capacity is the rate the model could serve with a core per loop: the
// requests answered over the CPU seconds of the server loop that used the
// most. The clients' own loops (a client bootstrap) are not the server.
func capacity(s *Summary) (rps float64, loop string) {
	var most int64
	for _, l := range s.Loops {
		if l.LoopCPU == nil || l.Group == scenarios.GroupClient || l.CPUNanos <= most {
			continue
		}
		most, loop = l.CPUNanos, l.Name
	}
	if most <= 0 || s.Clients.Requests <= 0 {
		return 0, ""
	}
	return float64(s.Clients.Requests) / (float64(most) / 1e9), loop
}

func (r *Run) summarise() *Summary {
	s := &Summary{Scenario: r.sc.Name, Model: string(r.sc.Model), Netty: string(r.sc.Netty)}
	for _, g := range r.groups {
		s.Groups = append(s.Groups, GroupSummary{Name: g.Name(), Size: g.Size(), Chooser: g.Chooser()})
	}
	s.fromSamples(&r.sampler.fold, r.coll.Loops())
	s.Measured.OtherCPU = r.otherCPU
	s.outside, s.answered = len(r.sc.Clients) == 0, r.Answered()
	s.Measured.Syscalls = syscallsOf(s.Loops, r.sc.Loop.Selector == scenarios.SelectorIOUring)
	if r.design != nil {
		s.Measured.Design = r.design.take()
	}
	s.Events.Emitted, s.Events.Dropped = r.coll.Stats()
	for _, w := range r.sc.Warnings() {
		s.Warnings = append(s.Warnings, w.String())
	}
	s.check(r.sc.Expect)
	return s
}

// fromSamples fills the figures of a summary from a run's samples, the last
// of which is its end: loops, clients, wheel, pool, duration and windows.
// A live run and a replay of its trace come here with the same samples.
func (s *Summary) fromSamples(f *Samples, table []trace.LoopInfo) {
	fin := f.Latest()
	if fin == nil {
		return
	}
	s.DurationNS = fin.Elapsed
	s.Loops, s.loopNames = nil, nil
	for _, l := range fin.Loops {
		if l.Index >= len(table) {
			continue
		}
		info := table[l.Index]
		ls := LoopSummary{Name: info.Name, Group: info.Group, TID: int(l.TID), State: l.State.String(),
			Stats: l.Stats, TimersFired: l.Stats.TimersDue, Time: f.LoopTime(l.Index)}
		if ls.Time != nil && ls.Time.Clients != nil {
			lat := ls.Time.Clients.LatencyUS
			ls.ClientsLatencyUS = &lat
		}
		ls.LoopCPU = loopCPU(&l, ls.Time)
		s.Loops = append(s.Loops, ls)
		s.loopNames = append(s.loopNames, info.Name)
	}
	s.Clients = clientSummary(fin)
	s.Clients.LatencyUS.WorstWindow = WorstOf(fin.Clients.Worst)
	if w := fin.Wheel; w != nil {
		s.Wheel = WheelSummary{Ticks: w.Ticks, Expired: w.Expired, Cancelled: w.Cancelled, Pending: w.Pending}
	}
	s.Pool = PoolSummary{Size: fin.Pool.Size, TasksRun: fin.Pool.TasksRun}
	s.Measured.Windows = f.Windows()
	s.CapacityRPS, s.CapacityLoop = capacity(s)
}

// check evaluates the expectations against the summary itself, so a
// replayed summary is checked the same way.
func (s *Summary) check(exps []*scenarios.Expect) {
	var unknown []string
	s.resolved, unknown = flatten(s)
	for _, k := range unknown {
		s.Warnings = append(s.Warnings, "summary key "+k+" has no expectation key: expectations cannot name it")
	}
	s.Expect = s.Expect[:0]
	rv := resolver{s}
	for _, e := range exps {
		s.Expect = append(s.Expect, e.Eval(rv))
	}
}

// resolver reads a summary's values by their JSON paths for expectations.
type resolver struct{ s *Summary }

// Lookup implements scenarios.Resolver.
func (r resolver) Lookup(path string) (scenarios.Value, bool) {
	v, ok := r.s.resolved[path]
	return v, ok
}

// Loops implements scenarios.Resolver.
func (r resolver) Loops() []string { return r.s.loopNames }

// notExpectable are the summary's keys that no expectation reads: the
// outcome of the expectations themselves.
var notExpectable = map[string]bool{"expect": true, "warnings": true, "error": true}

// flatten turns the summary into "worker-0.rebuilds", "clients.errors",
// "groups.worker.chooser" ... → value, typed by the scenario key tables.
// A key of the summary's JSON that no table types is returned in unknown
// (as loop.KEY for a loop's, groups.GROUP.KEY for a group's): a field added
// without its expectation key, which an expectation could not name.
func flatten(s *Summary) (values map[string]scenarios.Value, unknown []string) {
	out := map[string]scenarios.Value{}
	types := map[string]scenarios.Type{}
	for _, k := range scenarios.LoopKeys() {
		types["loop."+k.Path] = k.Type
	}
	for _, k := range scenarios.RunKeys() {
		types[k.Path] = k.Type
	}
	missing := map[string]bool{}
	// walk puts each value of m at its path under prefix, typed by the
	// key of the same path under typePrefix.
	var walk func(prefix, typePrefix string, m map[string]any)
	walk = func(prefix, typePrefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", typePrefix+k+".", sub)
				continue
			}
			t, ok := types[typePrefix+k]
			if !ok {
				missing[typePrefix+k] = true
				continue
			}
			if val, ok := toValue(v, t); ok {
				out[prefix+k] = val
			}
		}
	}
	for _, l := range s.Loops {
		walk(l.Name+".", "loop.", asMap(l))
	}
	for _, g := range s.Groups {
		walk("groups."+g.Name+".", "groups.GROUP.", asMap(g))
	}
	top := asMap(s)
	delete(top, "loops")
	delete(top, "groups")
	for k := range notExpectable {
		delete(top, k)
	}
	walk("", "", top)
	for k := range missing {
		unknown = append(unknown, k)
	}
	sort.Strings(unknown)
	return out, unknown
}

func asMap(v any) map[string]any {
	b, _ := json.Marshal(v)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	_ = d.Decode(&m)
	return m
}

func toValue(v any, t scenarios.Type) (scenarios.Value, bool) {
	switch t {
	case scenarios.TypeInt:
		if n, ok := v.(json.Number); ok {
			i, err := n.Int64()
			return scenarios.IntValue(i), err == nil
		}
	case scenarios.TypeFloat:
		if n, ok := v.(json.Number); ok {
			f, err := n.Float64()
			return scenarios.FloatValue(f), err == nil
		}
	case scenarios.TypeString, scenarios.TypeState:
		if str, ok := v.(string); ok {
			return scenarios.StringValue(str), true
		}
	case scenarios.TypeBool:
		if b, ok := v.(bool); ok {
			return scenarios.BoolValue(b), true
		}
	}
	return scenarios.Value{}, false
}

// JSON returns the summary as one indented JSON object.
func (s *Summary) JSON() []byte {
	b, _ := json.MarshalIndent(s, "", "  ")
	return append(b, '\n')
}

// Text renders the summary for a terminal: the groups, a table of the
// loops' main counters, the clients, and each expectation with its outcome.
func (s *Summary) Text() string {
	var b strings.Builder
	// Names, warnings and expectations may come from a trace or a scenario
	// file: each stays on its line (a newline or tab in a loop name would
	// forge rows), and no control character reaches the terminal.
	line := safetext.Line
	fmt.Fprintf(&b, "scenario %s · model %s · netty %s · %v\n", line(s.Scenario), line(s.Model), line(s.Netty), time.Duration(s.DurationNS).Round(time.Millisecond))
	for _, g := range s.Groups {
		fmt.Fprintf(&b, "  group %-7s %d loop(s), chooser %s\n", line(g.Name), g.Size, g.Chooser)
	}
	b.WriteString("\n")
	tw := textwidth.NewTable(&b)
	fmt.Fprintln(tw, "loop\ttid\tstate\titer\tselects\tprem\tmaxCnt\trebuild\twake w/c\ttasks\tdl hit\taccept\tch\tread\twritten\t")
	for _, l := range s.Loops {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n",
			line(l.Name), l.TID, l.State, l.Iterations, l.Selects+l.SelectNows, l.Premature, l.MaxSelectCnt,
			l.Rebuilds, l.WakeupsWritten, l.WakeupsCoalesced, l.TasksRun, l.DeadlineHits, l.Accepted,
			l.Channels, bytesText(l.BytesRead), bytesText(l.BytesWritten))
	}
	tw.Flush()
	s.timeText(&b)
	if s.fromTrace {
		b.WriteString("\nclients: not in a trace\n")
	} else if s.outside {
		s.outsideText(&b)
	} else {
		c := s.Clients
		fmt.Fprintf(&b, "\nclients: %d connections, %d requests (%.0f req/s), %d errors, %s verified\n",
			c.Connections, c.Requests, c.ThroughputRPS, c.Errors, bytesText(c.BytesVerified))
		fmt.Fprintf(&b, "latency µs: p50 %.0f  p90 %.0f  p99 %.0f  p999 %.0f  max %.0f\n", c.LatencyUS.P50, c.LatencyUS.P90, c.LatencyUS.P99, c.LatencyUS.P999, c.LatencyUS.Max)
		if a := c.AcceptUS; a.Max > 0 {
			fmt.Fprintf(&b, "accept µs (dial to registration on its loop): p50 %.0f  p99 %.0f  max %.0f\n", a.P50, a.P99, a.Max)
		}
	}
	if s.Events.Emitted == 0 && s.Events.Dropped == 0 {
		b.WriteString("events: none collected (the engine emits events only for --trace, --chrome or the TUI)\n")
	} else {
		fmt.Fprintf(&b, "events: %d emitted, %d dropped\n", s.Events.Emitted, s.Events.Dropped)
	}
	switch {
	case s.Wheel.Ticks > 0 && s.fromTrace:
		fmt.Fprintf(&b, "wheel: %d ticks, %d expired\n", s.Wheel.Ticks, s.Wheel.Expired)
	case s.Wheel.Ticks > 0:
		fmt.Fprintf(&b, "wheel: %d ticks, %d expired, %d cancelled\n", s.Wheel.Ticks, s.Wheel.Expired, s.Wheel.Cancelled)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", line(w))
	}
	if len(s.Expect) > 0 {
		fmt.Fprintf(&b, "\nexpectations (%d of %d hold):\n", len(s.Expect)-s.Failed(), len(s.Expect))
		for _, e := range s.Expect {
			mark := "ok  "
			if !e.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(&b, "  %s %s%s\n", mark, line(e.Expr), line(ObservedText(e)))
		}
	}
	if s.Error != "" {
		fmt.Fprintf(&b, "\nerror: %s\n", safetext.Text(s.Error))
	}
	return textwidth.Wrap(b.String(), textwidth.Width)
}

// outsideText is what outside clients got from a run with none of its
// own (serve): the connections its server channels accepted and the
// requests its handlers answered, as the server counted them.
func (s *Summary) outsideText(b *strings.Builder) {
	var accepted, read, written int64
	for _, l := range s.Loops {
		accepted += l.Accepted
		read += l.BytesRead
		written += l.BytesWritten
	}
	fmt.Fprintf(b, "\noutside clients, as the server counted them: %d connections accepted, ", accepted)
	if s.answered > 0 {
		rate := 0.0
		if s.DurationNS > 0 {
			rate = float64(s.answered) / (float64(s.DurationNS) / 1e9)
		}
		fmt.Fprintf(b, "%d requests answered (%.0f req/s), ", s.answered, rate)
	}
	fmt.Fprintf(b, "%s read, %s written\n", bytesText(read), bytesText(written))
}

// timeText lists each started loop's share of the run blocked in select,
// in I/O and in tasks, and what the clients of its channels saw.
func (s *Summary) timeText(b *strings.Builder) {
	var rows []LoopSummary
	for _, l := range s.Loops {
		if l.Time != nil && l.TID != 0 {
			rows = append(rows, l)
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\ntime over the run, and the clients of each loop's channels:\n")
	tw := textwidth.NewTable(b)
	fmt.Fprintln(tw, "loop\tselect %\tio %\ttask %\trequests\tp50 µs\tp99 µs\tp999 µs\t")
	for _, l := range rows {
		t := l.Time
		if c := t.Clients; c != nil {
			fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%d\t%.0f\t%.0f\t%.0f\t\n", safetext.Line(l.Name), t.Run.Select, t.Run.IO, t.Run.Tasks,
				c.Requests, c.LatencyUS.P50, c.LatencyUS.P99, c.LatencyUS.P999)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t-\t-\t-\t-\t\n", safetext.Line(l.Name), t.Run.Select, t.Run.IO, t.Run.Tasks)
	}
	tw.Flush()
}

// ObservedText is what an expectation or compare clause read, as the
// summary prints it after the clause: "   (single.p99_us=…)".
func ObservedText(e scenarios.Result) string {
	if len(e.Observed) == 0 {
		if e.Reason != "" {
			return "   (" + e.Reason + ")"
		}
		return ""
	}
	var parts []string
	for _, o := range e.Observed {
		parts = append(parts, o.Path+"="+o.Value.String())
	}
	out := "   (" + strings.Join(parts, ", ")
	if len(out) > 100 {
		out = out[:97] + "..."
	}
	if !e.OK && e.Reason != "" {
		out += "; " + e.Reason
	}
	return out + ")"
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// Resolver reads the summary's values by their expectation paths, as a
// caption's placeholders and the expectations do.
func (s *Summary) Resolver() scenarios.Resolver {
	if s.resolved == nil {
		s.resolved, _ = flatten(s)
	}
	return resolver{s}
}

// SummaryFromJSON reads a summary as JSON wrote it, as a page showing a run
// of another process receives it: the figures and the expectations'
// outcomes (each loop's CPU and CPU wait among them), not what only the run
// itself holds (its windows).
func SummaryFromJSON(data []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
