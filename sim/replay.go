package sim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reactorviz/reactorviz/reactor/netty"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// Tally folds events into per-loop counters: the same counters a live run
// reads from its loops, rebuilt from a trace alone with the fold the UI's
// model uses (counters.Loop and counters.Wheel). Every counter of Stats that
// an event records is reproduced; with no dropped events the result equals
// the live run's.
type Tally struct {
	Loops    []trace.LoopInfo
	Counters []counters.Loop // by trace loop index: counters, thread id, state
	Events   uint64
	Last     int64 // time of the last event
	// The wheel's ticks and expiries. Its cancellations and what is left
	// pending at the end are not events.
	Wheel counters.Wheel
}

// Add folds one event.
func (t *Tally) Add(e *trace.Event) {
	i := int(e.Loop)
	for len(t.Counters) <= i {
		t.Counters = append(t.Counters, counters.NewLoop())
	}
	t.Events++
	t.Last = max(t.Last, e.Time)
	if t.Wheel.Fold(e) {
		return
	}
	name := ""
	if i < len(t.Loops) {
		name = t.Loops[i].Name
	}
	t.Counters[i].Fold(e, name)
}

// Replay reads a JSONL trace and rebuilds the run's summary from it: the
// figures of its last sample, taken at the run's end, as the run's own
// summary read them, and the groups from its loop table. A trace without
// samples (version 1) or cut before its end is rebuilt from its events:
// loops and their counters, without the client figures. A scenario's expectations can be checked against it
// when the trace names a built-in scenario; a trace never makes Replay open
// another file.
//
// A trace cut short (the run was killed: no end line, or a last line cut
// off) is replayed up to its last complete event: the summary and tally
// come back with an error wrapping jsonl.ErrTruncated that says where the
// trace stops. Any other bad line is an error and nothing comes back.
func Replay(path string) (*Summary, *Tally, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ReplayFrom(f, path)
}

// ReplayFrom is Replay of a trace read from r; name is used in errors.
func ReplayFrom(r io.Reader, name string) (*Summary, *Tally, error) {
	rd, err := jsonl.NewReader(r, name)
	if err != nil {
		return nil, nil, err
	}
	t := &Tally{}
	var cut error
	var samples Samples
	for {
		e, sm, err := rd.NextRecord()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, jsonl.ErrTruncated) {
			cut = err
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if sm != nil {
			samples.Add(sm)
			continue
		}
		t.Loops = rd.Loops()
		t.Add(&e)
	}
	t.Loops = rd.Loops()
	h := rd.Header()
	s := t.summary(h.Scenario, h.Model)
	s.Netty = headerNetty(h.Config)
	if fin := samples.Latest(); fin != nil {
		// The run's own figures, as its summary read them: the counters
		// no event records, the clients, the wheel, the time split.
		s.fromSamples(&samples, t.Loops)
		s.fromTrace = fin.Reason != sample.End
	}
	if end, ok := rd.End(); ok {
		s.Events = EventSummary{Emitted: end.Emitted, Dropped: end.Dropped}
		if end.Dropped > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("the run dropped %d events: counters rebuilt from this trace may be short", end.Dropped))
		}
	}
	var exps []*scenarios.Expect
	// The header's scenario is a name to show; only a built-in's
	// expectations are checked. Loading it as a path would let a shared
	// trace make reactorviz open any file (a FIFO hangs the replay).
	sc, err := headerScenario(h)
	if err == nil && string(sc.Netty) != s.Netty {
		// Conditions such as "if: netty == 4.2" read the design it ran.
		err = sc.Set("netty", s.Netty)
	}
	if err == nil && sc.Model == scenarios.Model(h.Model) && cut != nil {
		// The counters stop where the run did: an expectation about the
		// whole run would fail for that alone.
		s.Warnings = append(s.Warnings, fmt.Sprintf("the trace is cut short: the scenario's %d expectation(s) not checked", len(sc.Expect)))
	} else if err == nil && sc.Model == scenarios.Model(h.Model) {
		for _, e := range sc.Expect {
			if !s.fromTrace || traceHolds(e.Text) {
				exps = append(exps, e)
			} else {
				s.Warnings = append(s.Warnings, "not checked, a trace does not record it: "+e.Text)
			}
		}
	}
	s.check(exps)
	return s, t, cut
}

// headerNetty is the loop design a trace header's config words name; a
// trace that names none ran the default, 4.1.43.
func headerNetty(cfg string) string {
	if v, ok := headerWord(cfg, "netty"); ok {
		return v
	}
	return string(scenarios.Netty4143)
}

// headerWord is the value of a trace header's config word key=value.
func headerWord(cfg, key string) (string, bool) {
	for _, w := range strings.Fields(cfg) {
		if k, v, ok := strings.Cut(w, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// headerScenario is the built-in scenario or compare workload a trace
// header names: the workload when the run said it ran one (a workload
// may share its name with a scenario). It never reads a file.
func headerScenario(h jsonl.Header) (*scenarios.Scenario, error) {
	if v, _ := headerWord(h.Config, "workload"); v == "true" {
		return scenarios.LoadWorkload(h.Scenario)
	}
	return scenarios.LoadBuiltin(h.Scenario)
}

// traceHolds reports whether an expectation reads only what a trace
// records: the loops' counters, the groups, and the wheel's ticks and
// expiries. What the clients saw, the wheel's cancellations and pending
// timeouts, and the business pool are not events.
func traceHolds(expr string) bool {
	for _, root := range []string{"clients.", "wheel.cancelled", "wheel.pending", "pool.", "events."} {
		if strings.Contains(expr, root) {
			return false
		}
	}
	return true
}

func (t *Tally) summary(scenario, model string) *Summary {
	s := &Summary{Scenario: scenario, Model: model, DurationNS: t.Last, fromTrace: true,
		Wheel: WheelSummary{Ticks: t.Wheel.Ticks, Expired: t.Wheel.Expired}}
	sizes := map[string]int{}
	var order []string
	for i, l := range t.Loops {
		if l.Group == "wheel" {
			continue
		}
		if sizes[l.Group] == 0 {
			order = append(order, l.Group)
		}
		sizes[l.Group]++
		ls := LoopSummary{Name: l.Name, Group: l.Group, State: trace.StateNotStarted.String()}
		if i < len(t.Counters) {
			c := &t.Counters[i]
			ls.Stats, ls.TID = c.Stats, int(c.TID)
			ls.TimersFired = ls.TimersDue
			if ls.TID != 0 {
				ls.State = c.State.String()
			}
		}
		s.Loops = append(s.Loops, ls)
		s.loopNames = append(s.loopNames, l.Name)
	}
	for _, g := range order {
		n := sizes[g]
		s.Groups = append(s.Groups, GroupSummary{Name: g, Size: n, Chooser: netty.Chooser(n)})
	}
	return s
}
