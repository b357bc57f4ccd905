package reactor

import (
	"strings"
	"testing"
)

// A rebuild breakpoint pauses the loop at its next phase boundary and says
// why; Resume lets it go on.
func TestBreakpointOnRebuildPausesTheLoop(t *testing.T) {
	leakCheck(t)
	s := startServer(t, 1, 1, Config{RebuildThreshold: 32}, echoInit)
	c := dial(t, s.addr())
	echoOnce(t, c, "x")
	w := s.worker.Loops()[0]
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

// Stepping: a paused loop passes exactly one boundary per Step.
func TestStepAdvancesOnePhase(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{})
	onLoop(t, l, func() {})
	l.Pause("test")
	_ = l.Execute(func() {}) // wake it so it reaches a gate
	waitFor(t, "the loop to park", func() bool { return l.GateStatus().Waiting })
	for i := 0; i < 6; i++ {
		before := l.GateStatus().Phase
		l.Step()
		want := (before + 1) % 4
		waitFor(t, "the next phase", func() bool {
			g := l.GateStatus()
			return g.Waiting && g.Phase == want
		})
	}
	l.Resume()
}
