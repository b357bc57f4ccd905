package wheel

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
)

const (
	testTick  = 10 * time.Millisecond
	testSlots = 8
	// testOrigin starts the fake clock away from zero, so every deadline
	// has to be measured from the wheel's start time to come out right.
	testOrigin = time.Hour
)

// checkGoroutines is the shared leak check.
var checkGoroutines = leaktest.Check

// newTestTimer returns a timer of testSlots slots of testTick driven by a
// fake clock, stopped when the test ends.
func newTestTimer(t *testing.T, cfg Config, opts ...Option) (*Timer, *fakeClock) {
	t.Helper()
	checkGoroutines(t)
	clk := newFakeClock(testOrigin)
	if cfg.Tick == 0 {
		cfg.Tick = testTick
	}
	if cfg.TicksPerWheel == 0 {
		cfg.TicksPerWheel = testSlots
	}
	tm, err := New(cfg, append([]Option{WithClock(clk)}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if _, err := tm.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return tm, clk
}

// flag records that a task ran; the task runs on the wheel thread.
type flag struct{ n atomic.Int32 }

func (f *flag) task() func() { return func() { f.n.Add(1) } }
func (f *flag) runs() int    { return int(f.n.Load()) }

func mustTimeout(t *testing.T, tm *Timer, name string, delay time.Duration, task func()) *Timeout {
	t.Helper()
	to, err := tm.NewTimeout(name, delay, task)
	if err != nil {
		t.Fatalf("NewTimeout(%s, %v): %v", name, delay, err)
	}
	return to
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
