//go:build linux && !nolive

package reactor

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// The quiet period is counted on the run clock. While the clock is held
// (a learner paused the whole run) a shutting-down loop, which never parks
// at its gate, waits out the hold instead of looking again and again at a
// clock that has not moved; let go, it finishes its quiet period and
// terminates.
func TestQuietPeriodWaitsOutAHeldClock(t *testing.T) {
	leakCheck(t)
	coll, _ := newTraced(t)
	l := newLoop(t, Config{Collector: coll})
	onLoop(t, l, func() {}) // the thread runs, and has just run a task
	clock := coll.Clock()
	clock.Hold(true)
	l.ShutdownGracefully(50*time.Millisecond, 10*time.Second)
	waitFor(t, "SHUTTING_DOWN", func() bool { return l.State() == trace.StateShuttingDown })
	time.Sleep(150 * time.Millisecond) // past the 100 ms between two looks
	before := l.Stats().Iterations
	time.Sleep(300 * time.Millisecond)
	if after := l.Stats().Iterations; after-before > 1 {
		t.Errorf("%d iterations while the clock was held, want at most 1", after-before)
	}
	if l.State() >= trace.StateShutdown {
		t.Fatalf("%v while the clock was held: the quiet period passed on a clock that stood still", l.State())
	}
	clock.Hold(false)
	select {
	case <-l.Terminated():
	case <-time.After(5 * time.Second):
		t.Fatal("not terminated after the clock was let go")
	}
}
