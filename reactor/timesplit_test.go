package reactor

import (
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
