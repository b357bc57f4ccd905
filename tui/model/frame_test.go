package model

import (
	"reflect"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// engineProbe reads real loops as a live screen's probe does: each
// started loop's own counters, its gate and its ioRatio.
type engineProbe []*reactor.EventLoop

func (p engineProbe) Loop(i int) (LoopProbe, bool) {
	if i >= len(p) {
		return LoopProbe{}, false
	}
	l, g := p[i], p[i].GateStatus()
	return LoopProbe{Started: l.TID() != 0, Stats: l.Stats(), IORatio: l.IORatio(),
		Gate: Gate{Paused: g.Paused, Waiting: g.Waiting, Phase: g.Phase, Reason: g.Reason, Break: g.Break}}, true
}

// The loops have no wheel, and no clients.
func (p engineProbe) Wheel() (WheelView, bool) { return WheelView{}, false }
func (p engineProbe) Clients() Clients         { return Clients{} }

// One trace, two sources: the live model with a probe of the engine's own
// counters and gates, and a replay of the trace without one, give equal
// frames when nothing was dropped. (tui's test of the same name compares
// a whole scenario run.)
func TestLiveAndReplayFramesAreEqual(t *testing.T) {
	leaktest.Check(t)
	coll, rec := newRecorder(t, 1<<14)
	var loops []*reactor.EventLoop
	for _, name := range []string{"worker-0", "worker-1"} {
		l, err := reactor.NewEventLoop(name, "worker", reactor.Config{Collector: coll})
		if err != nil {
			t.Fatal(err)
		}
		loops = append(loops, l)
	}
	defer func() {
		for _, l := range loops {
			l.Resume()
			l.ShutdownGracefully(0, time.Second)
			<-l.Terminated()
		}
	}()
	w := loops[0]
	for i := range 20 {
		_ = w.Execute(func() {})
		if i%5 == 0 {
			_, _ = w.Schedule("tick", time.Millisecond, func() {})
		}
	}
	_ = w.Execute(func() { panic("boom") })
	leaktest.WaitFor(t, "the tasks and timers", func() bool {
		s := w.Stats()
		return s.TasksRun+s.TaskPanics >= 25
	})
	w.Pause("test")
	_ = w.Execute(func() {})
	leaktest.WaitFor(t, "the loop to park", func() bool { return w.GateStatus().Waiting })
	// Parked at the tasks gate, the iteration's io_begin is out. At the
	// select or io gate the engine has counted an iteration whose events
	// are still to come, and the fold of the trace shows one fewer.
	for g := w.GateStatus(); g.Phase != trace.PhaseTasks; g = w.GateStatus() {
		w.Step()
		leaktest.WaitFor(t, "the step", func() bool { n := w.GateStatus(); return n.Waiting && n.Phase != g.Phase })
	}
	coll.Flush()
	events := rec.Events()
	table := coll.Loops()

	live := New(table)
	live.Consume(events)
	rep := NewReplay(table, events, 0)
	rep.Seek(rep.Len())
	set := Settings{IORatio: 50, Threshold: 512}
	for _, focus := range []int{0, 1} {
		q := Query{Focus: focus, Head: 8, Log: 64}
		lf := NewFrame(live.Snapshot(q), engineProbe(loops), set)
		rf := NewFrame(rep.Snapshot(q), nil, set)
		// The engine's live counters (its system calls: the epoll_ctl
		// that registered its eventfd, its reads) are in no event; a
		// replay shows them as zero.
		for i := range lf.Rows {
			lf.Rows[i].Stats = lf.Rows[i].Stats.Replayable()
		}
		if !lf.Recorded && rf.Recorded {
			lf.Recorded = true // and says so, which is the one other difference
		} else {
			t.Errorf("Recorded: live %v, replay %v", lf.Recorded, rf.Recorded)
		}
		if !reflect.DeepEqual(lf, rf) {
			t.Fatalf("focus %d: live frame\n%+v\nreplay frame\n%+v", focus, lf.Rows, rf.Rows)
		}
	}
	if r, ok := NewFrame(rep.Snapshot(Query{Focus: -1}), nil, set).Row(0); !ok || r.Pause != PausePaused || (r.PauseReason != "test" && r.PauseReason != "step") || r.TasksRun < 20 || r.TaskPanics != 1 || r.TID == 0 {
		t.Fatalf("the replay's frame does not show the pause: %+v", r)
	}
}
