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
			var armed atomic.Bool
			held, release := make(chan struct{}), make(chan struct{})
			l.beforeRecord = func() {
				if armed.CompareAndSwap(true, false) {
					close(held)
					<-release
				}
			}
			onLoop(t, l, func() {})
			waitFor(t, "loop asleep", func() bool { return blockedInEpoll(l) })

			armed.Store(true)
			ran := make(chan struct{})
			submitted := make(chan error, 1)
			go func() { submitted <- l.ExecuteNamed("woken", func() { close(ran) }) }()
			<-held
			select {
			case <-ran:
			case <-time.After(5 * time.Second):
				close(release)
				t.Fatal("the task did not run while its producer was held")
			}
			time.Sleep(10 * time.Millisecond) // the collector drains meanwhile
			coll.Flush()
			close(release)
			if err := <-submitted; err != nil {
				t.Fatal(err)
			}
			coll.Flush()

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
					run = i
				case run < 0 && e.Kind == trace.KindSelectEnd:
					end = i // the last select to end before the task ran
				case e.Kind == trace.KindWakeup && e.Str == "external" && e.Flag:
					wake = i // the last one written: the task's, wherever it landed
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
			for i := 1; i < len(events); i++ {
				if events[i].Time < events[i-1].Time {
					t.Errorf("the loop's trace goes back in time at #%d: %+v after %+v", i, events[i], events[i-1])
				}
			}
		})
	}
}
