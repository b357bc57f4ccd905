package reactor

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// stepClock is the real clock until armed; armed, it stands still at the
// moment it was armed and jumps by step on every read, recording how many
// tasks had run at each read: a clock double that says when it is read.
type stepClock struct {
	base    *trace.Clock
	armed   atomic.Bool
	frozen  atomic.Int64
	last    atomic.Int64
	offset  atomic.Int64
	step    int64
	counter *atomic.Int64 // tasks run so far, read at every armed clock read
	mu      sync.Mutex
	readsAt []int64
}

func (c *stepClock) now() int64 {
	if c.armed.Load() {
		c.mu.Lock()
		c.readsAt = append(c.readsAt, c.counter.Load())
		c.mu.Unlock()
		return c.frozen.Load() + c.offset.Add(c.step)
	}
	// Strictly increasing, so a measured ioTime (and so a budget) is never 0.
	v := max(c.base.Now()+c.offset.Load(), c.last.Load()+1)
	c.last.Store(v)
	return v
}

// arm stops the clock at the last value it returned: the batch's start.
func (c *stepClock) arm() {
	c.frozen.Store(c.last.Load())
	c.armed.Store(true)
}

func (c *stepClock) reads() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int64(nil), c.readsAt...)
}

// runBatch submits n tasks from the loop itself inside one seeding task, so
// all of them are eligible in the same runAllTasks call, with the clock
// double armed from the seeding task to the last task.
func runBatch(t *testing.T, l *EventLoop, clk *stepClock, n int) {
	t.Helper()
	done := make(chan struct{})
	err := l.Execute(func() {
		clk.counter.Store(1) // this seeding task is task 1 of the batch
		for i := 0; i < n; i++ {
			last := i == n-1
			_ = l.Execute(func() {
				clk.counter.Add(1)
				if last {
					clk.armed.Store(false)
					close(done)
				}
			})
		}
		clk.arm()
	})
	if err != nil {
		t.Fatal(err)
	}
	<-done
}

func newClockedLoop(t *testing.T, ioRatio int, step time.Duration) (*EventLoop, *stepClock) {
	t.Helper()
	clk := &stepClock{base: trace.NewClock(), step: int64(step), counter: new(atomic.Int64)}
	l, err := NewEventLoop("worker-0", "worker", Config{IORatio: ioRatio, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		l.ShutdownGracefully(0, time.Second)
		<-l.Terminated()
	})
	return l, clk
}

// With a budget large enough never to be hit, the clock is read only after
// tasks 64, 128, 192 (and once when the queue runs dry), never in between.
func TestRunAllTasksReadsClockEvery64Tasks(t *testing.T) {
	leakCheck(t)
	l, clk := newClockedLoop(t, 1, 0) // a still clock never reaches the deadline
	runBatch(t, l, clk, 200)          // 201 tasks in one batch
	var inBatch []int64
	for _, n := range clk.reads() {
		if n > 1 && n < 201 {
			inBatch = append(inBatch, n)
		}
	}
	want := []int64{64, 128, 192}
	if len(inBatch) != len(want) {
		t.Fatalf("clock read after tasks %v; want exactly %v", inBatch, want)
	}
	for i := range want {
		if inBatch[i] != want[i] {
			t.Fatalf("clock read after tasks %v; want %v", inBatch, want)
		}
	}
	if st := l.Stats(); st.DeadlineHits != 0 || st.DeadlineChecks < 3 {
		t.Fatalf("deadline checks=%d hits=%d; want >= 3 checks, no hit", st.DeadlineChecks, st.DeadlineHits)
	}
}

// When every clock read jumps past the budget, runAllTasks stops at task 64
// exactly — never earlier, since it does not look at the clock before then.
func TestRunAllTasksBudgetStopsOnlyAtMultiplesOf64(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	clk := &stepClock{base: trace.NewClock(), step: int64(time.Second), counter: new(atomic.Int64)}
	l, err := NewEventLoop("worker-0", "worker", Config{Now: clk.now, Collector: coll})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	runBatch(t, l, clk, 200)
	coll.Settle()
	idx := loopIndex(t, coll, "worker-0")
	var hits []int64
	for _, e := range rec.ofKind(idx, trace.KindDeadlineCheck) {
		if e.A%64 != 0 {
			t.Fatalf("deadline check after task %d", e.A)
		}
		if e.Flag {
			hits = append(hits, e.A)
		}
	}
	if len(hits) < 3 || hits[0] != 64 {
		t.Fatalf("deadline hits at %v; want batches stopped at 64", hits)
	}
	for _, e := range rec.ofKind(idx, trace.KindTasksEnd) {
		if e.Flag && e.A != 64 {
			t.Fatalf("a batch that hit its deadline ran %d tasks, want 64", e.A)
		}
	}
	// Every batch leaves what it found, plus what it submitted (the first
	// batch's seeding task submits the 200), less what it ran: tasks_end's
	// queued is the queue's real depth.
	// The last task ends runBatch from inside its batch: wait for that
	// batch's tasks_end.
	var begins, ends []trace.Event
	waitFor(t, "the last batch's tasks_end", func() bool {
		coll.Settle()
		begins, ends = rec.ofKind(idx, trace.KindTasksBegin), rec.ofKind(idx, trace.KindTasksEnd)
		return len(begins) == len(ends)
	})
	for i := range ends {
		left := begins[i].A - ends[i].A
		if i == 0 {
			left += 200
		}
		if ends[i].C != left {
			t.Fatalf("batch %d: began with %d, ran %d, tasks_end says %d queued; want %d",
				i, begins[i].A, ends[i].A, ends[i].C, left)
		}
	}
}

func TestTaskBudgetFormula(t *testing.T) {
	for _, tc := range []struct {
		ioTime int64
		ratio  int
		want   int64
	}{
		{ioTime: 1000, ratio: 50, want: 1000},
		{ioTime: 1000, ratio: 25, want: 3000},
		{ioTime: 1000, ratio: 75, want: 333}, // truncating, as Netty's long arithmetic
		{ioTime: 1000, ratio: 1, want: 99000},
		{ioTime: 1000, ratio: 99, want: 10},
		{ioTime: 1000, ratio: 100, want: -1}, // unlimited
		{ioTime: 0, ratio: 50, want: 0},
	} {
		if got := TaskBudget(tc.ioTime, tc.ratio); got != tc.want {
			t.Errorf("TaskBudget(%d, %d) = %d, want %d", tc.ioTime, tc.ratio, got, tc.want)
		}
	}
}

func TestIORatioValidation(t *testing.T) {
	for _, r := range []int{0, -1, 101} {
		if ValidateIORatio(r) == nil {
			t.Errorf("ioRatio %d accepted", r)
		}
	}
	if _, err := NewEventLoop("x", "g", Config{IORatio: 101}); err == nil {
		t.Error("Config{IORatio: 101} accepted")
	}
	l, err := NewEventLoop("x", "g", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.ShutdownGracefully(0, 0)
	if l.IORatio() != DefaultIORatio {
		t.Errorf("default ioRatio %d", l.IORatio())
	}
	for _, r := range []int{0, 101} {
		if l.SetIORatio(r) == nil {
			t.Errorf("SetIORatio(%d) accepted", r)
		}
	}
	if err := l.SetIORatio(100); err != nil || l.IORatio() != 100 {
		t.Errorf("SetIORatio(100): %v, now %d", err, l.IORatio())
	}
}

// A change of ioRatio is an io_ratio event on the loop's ring, whether made
// from another goroutine or on the loop; setting the same ratio is none.
func TestIORatioChangeIsTraced(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	l := newLoop(t, Config{Collector: coll})
	for _, r := range []int{10, 10, 100} {
		if err := l.SetIORatio(r); err != nil {
			t.Fatal(err)
		}
	}
	onLoop(t, l, func() { _ = l.SetIORatio(30) })
	coll.Settle()
	var got [][2]int64
	for _, e := range rec.ofKind(loopIndex(t, coll, "worker-0"), trace.KindIORatio) {
		got = append(got, [2]int64{e.A, e.B})
	}
	want := [][2]int64{{10, 50}, {100, 10}, {30, 100}}
	if len(got) != len(want) {
		t.Fatalf("io_ratio events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("io_ratio events %v, want %v", got, want)
		}
	}
}

// On the real loop, every task batch's budget is the I/O time before it
// scaled by ioRatio, and 100 runs without a budget. Only shutdown's final
// drain may run unbounded at a ratio below 100.
func TestIORatioBudgetOnRealLoop(t *testing.T) {
	for _, ratio := range []int{20, 50, 80, 100} {
		leakCheck(t)
		coll, rec := newTraced(t)
		s := startServer(t, 1, 1, Config{IORatio: ratio, Collector: coll}, echoInit)
		c := dial(t, s.addr())
		for i := 0; i < 20; i++ {
			_ = s.worker.Loops()[0].Execute(func() {})
			echoOnce(t, c, "payload")
		}
		s.shutdown()
		coll.Settle()
		idx := loopIndex(t, coll, "worker-0")
		lastIO, shuttingDown, budgeted := int64(-1), false, 0
		for _, e := range rec.snapshot() {
			if e.Loop != idx {
				continue
			}
			switch e.Kind {
			case trace.KindState:
				shuttingDown = shuttingDown || trace.State(e.B) >= trace.StateShuttingDown
			case trace.KindIOEnd:
				lastIO = e.B
			case trace.KindTasksBegin:
				switch {
				case ratio == 100 || shuttingDown:
					if e.B != -1 {
						t.Fatalf("ratio %d: budget %d, want unlimited", ratio, e.B)
					}
				case lastIO < 0:
					t.Fatalf("ratio %d: a task batch with no I/O phase before it", ratio)
				case e.B != TaskBudget(lastIO, ratio):
					t.Fatalf("ratio %d: budget %d after io %d ns, want %d", ratio, e.B, lastIO, TaskBudget(lastIO, ratio))
				default:
					budgeted++
				}
				lastIO = -1
			}
		}
		if ratio < 100 && budgeted == 0 {
			t.Fatalf("ratio %d: no budgeted task batch", ratio)
		}
	}
}

// N submissions from other goroutines to a loop asleep in select write the
// eventfd once; the rest are coalesced. Submissions from the loop itself
// never touch it.
func TestWakeupCoalescing(t *testing.T) {
	leakCheck(t)
	l, err := NewEventLoop("worker-0", "worker", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	if err := l.Execute(func() {}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "loop asleep in select", func() bool { return blockedInEpoll(l) })
	before := l.Stats()
	// Paused, the loop stops at its next phase boundary once woken, so
	// every submission below meets a loop that has not run tasks since the
	// first wakeup: wakenUp stays true and the later CASes fail.
	l.Pause("test")
	const n = 100
	var ran atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n/4; i++ {
				if err := l.Execute(func() { ran.Add(1) }); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	st := l.Stats()
	if w, c := st.WakeupsWritten-before.WakeupsWritten, st.WakeupsCoalesced-before.WakeupsCoalesced; w != 1 || c != n-1 {
		t.Fatalf("%d submissions: %d eventfd writes, %d coalesced; want 1 and %d", n, w, c, n-1)
	}
	l.Resume()
	waitFor(t, "all tasks", func() bool { return ran.Load() == n })
	// Until the loop is back in epoll_wait its wakenUp may still be set
	// from the burst above, and the outer submission would be coalesced.
	waitFor(t, "loop asleep after the burst", func() bool { return blockedInEpoll(l) })

	before = l.Stats()
	done := make(chan struct{})
	_ = l.Execute(func() {
		for i := 0; i < 50; i++ {
			_ = l.Execute(func() {})
		}
		close(done)
	})
	<-done
	waitFor(t, "loop asleep again", func() bool { return blockedInEpoll(l) })
	st = l.Stats()
	if w, c := st.WakeupsWritten-before.WakeupsWritten, st.WakeupsCoalesced-before.WakeupsCoalesced; w != 1 || c != 0 {
		t.Fatalf("in-loop submissions changed wakeups: written +%d coalesced +%d; want only the outer task's +1, +0", w, c)
	}
}

func TestTaskPanicIsRecoveredAndReported(t *testing.T) {
	leakCheck(t)
	l, err := NewEventLoop("worker-0", "worker", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	_ = l.ExecuteNamed("boom", func() { panic("boom") })
	done := make(chan struct{})
	_ = l.Execute(func() { close(done) })
	<-done
	if p := l.Stats().TaskPanics; p != 1 {
		t.Fatalf("task_panics = %d, want 1", p)
	}
}

func TestTailTasksRunAfterEveryBatch(t *testing.T) {
	leakCheck(t)
	l, err := NewEventLoop("worker-0", "worker", Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	var order []string
	done := make(chan struct{})
	_ = l.Execute(func() {
		_ = l.ExecuteAfterEventLoopIteration("tail", func() { order = append(order, "tail"); close(done) })
		_ = l.Execute(func() { order = append(order, "task") })
		order = append(order, "first")
	})
	<-done
	got := make(chan []string)
	_ = l.Execute(func() { got <- append([]string(nil), order...) })
	o := <-got
	if len(o) != 3 || o[0] != "first" || o[1] != "task" || o[2] != "tail" {
		t.Fatalf("order %v; want [first task tail]", o)
	}
	if l.Stats().TailTasksRun != 1 {
		t.Fatalf("tail_tasks_run = %d", l.Stats().TailTasksRun)
	}
}

func TestBoundedQueueRejects(t *testing.T) {
	leakCheck(t)
	l, err := NewEventLoop("worker-0", "worker", Config{QueueCapacity: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	block := make(chan struct{})
	_ = l.Execute(func() { <-block })
	var rejected int
	for i := 0; i < 100; i++ {
		if err := l.Execute(func() {}); errors.Is(err, ErrRejected) {
			rejected++
		}
	}
	close(block)
	if rejected == 0 || l.Stats().TasksRejected != int64(rejected) {
		t.Fatalf("rejected %d, counter %d", rejected, l.Stats().TasksRejected)
	}
}

// A tail task does not start a loop's thread
// (SingleThreadEventLoop.executeAfterEventLoopIteration has no startThread):
// it waits on a loop that never started, and runs after the batch of the
// first task that starts it.
func TestTailTaskDoesNotStartTheThread(t *testing.T) {
	leakCheck(t)
	l := newLoop(t, Config{})
	ran := make(chan string, 2)
	if err := l.ExecuteAfterEventLoopIteration("tail", func() { ran <- "tail" }); err != nil {
		t.Fatal(err)
	}
	if s := l.State(); s != trace.StateNotStarted || l.TID() != 0 {
		t.Fatalf("after a tail task: state %v, tid %d; want not started", s, l.TID())
	}
	if err := l.Execute(func() { ran <- "task" }); err != nil {
		t.Fatal(err)
	}
	if a, b := <-ran, <-ran; a != "task" || b != "tail" {
		t.Fatalf("ran %s then %s; want task then tail", a, b)
	}
}
