package reactor

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	ctr "github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// A rebuild breakpoint pauses the loop at its next phase boundary and says
// why; Resume lets it go on.
func TestBreakpointOnRebuildPausesTheLoop(t *testing.T) {
	leakCheck(t)
	w, c := echoingWorker(t, Config{RebuildThreshold: 32})
	w.SetBreakpoints(Breakpoints{Rebuild: true})
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the breakpoint to stop the loop", func() bool {
		g := w.GateStatus()
		return g.Paused && g.Waiting
	})
	if g := w.GateStatus(); !strings.Contains(g.Reason, "rebuilt") || w.Stats().Rebuilds != 1 {
		t.Fatalf("paused with reason %q after %d rebuilds", g.Reason, w.Stats().Rebuilds)
	}
	w.SetBreakpoints(Breakpoints{})
	w.Resume()
	echoOnce(t, c, "after the breakpoint")
}

// parkedLoop returns a started loop paused at a phase gate.
func parkedLoop(t *testing.T) *EventLoop {
	t.Helper()
	l := newLoop(t, Config{})
	onLoop(t, l, func() {})
	l.Pause("test")
	_ = l.Execute(func() {}) // wake it so it reaches a gate
	waitFor(t, "the loop to park", func() bool { return l.GateStatus().Waiting })
	return l
}

// stepOnce steps a paused loop and waits until it parks at the next phase.
func stepOnce(t *testing.T, l *EventLoop) {
	t.Helper()
	want := (l.GateStatus().Phase + 1) % 4
	l.Step()
	waitFor(t, "the next phase", func() bool {
		g := l.GateStatus()
		return g.Waiting && g.Phase == want
	})
}

// Stepping: a paused loop passes exactly one boundary per Step.
func TestStepAdvancesOnePhase(t *testing.T) {
	leakCheck(t)
	l := parkedLoop(t)
	for i := 0; i < 6; i++ {
		stepOnce(t, l)
	}
	l.Resume()
}

// The queue breakpoint fires when the queue grows past its threshold, not
// at every boundary while it stays there: Resume runs on, it is no Step.
func TestQueueBreakpointFiresOnCrossingOnly(t *testing.T) {
	leakCheck(t)
	l := parkedLoop(t)
	for l.GateStatus().Phase != trace.PhaseSelect {
		stepOnce(t, l)
	}
	l.SetBreakpoints(Breakpoints{QueueAbove: 5})
	var ran atomic.Int64
	for i := 0; i < 10; i++ {
		_ = l.Execute(func() { ran.Add(1) })
	}
	l.Resume()
	waitFor(t, "the breakpoint", func() bool {
		g := l.GateStatus()
		return g.Waiting && g.Phase == trace.PhaseIO
	})
	if g := l.GateStatus(); g.Break != ctr.BreakQueueAbove || g.Reason != ctr.ReasonQueueAbove {
		t.Fatalf("paused at io by %v with reason %q; want the queue breakpoint", g.Break, g.Reason)
	}
	l.Resume()
	waitFor(t, "the tasks to run or the loop to pause again", func() bool {
		g := l.GateStatus()
		return ran.Load() == 10 || g.Waiting && g.Phase != trace.PhaseIO
	})
	if g := l.GateStatus(); ran.Load() != 10 {
		t.Fatalf("paused again at %v (%q) with the queue still deep", g.Phase, g.Reason)
	}
	if g := l.GateStatus(); g.Break != ctr.NoBreak {
		t.Fatalf("resumed, yet the gate still reports breakpoint %v", g.Break)
	}
}

// The premature breakpoint stops at the first premature return, inside the
// select phase, with selectCnt at 1, not when the phase ends hundreds of
// returns later or after the rebuild.
func TestPrematureBreakpointStopsAtTheFirstReturn(t *testing.T) {
	leakCheck(t)
	w, c := echoingWorker(t, Config{RebuildThreshold: 32})
	w.SetBreakpoints(Breakpoints{Premature: true})
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the breakpoint to stop the loop", func() bool {
		g := w.GateStatus()
		return g.Paused && g.Waiting
	})
	s, g := w.Stats(), w.GateStatus()
	if !strings.Contains(g.Reason, "premature") || g.Phase != trace.PhaseSelect ||
		s.Premature != 1 || s.SelectCnt != 1 || s.Rebuilds != 0 {
		t.Fatalf("paused at %v (%q) after %d premature returns, selectCnt %d, %d rebuilds",
			g.Phase, g.Reason, s.Premature, s.SelectCnt, s.Rebuilds)
	}
	w.SetBreakpoints(Breakpoints{})
	w.Resume()
	waitFor(t, "the rebuild", func() bool { return w.Stats().Rebuilds == 1 })
	echoOnce(t, c, "after the breakpoint")
}

// Judging breakpoints runs on the loop thread at every boundary: it must
// not allocate.
func TestBreakReasonDoesNotAllocate(t *testing.T) {
	l := newLoop(t, Config{})
	l.SetBreakpoints(Breakpoints{Rebuild: true, Premature: true, DeadlineHit: true, Wakeup: true, TaskPanic: true, QueueAbove: 1})
	g := &l.gate
	if n := testing.AllocsPerRun(100, func() {
		g.mu.Lock()
		_ = l.breakReason()
		g.mu.Unlock()
	}); n != 0 {
		t.Fatalf("breakReason allocates %.0f times", n)
	}
}

// PauseRun, with the run clock held, interrupts a loop asleep in select:
// it parks without waiting for its timeout, which the held clock would
// read as a premature return, and without a wakeup written.
func TestPauseRunInterruptsASleepingSelect(t *testing.T) {
	leakCheck(t)
	c, _ := newTraced(t)
	l := newLoop(t, Config{Collector: c})
	onLoop(t, l, func() {})
	// Asleep with nothing pending: no wakeup flag set and no eventfd
	// write unread, so only the interrupt can end this select early.
	waitFor(t, "the loop asleep in select", func() bool {
		return l.split.blockedAt.Load() != 0 && !l.wakenUp.Load() && !l.woken.Load()
	})
	before := l.Stats()
	c.Clock().Hold(true)
	l.PauseRun("test")
	waitFor(t, "the loop to park", func() bool { return l.GateStatus().Waiting })
	after := l.Stats()
	if after.Premature != before.Premature {
		t.Errorf("the pause counted %d premature returns", after.Premature-before.Premature)
	}
	if after.WakeupsWritten != before.WakeupsWritten || after.SelfWakeups != before.SelfWakeups {
		t.Errorf("the pause wrote a wakeup: %+v then %+v", before, after)
	}
	c.Clock().Hold(false)
	l.Resume()
}
