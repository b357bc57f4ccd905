package tui

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
)

// The runner's verbs are the run control the live screen's keys ask for;
// these tests drive them on a fake run with no screen.

// startFakeRunner starts a runner on one fake run and closes it when the
// test ends.
func startFakeRunner(t *testing.T) (*runner, *fakeSession) {
	t.Helper()
	var f *fakeSession
	r, err := startRunner(func(sink trace.Sink) (Session, error) {
		f = newFakeSession(t, "tour", scenarios.ModelMulti, sink)
		return f, nil
	}, Options{StopTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("startRunner: %v", err)
	}
	t.Cleanup(func() { r.close() })
	return r, f
}

func gates(f *fakeSession) (paused int, reasons map[string]int) {
	reasons = map[string]int{}
	for _, l := range f.Loops() {
		if g := l.GateStatus(); g.Paused {
			paused++
			reasons[g.Reason]++
		}
	}
	return paused, reasons
}

func TestRunnerPauseAllPausesAndResumes(t *testing.T) {
	checkGoroutines(t)
	r, f := startFakeRunner(t)
	r.pauseAll()
	if n, why := gates(f); n != len(f.loops) || why[userPause] != n {
		t.Errorf("after pauseAll: %d of %d loops paused, reasons %v", n, len(f.loops), why)
	}
	if !f.holding.Load() {
		t.Error("pauseAll paused the loops but not the run clock")
	}
	r.pauseAll()
	if n, _ := gates(f); n != 0 {
		t.Errorf("after the second pauseAll %d loops still paused", n)
	}
	if f.holding.Load() {
		t.Error("the second pauseAll let the loops go but held the run clock")
	}
}

// A loop a breakpoint stopped makes the run paused: one press lets every
// loop go rather than pausing the others.
func TestRunnerPauseAllAfterABreakpointResumes(t *testing.T) {
	checkGoroutines(t)
	r, f := startFakeRunner(t)
	f.loops[2].Pause("breakpoint")
	r.pauseAll()
	if n, why := gates(f); n != 0 {
		t.Errorf("pauseAll with one loop stopped left %d paused (%v), want every loop running", n, why)
	}
	if f.holding.Load() {
		t.Error("pauseAll with one loop stopped held the run clock")
	}
}

// Once every loop is shutting down none can park, but the run pauses: its
// clock is held, and a second press lets it go.
func TestRunnerPauseAllWhileShuttingDownHoldsTheClock(t *testing.T) {
	checkGoroutines(t)
	r, f := startFakeRunner(t)
	for _, l := range f.loops {
		l.ShutdownGracefully(0, time.Second)
		<-l.Terminated()
	}
	r.pauseAll()
	if !f.holding.Load() {
		t.Fatal("pauseAll did not hold the run clock")
	}
	r.pauseAll()
	if f.holding.Load() {
		t.Fatal("the second pauseAll kept the run clock held")
	}
}

// A step key pauses a running loop; on a paused loop it steps through the
// run, which lets a held clock run for the step.
func TestRunnerStepOrPause(t *testing.T) {
	checkGoroutines(t)
	r, f := startFakeRunner(t)
	w0 := f.Loops()[1]
	r.stepOrPause(1, false)
	if g := w0.GateStatus(); !g.Paused || g.Reason != "step" {
		t.Errorf("a running loop after stepOrPause: %+v, want paused for the step", g)
	}
	if n := f.steps.Load(); n != 0 {
		t.Errorf("pausing a running loop took %d steps through the run", n)
	}
	if n, _ := gates(f); n != 1 {
		t.Errorf("stepOrPause of one loop paused %d", n)
	}
	r.stepOrPause(1, false)
	r.stepOrPause(1, true)
	if n := f.steps.Load(); n != 2 {
		t.Errorf("two steps of a paused loop took %d steps through the run, want 2", n)
	}
	if g := w0.GateStatus(); !g.Paused {
		t.Errorf("a stepped loop after its step: %+v, want parked again", g)
	}
	r.stepOrPause(-1, false)
	r.stepOrPause(len(f.loops), true)
	if n := f.steps.Load(); n != 2 {
		t.Errorf("steps of no loop reached the run: %d steps", n)
	}
}

func TestRunnerStepAll(t *testing.T) {
	checkGoroutines(t)
	r, f := startFakeRunner(t)
	r.stepAll()
	if n, why := gates(f); n != len(f.loops) || why["step"] != n {
		t.Errorf("stepAll on a running run: %d of %d paused, reasons %v", n, len(f.loops), why)
	}
	r.stepAll()
	if n := f.steps.Load(); n != int64(len(f.loops)) {
		t.Errorf("stepAll on a paused run took %d steps, want one per loop (%d)", n, len(f.loops))
	}
}

func TestRunnerChangeSpeed(t *testing.T) {
	checkGoroutines(t)
	r, f := startFakeRunner(t)
	ms := time.Millisecond
	for _, c := range []struct {
		from   time.Duration
		faster bool
		want   time.Duration
	}{
		{0, false, ms},
		{ms, false, 5 * ms},
		{5 * ms, true, ms},
		{0, true, 0},                      // full speed is the fastest
		{time.Second, false, time.Second}, // and a second the slowest
		{3 * ms, true, ms},                // between two steps: the nearest that way
		{3 * ms, false, 5 * ms},
	} {
		r.setSlowMotion(c.from)
		r.changeSpeed(c.faster)
		if _, got := r.settings(); got != c.want {
			t.Errorf("changeSpeed(faster %v) from %v = %v, want %v", c.faster, c.from, got, c.want)
		}
		for _, l := range f.Loops() {
			if d := l.GateStatus().Delay; d != c.want {
				t.Errorf("changeSpeed from %v: %s delays %v, want %v", c.from, l.Name(), d, c.want)
			}
		}
	}
}

// With no run (a restart failed) the verbs do nothing.
func TestRunnerVerbsWithoutARun(t *testing.T) {
	r := &runner{}
	r.pauseAll()
	r.stepOrPause(0, false)
	r.stepAll()
	r.changeSpeed(false)
	if _, d := r.settings(); d != slowSteps[1] {
		t.Errorf("changeSpeed without a run kept %v, want %v for the next run", d, slowSteps[1])
	}
}
