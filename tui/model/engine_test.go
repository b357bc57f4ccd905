package model

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// On a real loop, timers that fall due join the queue mirror and leave it
// with their task_run, so once they have run the queue reads empty. The
// timers run last: no later submission resets the depth behind them.
func TestQueueMirrorFollowsARealLoop(t *testing.T) {
	leaktest.Check(t)
	coll, rec := newRecorder(t, 1<<12)
	l, err := reactor.NewEventLoop("worker-0", "worker", reactor.Config{Collector: coll})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()

	const timers = 3
	for i := range timers {
		if _, err := l.Schedule("tick", time.Duration(i+1)*5*time.Millisecond, func() {}); err != nil {
			t.Fatal(err)
		}
	}
	leaktest.WaitFor(t, "every timer's task_run", func() bool {
		coll.Settle()
		n := 0
		for _, e := range rec.Events() {
			if e.Kind == trace.KindTaskRun && e.Str == "tick" {
				n++
			}
		}
		return n == timers
	})

	m := New(coll.Loops())
	m.Consume(rec.Events())
	w := loopByName(t, m.Snapshot(Query{Focus: 0, Head: 8}), "worker-0")
	if w.QueueDepth != 0 || len(w.QueueHead) != 0 || w.QueueHidden != 0 {
		t.Fatalf("after every timer ran: depth %d, head %+v, hidden %d; want an empty queue",
			w.QueueDepth, w.QueueHead, w.QueueHidden)
	}
	if w.TimersDue != timers {
		t.Fatalf("timers due %d, want %d", w.TimersDue, timers)
	}
}
