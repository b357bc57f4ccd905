package model

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// One recorded trace, two judges: the live step gate stopped a real loop on
// it, and a replay of the same trace searches it for breakpoints. Both apply
// counters.Breakpoints, so the replay must find each stop, for the same
// reason, between the previous stop and the gate's pause event. Every
// action is taken while the loop is paused, so each stop has one cause.
func TestGateAndReplayStopOnTheSameEvents(t *testing.T) {
	leaktest.Check(t)
	coll, rec := newRecorder(t, 1<<14)
	l, err := reactor.NewEventLoop("worker-0", "worker", reactor.Config{Collector: coll, RebuildThreshold: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()

	bp := counters.Breakpoints{Rebuild: false, Premature: true, DeadlineHit: true, Wakeup: true, TaskPanic: true, QueueAbove: 3}
	var live []string
	stop := func() {
		t.Helper()
		for i := 0; ; i++ {
			g := l.GateStatus()
			if g.Paused && g.Waiting {
				break
			}
			if i == 2000 {
				t.Fatalf("no stop: %+v %v", g, live)
			}
			time.Sleep(time.Millisecond)
		}
		live = append(live, l.GateStatus().Reason)
	}
	noop := func() {}
	started := make(chan struct{})
	_ = l.Execute(func() { close(started) })
	<-started
	l.Pause("start")
	_ = l.Execute(noop)
	stop()
	live = live[:0]
	l.SetBreakpoints(bp)
	// The replay starts here too. The loop is parked and every submission
	// so far has returned, so a flush delivers every event from before
	// the breakpoints were set (an external wakeup can be stamped after
	// the pause event although its count was in before).
	coll.Settle()
	start := rec.Len()

	// Spurious wakeups: premature returns, each a stop, up to the rebuild.
	// The injection is a task submitted from here; if its wakeup was
	// written (not coalesced), that is a stop first.
	before := l.Stats().WakeupsWritten
	_ = l.InjectSpuriousWakeups()
	if l.Stats().WakeupsWritten > before {
		l.Resume()
		stop()
	}
	for i := 0; l.Stats().Rebuilds == 0; i++ {
		if i == 20 {
			t.Fatalf("no rebuild after %d stops: %v", i, live)
		}
		l.Resume()
		stop()
	}
	// A task panic. LazyExecute writes no wakeup: one cause, one stop.
	_ = l.LazyExecute("boom", func() { panic("boom") })
	l.Resume()
	stop()
	// The queue grows past 3 while the loop stands still.
	for range 5 {
		_ = l.LazyExecute("queued", noop)
	}
	l.Resume()
	stop()
	l.SetBreakpoints(counters.Breakpoints{})
	ran := l.Stats().TasksRun
	l.Resume()
	leaktest.WaitFor(t, "the queued tasks", func() bool { return l.Stats().TasksRun >= ran+5 })
	coll.Settle()

	events := rec.Events()
	var pauses []int // event index of each breakpoint pause
	for i, e := range events[start:] {
		if e.Kind == trace.KindPause {
			pauses = append(pauses, start+i)
		}
	}
	if len(pauses) != len(live) {
		t.Fatalf("trace has %d breakpoint pauses (start at %d), the gate stopped %d times: %v", len(pauses), start, len(live), live)
	}
	for _, want := range []string{counters.ReasonPremature, counters.ReasonTaskPanic, counters.ReasonQueueAbove} {
		if !strings.Contains(strings.Join(live, "|"), want) {
			t.Errorf("the gate never stopped with %q: %v", want, live)
		}
	}

	r := NewReplay(coll.Loops(), events, 0)
	r.Seek(start)
	prev := start - 1
	for i, p := range pauses {
		pos, reason, ok := r.FindBreak(true, bp)
		if !ok || reason != live[i] || pos-1 <= prev || pos-1 >= p {
			t.Fatalf("stop %d: the gate stopped for %q at event %d (previous stop at %d); the replay found %q at %d (%v)",
				i, live[i], p, prev, reason, pos-1, ok)
		}
		r.Seek(pos)
		prev = p
	}
	if pos, reason, ok := r.FindBreak(true, bp); ok {
		t.Errorf("the replay stops once more, for %q at event %d, where the gate did not", reason, pos-1)
	}
}

// The three places where a replay used to stop and the live gate did not:
// the loop's own wakeup, a channel exception, and every event while the
// queue stays above the threshold. Now a replay stops where the gate would:
// on the written wakeup from another thread, the panic, and the crossing.
func TestReplayBreaksAreTheGatesRule(t *testing.T) {
	events := []trace.Event{
		ev(1, 1, trace.KindWakeup, func(e *trace.Event) { e.Flag, e.Str = true, "worker-0" }), // own wakeup
		ev(1, 2, trace.KindWakeup, func(e *trace.Event) { e.Flag, e.Str = true, "external" }), // 2: stop
		ev(1, 3, trace.KindException, func(e *trace.Event) { e.Str = "connection reset" }),
		ev(1, 4, trace.KindTaskPanic, func(e *trace.Event) { e.A = 9 }), // 4: stop
		ev(1, 5, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B = 10, 3 }),
		ev(1, 6, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B = 11, 4 }), // 6: stop, the crossing
		ev(1, 7, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B = 12, 5 }),
		ev(1, 8, trace.KindTasksBegin, func(e *trace.Event) { e.A = 5 }),
		ev(1, 9, trace.KindTasksEnd, func(e *trace.Event) { e.C = 0 }),
		ev(1, 10, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B = 13, 4 }), // 10: stop, crossing again
	}
	r := NewReplay(testLoops, events, 0)
	bp := Breaks{Wakeup: true, TaskPanic: true, QueueAbove: 3}
	var got []int
	for {
		pos, _, ok := r.FindBreak(true, bp)
		if !ok {
			break
		}
		got = append(got, pos)
		r.Seek(pos)
	}
	if want := []int{2, 4, 6, 10}; !reflect.DeepEqual(got, want) {
		t.Fatalf("forward stops %v, want %v", got, want)
	}
	if all := r.BreakPositions(bp, 10); !reflect.DeepEqual(all, got) {
		t.Errorf("BreakPositions %v, want the stops %v", all, got)
	}
	if two := r.BreakPositions(bp, 2); !reflect.DeepEqual(two, got[:2]) {
		t.Errorf("BreakPositions limited to 2: %v", two)
	}
	var back []int
	for {
		pos, _, ok := r.FindBreak(false, bp)
		if !ok {
			break
		}
		back = append(back, pos)
		r.Seek(pos)
	}
	if want := []int{6, 4, 2}; !reflect.DeepEqual(back, want) {
		t.Fatalf("backward stops %v, want %v", back, want)
	}
}

// A backward search walks back one checkpoint interval at a time.
func TestReplayBreaksBackwardAcrossCheckpoints(t *testing.T) {
	events := make([]trace.Event, 3*minCheckpointEvery)
	hits := []int{100, minCheckpointEvery + 7, 2*minCheckpointEvery + 9}
	for i := range events {
		events[i] = ev(1, int64(i), trace.KindSelectEnd, nil)
	}
	for _, i := range hits {
		events[i].Flag = true
	}
	r := NewReplay(testLoops, events, 0)
	r.Seek(len(events))
	for k := len(hits) - 1; k >= 0; k-- {
		pos, reason, ok := r.FindBreak(false, Breaks{Premature: true})
		if !ok || pos != hits[k]+1 || reason == "" {
			t.Fatalf("backward from %d: %d %q %v, want %d", r.Pos(), pos, reason, ok, hits[k]+1)
		}
		r.Seek(pos)
	}
	if pos, _, ok := r.FindBreak(false, Breaks{Premature: true}); ok {
		t.Fatalf("a stop before the first: %d", pos)
	}
}
