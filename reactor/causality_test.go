//go:build linux && !nolive

package reactor

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// A wakeup is recorded by the goroutine that submits a task, not by the
// loop; the loop may return from its select, run the task and trace it all
// before that goroutine records anything. The wakeup is stamped before the
// eventfd write, and the collector holds back what a reserved record could
// precede, so the trace shows cause before effect in time and in order:
// here the producer is held between its write and its record while the
// loop wakes, runs the task and the collector drains, and still the
// trace's wakeup comes before the select it ended.
func TestWakeupRecordedBeforeTheSelectItEnds(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"4.1.43", Config{}},
		{"4.1 epoll", Config{Netty: Netty41, Selector: SelectorEpoll}},
		{"4.2 epoll", Config{Netty: Netty42, Selector: SelectorEpoll}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			coll, rec := newTraced(t)
			tc.cfg.Collector = coll
			l := newLoop(t, tc.cfg)
			var armed atomic.Pointer[hold]
			l.beforeRecord = func() {
				if h := armed.Swap(nil); h != nil {
					close(h.held)
					<-h.release
				}
			}
			onLoop(t, l, func() {})

			// The loop may be waking from its idle timeout just as the
			// task is offered, and the wakeup then coalesces: try again.
			for attempt := 0; ; attempt++ {
				if attempt == 5 {
					t.Fatal("no wakeup written in 5 tries")
				}
				waitFor(t, "loop asleep", func() bool { return blockedInEpoll(l) })
				if holdProducer(t, l, coll, &armed) {
					break
				}
			}
			coll.Settle()

			idx := loopIndex(t, coll, "worker-0")
			wake, end, run := -1, -1, -1
			var events []trace.Event
			for _, e := range rec.snapshot() {
				if e.Loop == idx {
					events = append(events, e)
				}
			}
			for i, e := range events {
				switch {
				case e.Kind == trace.KindTaskRun && e.Str == "woken":
					run = i // the last try's task
				case e.Kind == trace.KindWakeup && e.Str == "external" && e.Flag:
					wake = i // the last one written: the task's, wherever it landed
				}
			}
			for i := range run {
				if events[i].Kind == trace.KindSelectEnd {
					end = i // the last select to end before the task ran
				}
			}
			if wake < 0 || end < 0 || run < 0 {
				t.Fatalf("wakeup %d, select_end %d, task_run %d: an event is missing", wake, end, run)
			}
			if wake > end {
				t.Errorf("the wakeup is traced after the select it ended: wakeup #%d (seq %d, t %d), select_end #%d (seq %d, t %d)",
					wake, events[wake].Seq, events[wake].Time, end, events[end].Seq, events[end].Time)
			}
			if events[wake].Time > events[end].Time {
				t.Errorf("the wakeup is stamped %d ns after the select it ended", events[wake].Time-events[end].Time)
			}
		})
	}
}

// hold is one producer held in beforeRecord.
type hold struct{ held, release chan struct{} }

// holdProducer submits a task from another goroutine and holds that
// goroutine after its eventfd write, before its record, until the loop
// has run the task and the collector has drained meanwhile. It reports
// whether the wakeup was written (not coalesced).
func holdProducer(t *testing.T, l *EventLoop, coll *trace.Collector, armed *atomic.Pointer[hold]) bool {
	t.Helper()
	h := &hold{held: make(chan struct{}), release: make(chan struct{})}
	armed.Store(h)
	before := l.Stats().WakeupsWritten
	ran := make(chan struct{})
	submitted := make(chan error, 1)
	go func() { submitted <- l.ExecuteNamed("woken", func() { close(ran) }) }()
	<-h.held
	// Written or coalesced, the loop is awake and runs the task while
	// its producer is held.
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		close(h.release)
		t.Fatal("the task did not run while its producer was held")
	}
	time.Sleep(10 * time.Millisecond) // the collector drains meanwhile
	coll.Settle()
	close(h.release)
	if err := <-submitted; err != nil {
		t.Fatal(err)
	}
	return l.Stats().WakeupsWritten > before
}
