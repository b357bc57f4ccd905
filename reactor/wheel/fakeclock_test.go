package wheel

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock the test advances by hand. The wheel thread's Sleep
// blocks until Advance moves time past its wake-up point, so each tick runs
// exactly when the test says.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	sleepy *sleeper // the wheel thread's pending sleep, if any
}

type sleeper struct {
	until time.Duration
	ch    chan struct{}
}

func newFakeClock(start time.Duration) *fakeClock { return &fakeClock{now: start} }

func (c *fakeClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(d time.Duration, wake <-chan struct{}) {
	s := &sleeper{ch: make(chan struct{})}
	c.mu.Lock()
	s.until = c.now + d
	c.sleepy = s
	c.mu.Unlock()
	select {
	case <-s.ch:
	case <-wake:
		c.mu.Lock()
		if c.sleepy == s {
			c.sleepy = nil
		}
		c.mu.Unlock()
	}
}

// Advance moves time forward and wakes the sleeper if it is due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += d
	if c.sleepy != nil && c.now >= c.sleepy.until {
		close(c.sleepy.ch)
		c.sleepy = nil
	}
}

// idle reports whether the wheel thread sleeps with nothing due: every tick
// up to now has been processed.
func (c *fakeClock) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sleepy != nil && c.sleepy.until > c.now
}

// waitIdle blocks until the wheel thread has caught up with the clock. The
// bound only stops a broken wheel from hanging the test; it asserts nothing
// about speed.
func (c *fakeClock) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !c.idle() {
		if time.Now().After(deadline) {
			t.Fatal("wheel thread never went back to sleep")
		}
		runtime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
}

// ticks advances the clock n ticks, one at a time, letting the wheel
// process each before the next.
func (c *fakeClock) ticks(t *testing.T, n int, tick time.Duration) {
	t.Helper()
	c.waitIdle(t)
	for range n {
		c.Advance(tick)
		c.waitIdle(t)
	}
}
