package reactor

import (
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	ctr "github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// TestTraceCountsTheEngineIterations folds a loop's trace while the loop
// waits at a gate and compares the iterations with the engine's own count,
// under every design: 4.1.43 selects several times in an iteration cut
// short by premature returns, 4.1 skips the I/O phase when nothing was
// selected, and 4.2 runs an I/O phase every time. Only the mark on an
// iteration's first select_begin counts them right in all three.
func TestTraceCountsTheEngineIterations(t *testing.T) {
	for _, f := range []Flavour{Netty4143, Netty41, Netty42} {
		t.Run(f.String(), func(t *testing.T) {
			leakCheck(t)
			coll, rec := newTraced(t)
			l := startedLoop(t, Config{Netty: f, Collector: coll})
			for i := 0; i < 3; i++ {
				waitFor(t, "loop asleep", func() bool { return blockedInEpoll(l) })
				if err := l.InjectSpuriousWakeups(); err != nil {
					t.Fatal(err)
				}
				runOn(t, l)
			}
			l.Pause("test")
			if err := l.Execute(func() {}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "loop parked at a gate", func() bool { return l.GateStatus().Waiting })
			coll.Settle()
			fold := ctr.NewLoop()
			idx := loopIndex(t, coll, "worker-0")
			selects := 0
			for _, e := range rec.snapshot() {
				if e.Loop == idx {
					fold.Fold(&e, "worker-0")
					if e.Kind == trace.KindSelectBegin {
						selects++
					}
				}
			}
			st := l.Stats()
			if fold.Iterations != st.Iterations || st.Iterations < 3 {
				t.Errorf("the trace folds to %d iterations (%d selects); the engine counted %d",
					fold.Iterations, selects, st.Iterations)
			}
			l.Resume()
		})
	}
}

// runOn runs a task on l and waits for it.
func runOn(t *testing.T, l *EventLoop) {
	t.Helper()
	done := make(chan struct{})
	if err := l.Execute(func() { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
}
