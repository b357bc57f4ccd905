//go:build linux && !nolive

package reactor

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// A loop that waits out its idle timeout (or, under 4.1.44+, which has
// none, waits a second until a task wakes it) makes no premature return
// there under any design: 4.1.43 and 4.2's NIO count in
// select(oldWakenUp), where a timeout is no premature return, and
// EpollIoHandler.run of 4.2 counts nothing at all. Its trace says what its
// counters say, so a replay agrees with the run. (4.1.44+ may count one
// return as its thread starts: the first Execute's wakeup can reach a loop
// that already ran the task and blocked, as in Netty.)
func TestIdleTimeoutIsNoPrematureReturn(t *testing.T) {
	leakCheck(t)
	cases := []struct {
		name string
		cfg  Config
	}{
		{"4.1.43", Config{}},
		{"4.1 epoll", Config{Netty: Netty41, Selector: SelectorEpoll}},
		{"4.2 nio", Config{Netty: Netty42}},
		{"4.2 epoll", Config{Netty: Netty42, Selector: SelectorEpoll}},
		{"4.2 io_uring", uringCfg},
	}
	t.Run("group", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if tc.cfg.Selector == SelectorIOUring {
					skipWithoutIOUring(t)
				}
				t.Parallel()
				coll, rec := newTraced(t)
				tc.cfg.Collector = coll
				l := startedLoop(t, tc.cfg)
				time.Sleep(schedulePurgeInterval*time.Nanosecond + 300*time.Millisecond)
				onLoop(t, l, func() {})
				coll.Settle()
				idx := loopIndex(t, coll, "worker-0")
				live := l.Stats().Premature
				replay := rec.fold(idx, "worker-0").Premature
				if live != replay {
					t.Errorf("premature returns: live %d, trace %d", live, replay)
					for _, e := range rec.snapshot() {
						t.Logf("%+v", e)
					}
				}
				idle := 0
				for _, e := range rec.ofKind(idx, trace.KindSelectEnd) {
					if e.B < int64(900*time.Millisecond) {
						continue
					}
					idle++
					if e.Flag || e.C > 1 {
						t.Errorf("the idle wait's select_end: premature %v, select_cnt %d", e.Flag, e.C)
					}
				}
				if idle == 0 {
					t.Errorf("no select waited out the idle second: %+v", rec.ofKind(idx, trace.KindSelectEnd))
				}
			})
		}
	})
}

// A return that selected nothing, with no task and no timer due, is a
// premature one where the design counts them: the injected always-ready
// fd makes such returns under 4.1.43's and 4.2's NIO select. Native epoll
// deletes the unknown fd on its first report; 4.1.44+ counts that one
// return (run() sees an iteration that selected and ran nothing), 4.2's
// EpollIoHandler none. Whatever the count, the trace's equals the loop's.
func TestPrematureReturnsTraceEqualsLive(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name    string
		cfg     Config
		some    bool // the design counts some premature returns
		epollID bool
	}{
		{"4.1.43", Config{RebuildThreshold: 8}, true, false},
		{"4.1 epoll", Config{Netty: Netty41, Selector: SelectorEpoll}, true, true},
		{"4.2 nio", Config{Netty: Netty42, RebuildThreshold: 8}, true, false},
		{"4.2 epoll", Config{Netty: Netty42, Selector: SelectorEpoll}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			coll, rec := newTraced(t)
			tc.cfg.Collector = coll
			l := startedLoop(t, tc.cfg)
			if err := l.InjectSpuriousWakeups(); err != nil {
				t.Fatal(err)
			}
			idx := loopIndex(t, coll, "worker-0")
			if tc.epollID {
				waitFor(t, "a select after the injection", func() bool {
					coll.Settle()
					injected := false
					for _, e := range rec.snapshot() {
						switch {
						case e.Loop != idx:
						case e.Kind == trace.KindInject:
							injected = true
						case injected && e.Kind == trace.KindSelectEnd:
							return true
						}
					}
					return false
				})
			} else {
				waitFor(t, "a rebuild", func() bool { return l.Stats().Rebuilds > 0 })
			}
			onLoop(t, l, func() {})
			coll.Settle()
			live := l.Stats().Premature
			replay := rec.fold(idx, "worker-0").Premature
			if live != replay {
				t.Fatalf("premature returns: live %d, trace %d", live, replay)
			}
			if (live > 0) != tc.some {
				t.Fatalf("premature returns: %d; want some: %v", live, tc.some)
			}
		})
	}
}

// A loop that shuts itself down (a task calls ShutdownGracefully) writes
// no eventfd and traces no wakeup: wakeup(inEventLoop=true) does nothing
// in any Netty version (NioEventLoop.wakeup checks !inEventLoop; 4.2's
// NioIoHandler, EpollIoHandler and IoUringIoHandler.wakeup check
// isExecutorThread). It still terminates: the WAKEUP_TASK keeps its next
// wait from blocking.
func TestShutdownFromTheLoopWritesNoWakeup(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"4.1.43", Config{}},
		{"4.1 epoll", Config{Netty: Netty41, Selector: SelectorEpoll}},
		{"4.2 epoll", Config{Netty: Netty42, Selector: SelectorEpoll}},
		{"4.2 io_uring", uringCfg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Selector == SelectorIOUring {
				skipWithoutIOUring(t)
			}
			coll, rec := newTraced(t)
			tc.cfg.Collector = coll
			l := startedLoop(t, tc.cfg)
			onLoop(t, l, func() {})
			before := l.Stats()
			onLoop(t, l, func() { l.ShutdownGracefully(0, time.Second) })
			select {
			case <-l.Terminated():
			case <-time.After(5 * time.Second):
				t.Fatal("the loop did not terminate")
			}
			// The one wakeup is the test's Execute of the task that shuts
			// the loop down.
			after := l.Stats()
			if d := after.WakeupsWritten + after.WakeupsCoalesced - before.WakeupsWritten - before.WakeupsCoalesced; d != 1 {
				t.Errorf("%d wakeups from the Execute and the shutdown it ran, want 1 (the Execute's)", d)
			}
			coll.Settle()
			external := 0
			for _, e := range rec.ofKind(loopIndex(t, coll, "worker-0"), trace.KindWakeup) {
				if e.Str == "external" {
					external++
				}
			}
			if want := after.WakeupsWritten + after.WakeupsCoalesced; int64(external) != want {
				t.Errorf("%d external wakeups traced, %d counted", external, want)
			}
		})
	}
}

// 4.2's SingleThreadEventExecutor.startThread calls resetIdleCycles() and
// resetBusyCycles() on every start, from ST_NOT_STARTED as from
// ST_SUSPENDED. A loop the monitor saw idle before its first task starts
// from a count of 0, so it is not suspended in the first idle window after
// it started, while a loop that was idle as long and running is.
func TestFirstStartResetsIdleCycles(t *testing.T) {
	leakCheck(t)
	g, err := NewEventLoopGroup("worker", 2, Config{Netty: Netty42})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.ShutdownGracefully(0, time.Second); g.AwaitTermination(5 * time.Second) })
	a := testAutoScale() // patience 1
	a.MinThreads, a.MaxThreads, a.MaxRampDown = 0, 2, 2
	sc, err := g.enableAutoScale(a)
	if err != nil {
		t.Fatal(err)
	}
	sc.now = hourClock()
	w0, w1 := g.Loops()[0], g.Loops()[1]
	onLoop(t, w0, func() {})
	sc.check() // both idle for one window: patience 1 not yet spent
	if w0.State().Suspended() || w1.State().Suspended() {
		t.Fatal("a loop suspended after one idle window, patience 1")
	}
	onLoop(t, w1, func() {}) // worker-1's first start
	sc.check()
	waitFor(t, "worker-0 suspended", func() bool { return w0.State() == trace.StateSuspended })
	if s := w1.State(); s != trace.StateStarted {
		t.Fatalf("worker-1 is %s in the first idle window after its start, want STARTED", s)
	}
}
