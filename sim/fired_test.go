package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/scenarios"
)

// The run records each timeline action it plays, with the run clock and
// the loops it reached, for the UI's captions.
func TestRunRecordsFiredActions(t *testing.T) {
	leaktest.Check(t)
	sc, err := scenarios.Load("task-deadline-64")
	if err != nil {
		t.Fatal(err)
	}
	// Both actions are due at 1s; the first submits 50 000 tasks, which
	// under the race detector on a busy machine takes a good part of a
	// second before the second can fire.
	sc.Duration = 2500 * time.Millisecond
	r, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	fired := r.Fired()
	if len(fired) != len(sc.Timeline) {
		t.Fatalf("fired %d actions, the timeline has %d", len(fired), len(sc.Timeline))
	}
	w0 := -1
	for i, l := range r.Loops() {
		if l.Name() == "worker-0" {
			w0 = i
		}
	}
	for i, f := range fired {
		if f.At < time.Second {
			t.Errorf("action %d fired at %v, before its time", i, f.At)
		}
		if len(f.Loops) != 1 || f.Loops[0] != w0 {
			t.Errorf("action %d reached loops %v, want [%d] (worker-0)", i, f.Loops, w0)
		}
		if _, ok := f.Action.(scenarios.Submit); !ok {
			t.Errorf("action %d is %T, want a submit", i, f.Action)
		}
	}
	// A replay reads the same actions and loops from the scenario.
	replayed := FiredBy(sc, r.LoopTable(), sc.Duration)
	if len(replayed) != len(fired) {
		t.Fatalf("a replay finds %d actions, the run played %d", len(replayed), len(fired))
	}
	for i, f := range replayed {
		if f.Action != fired[i].Action || !slices.Equal(f.Loops, fired[i].Loops) || f.At != f.Action.Time() {
			t.Errorf("action %d: replayed %+v, played %+v", i, f, fired[i])
		}
	}
	if n := len(FiredBy(sc, r.LoopTable(), time.Second-1)); n != 0 {
		t.Errorf("a replay before 1s finds %d actions", n)
	}
}
