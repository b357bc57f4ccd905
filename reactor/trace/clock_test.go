package trace

import (
	"testing"
	"time"
)

// A held clock stands exactly still and, let go, runs on from where it
// stood: the time it was held is in no later reading.
func TestClockHoldTakesTheHoldOut(t *testing.T) {
	c := NewClock()
	if c.Held() != nil {
		t.Fatal("a new clock is held")
	}
	c.Hold(true)
	held := c.Held()
	if held == nil {
		t.Fatal("Hold(true) did not hold the clock")
	}
	at := c.Now()
	wall := time.Now()
	for time.Since(wall) < 2*time.Millisecond {
		if got := c.Now(); got != at {
			t.Fatalf("a held clock moved from %d to %d", at, got)
		}
	}
	c.Hold(true) // a second hold keeps the first
	if c.Now() != at {
		t.Fatal("a second hold moved the clock")
	}
	rel := time.Now()
	c.Hold(false)
	select {
	case <-held:
	default:
		t.Fatal("the release did not close the hold's channel")
	}
	// The clock moves no more than the wall since the release, however
	// late this goroutine ran: the 2 ms held are taken out.
	after := c.Now()
	if since := time.Since(rel); after < at || after-at > int64(since) {
		t.Errorf("the clock went from %v to %v, %v after the release: the hold is not taken out", time.Duration(at), time.Duration(after), since)
	}
	if c.Held() != nil {
		t.Error("a released clock reports a hold")
	}
	for range 1000 {
		if n := c.Now(); n < after {
			t.Fatalf("the clock stepped back from %d to %d", after, n)
		}
	}
}
