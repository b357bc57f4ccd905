package tui

import (
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
)

// Recorded is a recorded run read for a lesson: the built-in scenario its
// header names (with the recorded sizes and settings), and the figures a
// screen of its replay shows at any moment, read by the same frame and
// the same resolver a caption's placeholders use, so a lesson's verdict
// and the screen beside it agree.
type Recorded struct {
	sc  *scenarios.Scenario
	hdr jsonl.Header
	rep *model.Replay
}

// NewRecorded reads tr for lessons.
func NewRecorded(tr *jsonl.Trace) *Recorded {
	return &Recorded{sc: recordedScenario(tr.Header), hdr: tr.Header, rep: newReplay(tr)}
}

// Scenario is the built-in the recording ran, nil when the header names
// none.
func (r *Recorded) Scenario() *scenarios.Scenario { return r.sc }

// End is the time of the recording's last event.
func (r *Recorded) End() time.Duration { return time.Duration(r.rep.EndTime()) }

// At returns the figures at run time t: each loop's counters, state and
// thread id, and each group's size and chooser, as the replay's frame at
// t shows them. A moment at the scenario's duration is the run's end, its
// shutdown included: the recording's last event.
func (r *Recorded) At(t time.Duration) scenarios.Resolver {
	if r.sc != nil && t >= r.sc.Duration {
		t = r.End()
	}
	return frameValues(r.frameAt(t, 0, model.Filter{}))
}

// frameAt is the frame at run time t, with the latest logs log lines
// that match filter.
func (r *Recorded) frameAt(t time.Duration, logs int, filter model.Filter) *model.Frame {
	r.rep.Seek(r.rep.PosAtTime(int64(t))) // moments come in any order
	q := model.Query{Focus: -1, Log: logs, Filter: filter}
	m := moment{snapshot: r.rep.Snapshot, set: headerConfig(r.hdr.Config), sc: r.sc, now: t}
	fr, _, _ := m.frame(q)
	return fr
}

// Log returns the latest n lines of the log at run time t that match
// filter (the log pane's filter: kind:timer_due loop:worker-0), oldest
// first, as the log pane words them.
func (r *Recorded) Log(t time.Duration, filter string, n int) []string {
	lines := r.frameAt(t, n, model.ParseFilter(filter)).Log
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, model.Clock(l.Event.Time)+"  "+l.Loop+"  "+model.Describe(&l.Event))
	}
	return out
}
