package sim

import (
	"testing"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/scenarios"
)

// shortRun is how long each built-in runs here. The full runs, with their
// expectations, are the CI's headless run of every built-in (.ci/run); this
// test checks, in a fraction of the time, that each one builds its
// topology, drives its loops and shuts down without leaving anything behind.
const shortRun = "400ms"

func TestBuiltinsRunAndShutDownCleanly(t *testing.T) {
	for _, info := range scenarios.Builtin() {
		t.Run(info.Name, func(t *testing.T) {
			leaktest.Check(t)
			sc, err := scenarios.Load(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			if err := sc.Set("duration", shortRun); err != nil {
				t.Fatal(err)
			}
			r, err := New(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.Wait()
			if err != nil {
				t.Fatal(err)
			}
			var iterations int64
			for _, l := range s.Loops {
				iterations += l.Iterations
				if l.State != "TERMINATED" && l.State != "NOT_STARTED" {
					t.Errorf("%s ended %s", l.Name, l.State)
				}
			}
			if iterations == 0 {
				t.Error("no loop ran an iteration")
			}
		})
	}
}
