package reactor

import (
	"sync/atomic"
	"testing"
	"time"
)

// A loop that waits for a timer spends that wait blocked in select, and
// the three shares never add up to more than the loop's life.
func TestTimeSplitCountsBlockedSelect(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{})
	began := time.Now()
	onLoop(t, l, func() {})
	fired := make(chan struct{})
	if _, err := l.Schedule("wake", 30*time.Millisecond, func() { close(fired) }); err != nil {
		t.Fatal(err)
	}
	<-fired
	onLoop(t, l, func() {})
	life := time.Since(began)
	s := l.TimeSplit()
	if s.SelectNanos < int64(25*time.Millisecond) {
		t.Fatalf("select_ns %v, want at least the 25ms the timer kept the loop waiting", time.Duration(s.SelectNanos))
	}
	if sum := s.SelectNanos + s.IONanos + s.TaskNanos; sum > int64(life) {
		t.Fatalf("select+io+tasks %v > the loop's life %v", time.Duration(sum), life)
	}
}

// A loop asleep in select counts its sleep so far, not only when it
// wakes: the time is read against the loop's own clock, here a double
// that jumps 5s while the loop is blocked.
func TestTimeSplitCountsSelectInProgress(t *testing.T) {
	leakCheck(t)
	var clock atomic.Int64
	clock.Store(int64(time.Hour))
	l := newLoop(t, Config{Now: clock.Load})
	onLoop(t, l, func() {})
	// A leftover wakeup can end the first blocking select at once; a
	// measurement counts only when one select spanned it, which the
	// loop's select count tells.
	for try := 0; ; try++ {
		waitFor(t, "the loop to block in select", func() bool { return l.split.blockedAt.Load() != 0 })
		selects := l.Stats().Selects
		before := l.TimeSplit().SelectNanos
		clock.Add(int64(5 * time.Second))
		got := l.TimeSplit().SelectNanos - before
		if l.Stats().Selects != selects || l.split.blockedAt.Load() == 0 {
			if try == 10 {
				t.Fatal("the loop never stayed blocked for a measurement")
			}
			continue
		}
		if got < int64(5*time.Second) {
			t.Fatalf("select time grew by %v while the clock moved 5s with the loop blocked", time.Duration(got))
		}
		return
	}
}
