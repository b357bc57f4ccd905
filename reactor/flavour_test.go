package reactor

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

func startedLoop(t *testing.T, cfg Config) *EventLoop {
	t.Helper()
	l, err := NewEventLoop("worker-0", "worker", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() })
	if err := l.Execute(func() {}); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestParseFlavour(t *testing.T) {
	for _, f := range []Flavour{Netty4143, Netty41, Netty42} {
		if g, err := ParseFlavour(f.String()); err != nil || g != f {
			t.Fatalf("ParseFlavour(%q) = %v, %v", f.String(), g, err)
		}
	}
	if _, err := ParseFlavour("5.0"); err == nil {
		t.Fatal("5.0 accepted")
	}
}

// 4.1.44+: a loop blocked until a deadline has published it; N submissions
// while it runs the first cost one eventfd write, because only the first
// swaps AWAKE into nextWakeupNanos.
func TestNetty41SubmitToBlockedLoopWritesOnce(t *testing.T) {
	leakCheck(t)
	l := startedLoop(t, Config{Netty: Netty41})
	f, err := l.Schedule("far", time.Hour, func() {})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "loop asleep until the deadline", func() bool {
		return blockedInEpoll(l) && l.nextWakeup.Load() == f.deadline
	})
	before := l.Stats()
	release := make(chan struct{})
	var ran atomic.Int64
	_ = l.Execute(func() { <-release; ran.Add(1) })
	const n = 20
	for i := 0; i < n-1; i++ {
		_ = l.Execute(func() { ran.Add(1) })
	}
	close(release)
	waitFor(t, "all tasks", func() bool { return ran.Load() == n })
	st := l.Stats()
	if w, c := st.WakeupsWritten-before.WakeupsWritten, st.WakeupsCoalesced-before.WakeupsCoalesced; w != 1 || c != n-1 {
		t.Fatalf("%d submissions: %d writes, %d coalesced; want 1 and %d", n, w, c, n-1)
	}
}

// A task offered after the select's first hasTasks() but before the
// deadline is published sees AWAKE and writes nothing; the re-check after
// the publish finds it, so the loop does not block (here it would block
// forever: nothing is scheduled).
func TestNetty41RecheckSeesRacingSubmit(t *testing.T) {
	leakCheck(t)
	l, err := NewEventLoop("worker-0", "worker", Config{Netty: Netty41})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() })
	var armed atomic.Bool
	ran := make(chan struct{})
	var selectsAtRace int64
	l.beforePublish = func() {
		if !armed.CompareAndSwap(true, false) {
			return
		}
		selectsAtRace = l.stats.Selects.Load()
		done := make(chan struct{})
		go func() { _ = l.Execute(func() { close(ran) }); close(done) }()
		<-done
	}
	if err := l.Execute(func() {}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "loop asleep", func() bool { return blockedInEpoll(l) })
	armed.Store(true)
	// This wakes the loop; its next select meets the racing submission.
	before := l.Stats()
	if err := l.Execute(func() {}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the racing task never ran: the loop blocked")
	}
	st := l.Stats()
	if w := st.WakeupsWritten - before.WakeupsWritten; w != 1 {
		t.Fatalf("%d eventfd writes; want 1 (the racing submit saw AWAKE)", w)
	}
	if armed.Load() || selectsAtRace == 0 {
		t.Fatal("the race hook did not run")
	}
}

func TestNetty41SelectTimeoutRoundsUp(t *testing.T) {
	for _, tc := range []struct {
		delay int64
		want  int
	}{
		{delay: 1_200_000, want: 2},
		{delay: 1_000_000, want: 1},
		{delay: 1_005_000, want: 2},
		{delay: 4_000, want: 0}, // within 5 µs… of a millisecond: poll
		{delay: 5_000, want: 1},
		{delay: -3_000_000, want: 0},
	} {
		if got := selectTimeoutMillis(1e9+tc.delay, 1e9); got != tc.want {
			t.Errorf("delay %d ns: timeout %d ms, want %d", tc.delay, got, tc.want)
		}
	}
	if got := selectTimeoutMillis(wakeNone, 1e9); got != -1 {
		t.Errorf("nothing scheduled: timeout %d, want -1", got)
	}
}

// selectTimeouts returns the timeouts of the blocking selects the loop
// has announced.
func selectTimeouts(coll *trace.Collector, rec *recorder, idx uint16) []int64 {
	coll.Settle()
	var out []int64
	for _, e := range rec.ofKind(idx, trace.KindSelectBegin) {
		if e.Str == "select" {
			out = append(out, e.A)
		}
	}
	return out
}

// On the real loop with a clock that stands still: a timer 1.2 ms away is
// waited for 2 ms under 4.1 (rounded up) and 1 ms under 4.1.43 (rounded
// to the nearest); with an empty heap 4.1 waits with no timeout and 4.1.43
// for SCHEDULE_PURGE_INTERVAL.
func TestSelectTimeoutPerFlavour(t *testing.T) {
	for _, tc := range []struct {
		flavour      Flavour
		timer, empty int64
	}{
		{Netty41, 2_000_000, -1},
		{Netty4143, 1_000_000, schedulePurgeInterval},
	} {
		t.Run(tc.flavour.String(), func(t *testing.T) {
			leakCheck(t)
			coll, rec := newTraced(t)
			// Frozen while the test looks; real again for the shutdown,
			// whose quiet period needs time to pass.
			base := trace.NewClock()
			var frozen atomic.Int64
			frozen.Store(base.Now())
			now := func() int64 {
				if v := frozen.Load(); v != 0 {
					return v
				}
				return base.Now()
			}
			l := startedLoop(t, Config{Netty: tc.flavour, Collector: coll, Now: now})
			t.Cleanup(func() { frozen.Store(0) })
			idx := loopIndex(t, coll, "worker-0")
			waitFor(t, "an idle select", func() bool { return len(selectTimeouts(coll, rec, idx)) > 0 })
			if got := selectTimeouts(coll, rec, idx)[0]; got != tc.empty {
				t.Fatalf("empty heap: timeout %d, want %d", got, tc.empty)
			}
			n := len(selectTimeouts(coll, rec, idx))
			if _, err := l.Schedule("t", 1200*time.Microsecond, func() {}); err != nil {
				t.Fatal(err)
			}
			// An idle select that was already under way, or timed out in
			// real time meanwhile, may come first: take the first select
			// after the schedule that is not an idle one.
			var got int64
			waitFor(t, "a select with the timer", func() bool {
				for _, to := range selectTimeouts(coll, rec, idx)[n:] {
					if to != tc.empty {
						got = to
						return true
					}
				}
				return false
			})
			if got != tc.timer {
				t.Fatalf("timer 1.2 ms away: timeout %d, want %d", got, tc.timer)
			}
		})
	}
}

// Under 4.1 the premature returns are counted by run(), and
// unexpectedSelectorWakeup rebuilds at the threshold, once.
func TestNetty41RebuildCountedInRun(t *testing.T) {
	leakCheck(t)
	s := startServer(t, 1, 1, Config{Netty: Netty41}, echoInit)
	conns := []net.Conn{dial(t, s.addr()), dial(t, s.addr())}
	for _, c := range conns {
		echoOnce(t, c, "before")
	}
	w := s.worker.Loops()[0]
	awaitWakeups(t, w)
	waitFor(t, "worker asleep in select", func() bool { return blockedInEpoll(w) })
	before := w.Stats()
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a rebuild", func() bool { return w.Stats().Rebuilds >= 1 })
	waitFor(t, "worker asleep again", func() bool { return blockedInEpoll(w) })
	st := w.Stats()
	// Premature counts every iteration that neither selected nor ran a
	// task, also the odd one a late eventfd edge causes (which the next
	// task resets); the rebuild comes at exactly 512 in a row.
	if p := st.Premature - before.Premature; st.Rebuilds != 1 || p < DefaultRebuildThreshold || st.MaxSelectCnt != DefaultRebuildThreshold {
		t.Fatalf("rebuilds=%d premature=+%d max_select_cnt=%d; want 1, >= 512, 512", st.Rebuilds, p, st.MaxSelectCnt)
	}
	if st.Migrated != 2 {
		t.Fatalf("migrated %d, want 2", st.Migrated)
	}
	for _, c := range conns {
		echoOnce(t, c, "after the rebuild")
	}
}

// firstBatchRan runs a flood of n tasks in one batch under cfg, with a
// clock that jumps by step at each read, and returns how many tasks the
// first batch ran and whether it stopped at its deadline.
func firstBatchRan(t *testing.T, cfg Config, step time.Duration, n int) (int64, bool) {
	t.Helper()
	coll, rec := newTraced(t)
	clk := &stepClock{base: trace.NewClock(), step: int64(step), counter: new(atomic.Int64)}
	cfg.Now, cfg.Collector = clk.now, coll
	l, err := NewEventLoop("worker-0", "worker", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	runBatch(t, l, clk, n)
	idx := loopIndex(t, coll, "worker-0")
	var ends []trace.Event
	waitFor(t, "a tasks_end", func() bool {
		coll.Settle()
		ends = rec.ofKind(idx, trace.KindTasksEnd)
		return len(ends) > 0
	})
	return ends[0].A, ends[0].Flag
}

// 4.2 runs tasks for the quantum, whatever the I/O took: with the clock
// moving 40 ms per 64-task check, a 100 ms quantum is found spent at task
// 192 (the checks at 64 and 128 see 40 and 80 ms). ioRatio is ignored: 1
// changes nothing. 4.1.43 with no I/O has a budget of about 0 and stops
// at 64.
func TestNetty42TaskQuantum(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name string
		cfg  Config
		want int64
	}{
		{"4.2 quantum 100ms", Config{Netty: Netty42, TaskQuantum: 100 * time.Millisecond}, 192},
		{"4.2 ioRatio ignored", Config{Netty: Netty42, TaskQuantum: 100 * time.Millisecond, IORatio: 1}, 192},
		{"4.2 quantum floored", Config{Netty: Netty42, TaskQuantum: time.Millisecond}, 192},
		{"4.1.43 ioRatio 50", Config{}, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran, hit := firstBatchRan(t, tc.cfg, 40*time.Millisecond, 500)
			if ran != tc.want || !hit {
				t.Fatalf("first batch ran %d tasks (deadline hit %v); want %d, cut by the deadline", ran, hit, tc.want)
			}
		})
	}
}

func TestNetty42QuantumDefault(t *testing.T) {
	c, err := Config{Netty: Netty42}.withDefaults()
	if err != nil || c.TaskQuantum != DefaultTaskQuantum {
		t.Fatalf("quantum %v, %v; want 1s", c.TaskQuantum, err)
	}
}

// 4.2's epoll handler is level-triggered only: edge is refused, level
// registrations carry no EPOLLET, and the loop blocks through
// nextWakeupNanos like 4.1.44+, with a deadline even when idle.
func TestNetty42EpollLevelOnly(t *testing.T) {
	leakCheck(t)
	for _, sel := range []SelectorKind{SelectorEpoll, SelectorNIO} {
		if _, err := NewEventLoop("w", "g", Config{Netty: Netty42, Selector: sel, Trigger: TriggerEdge}); err == nil {
			t.Fatalf("4.2 %v accepted edge-triggered registrations", sel)
		}
	}
	w, c := echoingWorker(t, Config{Netty: Netty42, Selector: SelectorEpoll})
	echoOnce(t, c, "level")
	var ev uint32
	done := make(chan struct{})
	_ = w.Execute(func() {
		for _, ch := range w.chans {
			if ch != nil {
				ev |= ch.epollEvents()
			}
		}
		close(done)
	})
	<-done
	if ev&poll.ET != 0 {
		t.Fatalf("registration events %#x carry EPOLLET", ev)
	}
	// Asleep until a deadline, never NONE: the idle deadline is now + 1 s.
	waitFor(t, "worker asleep", func() bool {
		d := w.nextWakeup.Load()
		return blockedInEpoll(w) && d != wakeNone && d != wakeAwake
	})
	if _, ok := w.design.(design42).ioHandler.(nextWakeupSelect); !ok {
		t.Fatalf("4.2 epoll handler is %T", w.design.(design42).ioHandler)
	}
}

// 4.2 NIO keeps the classic select inside NioIoHandler: the same rebuild
// at 512 premature returns counted by select itself.
func TestNetty42NIORebuildsLike4143(t *testing.T) {
	leakCheck(t)
	w, _ := echoingWorker(t, Config{Netty: Netty42})
	waitFor(t, "worker asleep in select", func() bool { return blockedInEpoll(w) })
	before := w.Stats()
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a rebuild", func() bool { return w.Stats().Rebuilds >= 1 })
	waitFor(t, "worker asleep again", func() bool { return blockedInEpoll(w) })
	st := w.Stats()
	if p := st.Premature - before.Premature; st.Rebuilds != 1 || p != DefaultRebuildThreshold {
		t.Fatalf("rebuilds=%d premature=+%d; want 1, 512", st.Rebuilds, p)
	}
}
