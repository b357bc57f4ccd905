package sim

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/scenarios"
)

// ClockMap takes the holds out of an event's time: two events either side
// of a hold are the hold's length closer on the run clock than on the
// trace's.
func TestClockMapTakesHoldsOut(t *testing.T) {
	leaktest.Check(t)
	sc, err := scenarios.Load("single-reactor")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = time.Minute
	r, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); <-r.Done() }()
	clock := r.Collector().Clock()
	before := clock.Now()
	r.HoldClock(true)
	time.Sleep(2 * time.Millisecond)
	r.HoldClock(false)
	after := clock.Now()
	cm := r.ClockMap()
	r.mu.Lock()
	held := r.held
	r.mu.Unlock()
	if got, want := cm(after)-cm(before), time.Duration(after-before)-held; got != want {
		t.Errorf("run clock between the events %v, want %v (trace %v less the hold %v)", got, want, time.Duration(after-before), held)
	}
}
