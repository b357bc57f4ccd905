//go:build linux

package wheel

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// TestRealClock runs the wheel on the monotonic clock. A timeout can fire
// late on a busy machine but never before its delay; the upper bound only
// catches a wheel that does not fire at all.
func TestRealClock(t *testing.T) {
	checkGoroutines(t)
	tm, err := New(Config{Tick: 5 * time.Millisecond, TicksPerWheel: 16, Name: "wheel-real"})
	if err != nil {
		t.Fatal(err)
	}
	const delay = 30 * time.Millisecond
	fired := make(chan time.Duration, 1)
	start := time.Now()
	mustTimeout(t, tm, "real", delay, func() { fired <- time.Since(start) })
	cancelled := mustTimeout(t, tm, "never", delay, func() { t.Error("cancelled task ran") })
	cancelled.Cancel()

	select {
	case took := <-fired:
		if took < delay {
			t.Fatalf("fired after %v, before its %v delay", took, delay)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("timeout never fired")
	}
	// The wheel thread is locked to its goroutine, so no other goroutine,
	// this one included, can be running on it.
	if tid := tm.TID(); tid <= 0 || tid == unix.Gettid() {
		t.Fatalf("TID = %d, test thread %d", tid, unix.Gettid())
	}
	left, err := tm.Stop()
	if err != nil || len(left) != 0 {
		t.Fatalf("Stop = %d left, %v", len(left), err)
	}
	// A 30 ms deadline lies in tick 6 or later, which is processed only
	// after ticks 0 to 5.
	if tm.Stats().Ticks < 6 {
		t.Fatalf("only %d ticks before a %v delay fired with 5 ms ticks", tm.Stats().Ticks, delay)
	}
}

// TestTraceClockIsTheWheelClock checks that with WithTrace and no WithClock
// the wheel measures time on the trace clock, so wheel_expire's deadline_ns
// is comparable with event times.
func TestTraceClockIsTheWheelClock(t *testing.T) {
	checkGoroutines(t)
	ring := trace.NewRing(0, 256)
	var sw trace.Switch
	sw.Set(true)
	clock := trace.NewClock()
	tm, err := New(Config{Tick: 2 * time.Millisecond, TicksPerWheel: 8}, WithTrace(ring, &sw, clock))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	before := clock.Now()
	mustTimeout(t, tm, "traced", 10*time.Millisecond, func() { close(done) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("timeout never fired")
	}
	if _, err := tm.Stop(); err != nil {
		t.Fatal(err)
	}
	ex := eventsOf(ring, trace.KindWheelExpire)
	if len(ex) != 1 {
		t.Fatalf("%d wheel_expire events", len(ex))
	}
	if d := ex[0].D; d < before+int64(10*time.Millisecond) || ex[0].Time < d {
		t.Fatalf("deadline_ns %d: scheduled at %d + 10 ms, event at %d", d, before, ex[0].Time)
	}
}
