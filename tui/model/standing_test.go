package model

import (
	"reflect"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// The state's pause column and the lane's parked stretch read one fold of
// the gate, each with its rule: the pause column takes the latest pause
// and clears at a resume or the loop's termination; the lane draws the
// stretch from the first pause on the run's clock to the resume, and a
// pause off the clock parks nothing. A replay draws the same.
func TestStandingPauseAndPark(t *testing.T) {
	pause := func(tus int64, p trace.Phase, why string) trace.Event {
		return evUS(1, tus, trace.KindPause, func(e *trace.Event) { e.A, e.Str = int64(p), why })
	}
	events := []trace.Event{
		evUS(1, 0, trace.KindSelectBegin, nil),
		pause(100, trace.PhaseIO, "step"),
		pause(150, trace.PhaseTasks, "breakpoint: wakeup written"),
		evUS(1, 200, trace.KindState, func(e *trace.Event) { e.B = int64(trace.StateTerminated) }),
		evUS(2, 0, trace.KindSelectBegin, nil),
		evUS(2, -1, trace.KindPause, func(e *trace.Event) { e.A, e.Str = int64(trace.PhaseEnd), "step" }),
	}
	q := Query{Focus: -1, Timeline: TimelineQuery{Cols: 10, Span: 1e6, End: 1e6, Now: 400e3}}
	m := New(testLoops)
	m.Consume(events)
	r := NewReplay(testLoops, events, 0)
	r.Seek(len(events))
	live, rep := m.Snapshot(q), r.Snapshot(q)
	type gate struct {
		paused bool
		phase  trace.Phase
		reason string
		parked int64 // µs
	}
	for _, c := range []struct {
		name string
		want gate
	}{
		// Terminated while parked: no longer paused, its last reason
		// kept, and drawn parked from the first pause up to now.
		{"worker-0", gate{false, trace.PhaseTasks, "breakpoint: wakeup written", 300}},
		// Told to pause before the run's clock: paused, parked nowhere.
		{"worker-1", gate{true, trace.PhaseEnd, "step", 0}},
	} {
		l := loopByName(t, live, c.name)
		got := gate{l.Paused, l.PausePhase, l.PauseReason, 0}
		for _, cell := range l.Lane.Cells {
			got.parked += cell.Parked / 1e3
		}
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
		rl := loopByName(t, rep, c.name)
		if rl.Paused != l.Paused || rl.PausePhase != l.PausePhase || rl.PauseReason != l.PauseReason ||
			!reflect.DeepEqual(rl.Lane, l.Lane) {
			t.Errorf("%s: replay %+v %+v\nlive %+v %+v", c.name, rl, rl.Lane, l, l.Lane)
		}
	}
	if live.Paused != 1 || rep.Paused != 1 {
		t.Errorf("paused loops: live %d, replay %d", live.Paused, rep.Paused)
	}
}
