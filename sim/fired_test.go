package sim

import (
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
)

// The run puts each timeline action it plays in its stream, with the run
// clock and the loops it reached, for the screens' captions.
func TestRunRecordsFiredActions(t *testing.T) {
	leaktest.Check(t)
	sc, err := scenarios.Load("task-deadline-64")
	if err != nil {
		t.Fatal(err)
	}
	// Both actions are due at 1s; the first submits 50 000 tasks, which
	// under the race detector on a busy machine, with every task traced
	// (the samples need a sink), takes a second or two before the second
	// can fire.
	sc.Duration = 4 * time.Second
	var mu sync.Mutex
	var fired []Fired
	sink := &recordSink{record: func(rec any) {
		s := rec.(*sample.Sample)
		mu.Lock()
		defer mu.Unlock()
		for _, f := range s.Fired {
			if s.Reason != sample.Fire && s.Reason != sample.End {
				t.Errorf("an action fired in a %s sample", s.Reason)
			}
			fired = append(fired, Fired{At: time.Duration(f.At), Action: sc.Timeline[f.Action], Loops: f.Loops})
		}
	}}
	r, err := New(sc, Options{Sinks: []trace.Sink{sink}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
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
}

// recordSink takes a run's samples; its events go nowhere.
type recordSink struct{ record func(rec any) }

func (s *recordSink) Consume([]trace.Event) {}
func (s *recordSink) ConsumeRecord(rec any) { s.record(rec) }
