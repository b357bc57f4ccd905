package reactor

import (
	"container/heap"
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

func TestSchedHeapOrdersByDeadlineThenID(t *testing.T) {
	var h schedHeap
	for _, f := range []*ScheduledFuture{
		{id: 3, deadline: 10}, {id: 1, deadline: 20}, {id: 2, deadline: 10}, {id: 4, deadline: 5},
	} {
		heap.Push(&h, f)
	}
	var got []uint64
	for h.Len() > 0 {
		got = append(got, heap.Pop(&h).(*ScheduledFuture).id)
	}
	want := []uint64{4, 2, 3, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
}

func newLoop(t *testing.T, cfg Config) *EventLoop {
	t.Helper()
	l, err := NewEventLoop("worker-0", "worker", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() })
	return l
}

// onLoop runs fn on the loop and waits for it.
func onLoop(t *testing.T, l *EventLoop, fn func()) {
	t.Helper()
	done := make(chan struct{})
	if err := l.Execute(func() { fn(); close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
}

type orderLog struct {
	mu  sync.Mutex
	ran []string
}

func (o *orderLog) add(s string) { o.mu.Lock(); o.ran = append(o.ran, s); o.mu.Unlock() }
func (o *orderLog) get() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.ran...)
}

func TestScheduledTasksRunInDeadlineOrder(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{})
	var log orderLog
	done := make(chan struct{})
	onLoop(t, l, func() {
		_, _ = l.Schedule("c", 30*time.Millisecond, func() { log.add("c"); close(done) })
		_, _ = l.Schedule("a", 10*time.Millisecond, func() { log.add("a") })
		_, _ = l.Schedule("b", 20*time.Millisecond, func() { log.add("b") })
	})
	<-done
	if got := log.get(); len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Fatalf("ran %v, want [a b c]", got)
	}
}

// A due scheduled task is appended behind tasks already queued.
func TestDueTasksQueueBehindSubmittedTasks(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{})
	var log orderLog
	started := make(chan struct{})
	release := make(chan struct{})
	done := make(chan struct{})
	_ = l.Execute(func() { // schedule, then hold the loop past the deadline
		_, _ = l.Schedule("scheduled", time.Millisecond, func() { log.add("scheduled"); close(done) })
		close(started)
		<-release
	})
	<-started
	_ = l.Execute(func() { log.add("t1") })
	_ = l.Execute(func() { log.add("t2") })
	time.Sleep(5 * time.Millisecond) // let the scheduled task fall due while the loop is held
	close(release)
	<-done
	if got := log.get(); len(got) != 3 || got[0] != "t1" || got[1] != "t2" || got[2] != "scheduled" {
		t.Fatalf("ran %v, want [t1 t2 scheduled]", got)
	}
}

// Fixed rate keeps deadlines on the period grid; fixed delay measures from
// the end of each run.
func TestFixedRateVersusFixedDelay(t *testing.T) {
	leakCheck(t)
	const period = 10 * time.Millisecond
	const cost = 15 * time.Millisecond
	for _, tc := range []struct {
		name      string
		fixedRate bool
	}{{"fixed rate", true}, {"fixed delay", false}} {
		t.Run(tc.name, func(t *testing.T) {
			coll, rec := newTraced(t)
			l := newLoop(t, Config{Collector: coll})
			runs := make(chan struct{}, 16)
			var f *ScheduledFuture
			onLoop(t, l, func() {
				work := func() { time.Sleep(cost); runs <- struct{}{} }
				if tc.fixedRate {
					f, _ = l.ScheduleAtFixedRate("tick", period, period, work)
				} else {
					f, _ = l.ScheduleWithFixedDelay("tick", period, period, work)
				}
			})
			for i := 0; i < 4; i++ {
				<-runs
			}
			f.Cancel()
			coll.Settle()
			var deadlines []int64
			for _, e := range rec.ofKind(loopIndex(t, coll, "worker-0"), trace.KindTimerSchedule) {
				deadlines = append(deadlines, e.B)
			}
			if len(deadlines) < 4 {
				t.Fatalf("%d schedule events", len(deadlines))
			}
			for i := 1; i < 4; i++ {
				gap := time.Duration(deadlines[i] - deadlines[i-1])
				if tc.fixedRate && gap != period {
					t.Fatalf("fixed rate: deadline gap %v, want exactly %v", gap, period)
				}
				if !tc.fixedRate && gap < cost+period {
					t.Fatalf("fixed delay: deadline gap %v, want >= cost+delay %v", gap, cost+period)
				}
			}
		})
	}
}

func TestCancelFromAnotherGoroutine(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{})
	ran := make(chan struct{}, 1)
	f, err := l.Schedule("never", 50*time.Millisecond, func() { ran <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	if !f.Cancel() || !f.Cancelled() || f.Cancel() {
		t.Fatal("cancel did not take exactly once")
	}
	later, _ := l.Schedule("later", 100*time.Millisecond, func() { ran <- struct{}{} })
	<-ran
	if !later.Done() || f.Done() {
		t.Fatal("the cancelled task ran, or the later one did not")
	}
}

// With a task scheduled, select's timeout is the time to its deadline
// (rounded to the nearest ms), not the 1 s idle cap.
func TestSelectTimeoutBoundedByNextDeadline(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	l := newLoop(t, Config{Collector: coll})
	done := make(chan struct{})
	onLoop(t, l, func() { _, _ = l.Schedule("t", 300*time.Millisecond, func() { close(done) }) })
	<-done
	coll.Settle()
	var timeouts []int64
	for _, e := range rec.snapshot() {
		if e.Kind == trace.KindTimerDue {
			break // after this the heap is empty again
		}
		if e.Kind == trace.KindSelectBegin && e.Str == "select" {
			timeouts = append(timeouts, e.A)
		}
	}
	if len(timeouts) == 0 {
		t.Fatal("no blocking select")
	}
	for _, to := range timeouts {
		if to <= 0 || to > int64(301*time.Millisecond) {
			t.Fatalf("select timeouts %v: want each in (0, 301ms]", timeouts)
		}
	}
	// Idle, with nothing scheduled, the classic loop caps select at 1 s.
	waitFor(t, "an idle select", func() bool {
		coll.Settle()
		b := rec.ofKind(loopIndex(t, coll, "worker-0"), trace.KindSelectBegin)
		return len(b) > 0 && b[len(b)-1].A == int64(time.Second)
	})
}

// A loop's events reach the sinks in the order the loop emitted them. The
// collector merges loops by time, so a loop must never stamp an event
// earlier than one it has already emitted: a select's end and the I/O
// phase after it share one clock reading, and a timer that falls due when
// runAllTasks fetches comes before the batch's tasks_begin.
func TestLoopEventsKeepEmissionOrder(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	s := startServer(t, 1, 1, Config{Collector: coll, IORatio: 100}, echoInit)
	c := dial(t, s.addr())
	for i := 0; i < 20; i++ {
		echoOnce(t, c, "ping")
	}
	w := s.worker.Loops()[0]
	done := make(chan struct{})
	onLoop(t, w, func() { _, _ = w.Schedule("t", time.Millisecond, func() { close(done) }) })
	<-done
	coll.Settle()
	idx := loopIndex(t, coll, "worker-0")
	inSelect, inBatch, ioPhases, timers := false, false, 0, 0
	for _, e := range rec.snapshot() {
		if e.Loop != idx {
			continue
		}
		switch e.Kind {
		case trace.KindSelectBegin:
			inSelect = true
		case trace.KindSelectEnd:
			inSelect = false
		case trace.KindIOBegin:
			if inSelect {
				t.Fatalf("io_begin (event %d) before the select_end of its select", e.Seq)
			}
			ioPhases++
		case trace.KindTasksBegin:
			inBatch = true
		case trace.KindTasksEnd:
			inBatch = false
		case trace.KindTimerDue:
			if inBatch {
				t.Fatalf("timer_due (event %d) inside the batch it was fetched for", e.Seq)
			}
			timers++
		}
	}
	if ioPhases == 0 || timers != 1 {
		t.Fatalf("%d I/O phases and %d timers seen; the test needs both", ioPhases, timers)
	}
}

// At ioRatio 100, runAllTasks() moves the due scheduled tasks to the queue
// once per call (SingleThreadEventExecutor.runAllTasks): a scheduled task
// that falls due during the drain waits for the next iteration, so the loop
// selects and does its I/O between any two of them. A chain of 0-delay
// schedules, and a fixed-rate task slower than its period, each take one
// iteration per run.
func TestRunAllTasksFetchesScheduledTasksOnce(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name string
		runs int
		arm  func(l *EventLoop, run func() bool)
	}{
		{"chained 0-delay schedules", 200, func(l *EventLoop, run func() bool) {
			var next func()
			next = func() {
				if run() {
					_, _ = l.Schedule("chain", 0, next)
				}
			}
			_, _ = l.Schedule("chain", 0, next)
		}},
		{"fixed rate slower than its period", 5, func(l *EventLoop, run func() bool) {
			var f *ScheduledFuture
			f, _ = l.ScheduleAtFixedRate("slow", 0, time.Millisecond, func() {
				time.Sleep(3 * time.Millisecond)
				if !run() {
					f.Cancel()
				}
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLoop(t, Config{IORatio: 100})
			var iters []int64
			done := make(chan struct{})
			run := func() bool {
				iters = append(iters, l.stats.Iterations.Load())
				if len(iters) == tc.runs {
					close(done)
					return false
				}
				return true
			}
			onLoop(t, l, func() { tc.arm(l, run) })
			<-done
			for i := 1; i < len(iters); i++ {
				if iters[i] <= iters[i-1] {
					t.Fatalf("runs %d and %d both in iteration %d; want one iteration each", i, i+1, iters[i])
				}
			}
		})
	}
}

// When a bounded queue refuses a due scheduled task, runAllTasks() drains
// the queue and fetches again in the same call
// (SingleThreadEventExecutor.runAllTasks loops while !fetchedAll): ten
// tasks due at once run in one iteration through a queue of four.
func TestRunAllTasksFetchesAgainWhenTheQueueWasFull(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{IORatio: 100, QueueCapacity: 4})
	const n = 10
	iters := make(chan int64, n)
	onLoop(t, l, func() {
		for i := 0; i < n; i++ {
			_, _ = l.Schedule("due", 0, func() { iters <- l.stats.Iterations.Load() })
		}
	})
	first := <-iters
	for i := 1; i < n; i++ {
		if it := <-iters; it != first {
			t.Fatalf("task %d ran in iteration %d, the first in %d; want one call of runAllTasks", i+1, it, first)
		}
	}
}
