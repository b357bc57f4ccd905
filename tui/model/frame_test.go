package model

import (
	"reflect"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// fakeProbe stands for a live run's loops: the counters a loop keeps (with
// nothing dropped, its events' fold) and its gate (the latest gate event).
type fakeProbe struct {
	loops []counters.Loop
	gates []Gate
}

func newFakeProbe(table []trace.LoopInfo, events []trace.Event) *fakeProbe {
	p := &fakeProbe{}
	for i := range events {
		e := &events[i]
		for int(e.Loop) >= len(p.loops) {
			p.loops = append(p.loops, counters.NewLoop())
			p.gates = append(p.gates, Gate{})
		}
		name := ""
		if int(e.Loop) < len(table) {
			name = table[e.Loop].Name
		}
		p.loops[e.Loop].Fold(e, name)
		switch e.Kind {
		case trace.KindPause:
			p.gates[e.Loop] = Gate{Paused: true, Waiting: true, Phase: trace.Phase(e.A), Reason: e.Str}
		case trace.KindResume:
			p.gates[e.Loop] = Gate{}
		}
	}
	return p
}

func (p *fakeProbe) Loop(i int) (LoopProbe, bool) {
	if i >= len(p.loops) {
		return LoopProbe{}, false
	}
	return LoopProbe{Started: p.loops[i].TID != 0, Stats: p.loops[i].Stats, Gate: p.gates[i], IORatio: 50}, true
}

// The recorded runs have no wheel, and their clients are not events.
func (p *fakeProbe) Wheel() (WheelView, bool) { return WheelView{}, false }
func (p *fakeProbe) Clients() Clients         { return Clients{} }

// One trace, two sources: the live model with a probe of the engine, and
// a replay without one, give equal frames when nothing was dropped.
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
		lf := NewFrame(live.Snapshot(q), newFakeProbe(table, events), set)
		rf := NewFrame(rep.Snapshot(q), nil, set)
		if !reflect.DeepEqual(lf, rf) {
			t.Fatalf("focus %d: live frame\n%+v\nreplay frame\n%+v", focus, lf.Rows, rf.Rows)
		}
	}
	if r, ok := NewFrame(rep.Snapshot(Query{Focus: -1}), nil, set).Row(0); !ok || r.Pause != PausePaused || r.PauseReason != "test" || r.TasksRun < 20 || r.TaskPanics != 1 || r.TID == 0 {
		t.Fatalf("the replay's frame does not show the pause: %+v", r)
	}
}
