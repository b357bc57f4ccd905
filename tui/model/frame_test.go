package model

import (
	"reflect"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// sampleOf reads real loops as a run's sampler does: each loop's own
// counters, its gate and its ioRatio.
func sampleOf(loops []*reactor.EventLoop, at int64) *sample.Sample {
	s := &sample.Sample{Time: at, Reason: sample.Step}
	for i, l := range loops {
		g := l.GateStatus()
		s.Loops = append(s.Loops, sample.Loop{Index: i, TID: int64(l.TID()), State: l.State(), Stats: l.Stats(),
			IORatio: l.IORatio(), Gate: sample.Gate{Paused: g.Paused, Waiting: g.Waiting, Phase: g.Phase, Reason: g.Reason, Break: g.Break}})
	}
	return s
}

// One stream, two readers: the live model folding the events and the
// sample as the collector delivers them, and a replay of the same stream,
// give equal frames, the counters no event records included. (tui's test
// of the same name compares whole scenario runs.)
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
	coll.Settle()
	events := rec.Events()
	table := coll.Loops()
	smp := sampleOf(loops, coll.Clock().Now())

	live := New(table)
	live.Consume(events)
	live.ConsumeRecord(smp)
	rep := NewReplay(table, events, 0)
	rep.AddSample(len(events), smp)
	rep.Seek(rep.Len())
	set := Settings{IORatio: 50, Threshold: 512}
	for _, focus := range []int{0, 1} {
		q := Query{Focus: focus, Head: 8, Log: 64}
		lf := NewFrame(live.Snapshot(q), set)
		rf := NewFrame(rep.Snapshot(q), set)
		if lf.Recorded || rf.Recorded {
			t.Errorf("Recorded: live %v, replay %v; both have a sample", lf.Recorded, rf.Recorded)
		}
		if !reflect.DeepEqual(lf, rf) {
			t.Fatalf("focus %d: live frame\n%+v\nreplay frame\n%+v", focus, lf.Rows, rf.Rows)
		}
	}
	r, ok := NewFrame(rep.Snapshot(Query{Focus: -1}), set).Row(0)
	if !ok || r.Pause != PausePaused || (r.PauseReason != "test" && r.PauseReason != "step") || r.TasksRun < 20 || r.TaskPanics != 1 || r.TID == 0 {
		t.Fatalf("the replay's frame does not show the pause: %+v", r)
	}
	// The system calls are in no event: the sample brings them.
	if r.EpollCtl == 0 || r.EpollCtl != smp.Loops[0].Stats.EpollCtl {
		t.Errorf("replay frame epoll_ctl %d, the engine's %d", r.EpollCtl, smp.Loops[0].Stats.EpollCtl)
	}
}
