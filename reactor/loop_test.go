package reactor

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// A terminated loop's thread dies with its goroutine: no other goroutine
// ever runs on a thread with the loop's tid, so none is taken for the loop.
func TestInEventLoopFalseAfterTermination(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{})
	onLoop(t, l, func() {})
	tid := l.TID()
	l.ShutdownGracefully(0, time.Second)
	<-l.Terminated()
	var wrong atomic.Int64
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		for i := 0; i < 100; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if l.InEventLoop() {
					wrong.Add(1)
				}
			}()
		}
		wg.Wait()
	}
	if wrong.Load() != 0 {
		t.Fatalf("%d of 2000 goroutines took themselves for the terminated loop", wrong.Load())
	}
	if l.TID() != tid || tid == 0 {
		t.Fatalf("tid %d after termination, %d while running", l.TID(), tid)
	}
}

// Shutting down a loop that never started waits for a producer already past
// its state check, as a running loop's shutdown does: the producer's wakeup
// finds the eventfd open, and its task runs rather than being lost.
func TestShutdownOfUnstartedLoopWaitsForProducers(t *testing.T) {
	leakCheck(t)
	l, err := NewEventLoop("worker-0", "worker", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !l.enter() { // a producer between its state check and its enqueue
		t.Fatal("enter refused on a new loop")
	}
	returned := make(chan struct{})
	go func() { l.ShutdownGracefully(0, time.Second); close(returned) }()
	waitFor(t, "the shutdown to begin", func() bool { return l.State() != trace.StateNotStarted })
	select {
	case <-l.Terminated():
		t.Fatal("terminated with a producer in flight")
	default:
	}
	// The producer goes on as submit does: enqueue, start, wake.
	ran := make(chan struct{})
	l.tasks.Offer(task{fn: func() { close(ran) }, name: "late"})
	l.startThread()
	l.wakeup(nil)
	l.exit()
	<-returned
	<-l.Terminated()
	if w := l.Stats().WakeupsWritten; w != 1 {
		t.Fatalf("%d eventfd writes; the late wakeup found it closed", w)
	}
	select {
	case <-ran:
	default:
		t.Fatal("the late task was accepted but never ran")
	}
	if l.TID() != 0 || l.State() != trace.StateTerminated {
		t.Fatalf("tid %d state %v", l.TID(), l.State())
	}
}

// A poller that fails for good stops the loop at once: select does not go
// on waiting, counting premature returns and rebuilding.
func TestPollerFailureStopsTheLoopAtOnce(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{RebuildThreshold: 4})
	onLoop(t, l, func() {
		// /dev/null in the epoll fd's place: the next epoll_wait fails
		// with EINVAL, and closing the poller closes it.
		null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Error(err)
			return
		}
		if err := unix.Dup3(null, l.poller.FD(), unix.O_CLOEXEC); err != nil {
			t.Error(err)
		}
		unix.Close(null)
	})
	waitFor(t, "the loop to stop", func() bool { return l.State() == trace.StateTerminated })
	if l.Err() == nil {
		t.Fatal("no error recorded")
	}
	if st := l.Stats(); st.Premature != 0 || st.Rebuilds != 0 {
		t.Fatalf("after the failure: %d premature returns, %d rebuilds", st.Premature, st.Rebuilds)
	}
}

// A blocking select's took_ns is the distance between its select_begin and
// select_end events: both ends are the same clock readings.
func TestSelectTookMatchesItsEvents(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	l := newLoop(t, Config{Collector: coll})
	for i := 0; i < 5; i++ {
		onLoop(t, l, func() {})
	}
	waitFor(t, "the loop to sleep", func() bool { return blockedInEpoll(l) })
	onLoop(t, l, func() {})
	coll.Settle()
	var begin *trace.Event
	checked := 0
	for _, e := range rec.snapshot() {
		switch {
		case e.Kind == trace.KindSelectBegin:
			begin = &e
		case e.Kind == trace.KindSelectEnd && begin != nil && begin.Str == "select":
			if e.B != e.Time-begin.Time {
				t.Fatalf("took_ns %d, events %d ns apart", e.B, e.Time-begin.Time)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no blocking select traced")
	}
}

// An iteration that selects, processes keys and runs no task reads the
// clock twice: the select's return doubles as the start of
// processSelectedKeys, and the end of processSelectedKeys as the start of
// the next select. Any iteration that reads the clock more has lost the
// hand-off.
func TestBusyIterationReadsTheClockTwice(t *testing.T) {
	leakCheck(t)
	var fake, reads atomic.Int64
	var worker atomic.Pointer[EventLoop]
	now := func() int64 {
		if w := worker.Load(); w != nil && w.InEventLoop() {
			reads.Add(1)
		}
		return fake.Add(1000) // 1 µs a reading: no yield falls due here
	}
	w, c := echoingWorker(t, Config{Now: now})
	worker.Store(w)
	waitFor(t, "worker asleep", func() bool { return blockedInEpoll(w) })
	r0, s0 := reads.Load(), w.Stats()
	i0 := s0.Iterations
	for range 100 {
		echoOnce(t, c, "ping")
	}
	waitFor(t, "worker asleep again", func() bool { return blockedInEpoll(w) })
	r, i := reads.Load()-r0, w.Stats().Iterations-i0
	if i < 100 || r != 2*i {
		t.Fatalf("%d clock reads in %d iterations; want 2 each\nbefore %+v\nafter  %+v", r, i, s0, w.Stats())
	}
}

// The atomics every submission writes share no cache line with any other
// field of the loop, wherever the allocator puts it: at least a line's
// width of padding lies between them and their neighbours.
func TestProducerAtomicsHaveCacheLinesOfTheirOwn(t *testing.T) {
	var l EventLoop
	line := unsafe.Sizeof(cpu.CacheLinePad{})
	first, last := unsafe.Offsetof(l.inflight), unsafe.Offsetof(l.nextWakeup)+unsafe.Sizeof(l.nextWakeup)
	for _, f := range []uintptr{unsafe.Offsetof(l.taskIDs), unsafe.Offsetof(l.wakenUp), unsafe.Offsetof(l.woken)} {
		if f < first || f >= last {
			t.Fatalf("a producer atomic at %d lies outside [%d, %d)", f, first, last)
		}
	}
	before := unsafe.Offsetof(l.split) + unsafe.Sizeof(l.split) // the last field ahead of them
	after := unsafe.Offsetof(l.owned)                           // the first field after them
	if first-before < line || after-last < line {
		t.Errorf("producer atomics at [%d, %d): %d bytes from the field before, %d to the one after; want %d",
			first, last, first-before, after-last, line)
	}
}

// A due timer makes Netty 4.1.43's select() call selectNow with
// selectCnt = 1, so 1 is the highest count reached even by a loop that
// never returned from a blocking select; the select_end of that poll says
// so, and the loop's own counter must agree with its trace.
func TestMaxSelectCntCountsTheSelectNowOfADueTimer(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{Netty: Netty4143})
	fired := make(chan struct{})
	onLoop(t, l, func() {
		if _, err := l.Schedule("due", 0, func() { close(fired) }); err != nil {
			t.Error(err)
		}
	})
	<-fired
	if st := l.Stats(); st.SelectNows == 0 || st.MaxSelectCnt != 1 {
		t.Fatalf("select_nows=%d max_select_cnt=%d; want >0 and 1", st.SelectNows, st.MaxSelectCnt)
	}
}
