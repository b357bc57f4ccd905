package sim

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/scenarios"
)

// With HoldWhilePaused the run clock stands still while a loop is paused
// at its gate, and runs on once it is resumed; without it, it never holds.
func TestRunHoldsItsClockWhilePaused(t *testing.T) {
	leaktest.Check(t)
	for _, hold := range []bool{true, false} {
		sc, err := scenarios.Load("single-reactor")
		if err != nil {
			t.Fatal(err)
		}
		sc.Duration = time.Minute
		r, err := New(sc, Options{HoldWhilePaused: hold})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Start(); err != nil {
			t.Fatal(err)
		}
		r.Loops()[0].Pause("test")
		r.holdWhilePaused()
		e1 := r.Elapsed()
		time.Sleep(5 * time.Millisecond)
		if held := r.Elapsed() == e1; held != hold {
			t.Errorf("HoldWhilePaused %v: clock held %v", hold, held)
		}
		r.Loops()[0].Resume()
		r.holdWhilePaused()
		e2 := r.Elapsed()
		time.Sleep(5 * time.Millisecond)
		if r.Elapsed() == e2 {
			t.Errorf("HoldWhilePaused %v: the clock stands after the resume", hold)
		}
		r.Stop()
		<-r.Done()
	}
}
