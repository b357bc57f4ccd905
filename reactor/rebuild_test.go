package reactor

import (
	"errors"
	"net"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// Injected spurious wakeups: exactly threshold premature returns lead to
// exactly one rebuild, the channels move to the new epoll instance and still
// echo, and the storm ends because the fault stayed with the old instance.
func TestSpuriousWakeupsRebuildOnceAtThreshold(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threshold int
	}{
		{name: "default 512", threshold: 0},
		{name: "threshold 64", threshold: 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			want := int64(tc.threshold)
			if want == 0 {
				want = DefaultRebuildThreshold
			}
			s := startServer(t, 1, 1, Config{RebuildThreshold: tc.threshold}, echoInit)
			conns := []net.Conn{dial(t, s.addr()), dial(t, s.addr())}
			for _, c := range conns {
				echoOnce(t, c, "before")
			}
			w := s.worker.Loops()[0]
			awaitWakeups(t, w)
			waitFor(t, "worker asleep in select", func() bool { return blockedInEpoll(w) })
			if err := w.InjectSpuriousWakeups(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "a rebuild", func() bool { return w.Stats().Rebuilds >= 1 })
			waitFor(t, "worker asleep again", func() bool { return blockedInEpoll(w) })
			st := w.Stats()
			if st.Rebuilds != 1 || st.Premature != want || st.MaxSelectCnt != want {
				t.Fatalf("rebuilds=%d premature=%d max_select_cnt=%d; want 1, %d, %d",
					st.Rebuilds, st.Premature, st.MaxSelectCnt, want, want)
			}
			if st.Migrated != 2 {
				t.Fatalf("migrated %d channels, want 2", st.Migrated)
			}
			for _, c := range conns {
				echoOnce(t, c, "after the rebuild")
			}
			if st2 := w.Stats(); st2.Rebuilds != 1 || st2.Premature != want {
				t.Fatalf("storm went on: rebuilds=%d premature=%d", st2.Rebuilds, st2.Premature)
			}
		})
	}
}

func TestSpuriousWakeupsBelowThreeNeverRebuild(t *testing.T) {
	leakCheck(t)
	w, c := echoingWorker(t, Config{RebuildThreshold: 2})
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a long storm", func() bool { return w.Stats().Premature > 5000 })
	if r := w.Stats().Rebuilds; r != 0 {
		t.Fatalf("rebuilds = %d with threshold 2; want 0 (disabled)", r)
	}
	echoOnce(t, c, "still serving while spinning")
}

// Under epoll semantics an unknown ready fd is deleted on first sight, so
// the injected fault costs one wakeup and nothing spins.
func TestSpuriousWakeupsUnderEpollSemanticsAreDeleted(t *testing.T) {
	leakCheck(t)
	w, _ := echoingWorker(t, Config{Selector: SelectorEpoll})
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the injection", func() bool { return w.Stats().Injected == 1 })
	waitFor(t, "worker asleep", func() bool { return blockedInEpoll(w) })
	if st := w.Stats(); st.Rebuilds != 0 || st.Premature > 1 {
		t.Fatalf("rebuilds=%d premature=%d; want 0 and at most 1", st.Rebuilds, st.Premature)
	}
}

// The JDK epoll bug on real sockets: a channel with interest 0 whose peer
// resets. Under nio the masked ready set is empty, select returns 0 at once,
// forever, and the loop rebuilds; under epoll the channel reads the error
// and closes, and nothing spins.
func TestJDKEpollBugOnRealSockets(t *testing.T) {
	for _, tc := range []struct {
		name     string
		selector SelectorKind
	}{
		{name: "nio spins and rebuilds", selector: SelectorNIO},
		{name: "epoll closes the channel", selector: SelectorEpoll},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			active := make(chan *Channel, 1)
			init := func(ch *Channel) {
				ch.Pipeline().AddLast("zero", &activeHook{fn: func(ch *Channel) {
					ch.InjectInterestZero()
					active <- ch
				}})
			}
			s := startServer(t, 1, 1, Config{Selector: tc.selector}, init)
			conn := dial(t, s.addr())
			ch := <-active
			w := s.worker.Loops()[0]
			resetConn(t, conn)
			if tc.selector == SelectorEpoll {
				waitFor(t, "the channel to close", func() bool { return w.Stats().Closed == 1 })
				waitFor(t, "worker asleep", func() bool { return blockedInEpoll(w) })
				if st := w.Stats(); st.Rebuilds != 0 || st.Premature > 1 {
					t.Fatalf("rebuilds=%d premature=%d; want no spin", st.Rebuilds, st.Premature)
				}
				return
			}
			waitFor(t, "a rebuild", func() bool { return w.Stats().Rebuilds >= 1 })
			if st := w.Stats(); st.Migrated < 1 || st.Closed != 0 {
				t.Fatalf("migrated=%d closed=%d; the live channel should move and stay open", st.Migrated, st.Closed)
			}
			// Turning reads back on lets the channel see the reset and close:
			// the spin stops because its cause is gone, not because of the rebuild.
			if err := w.Execute(func() { ch.SetAutoRead(true) }); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the channel to close", func() bool { return w.Stats().Closed == 1 })
			waitFor(t, "worker asleep", func() bool { return blockedInEpoll(w) })
		})
	}
}

type activeHook struct {
	HandlerAdapter
	fn func(*Channel)
}

func (h *activeHook) ChannelActive(ctx *Context) { h.fn(ctx.Channel()) }

// resetConn closes conn with SO_LINGER 0, so the peer gets an RST.
func resetConn(t *testing.T, conn net.Conn) {
	t.Helper()
	tc := conn.(*net.TCPConn)
	if err := tc.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	tc.Close()
}

// Rebuild events carry the old and new epoll fds and the migration count.
func TestRebuildEvents(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	s := startServer(t, 1, 1, Config{RebuildThreshold: 16, Collector: coll}, echoInit)
	echoOnce(t, dial(t, s.addr()), "x")
	w := s.worker.Loops()[0]
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a rebuild", func() bool { return w.Stats().Rebuilds == 1 })
	idx := loopIndex(t, coll, "worker-0")
	waitFor(t, "rebuild_end", func() bool {
		coll.Settle()
		return len(rec.ofKind(idx, trace.KindRebuildEnd)) == 1
	})
	end := rec.ofKind(idx, trace.KindRebuildEnd)[0]
	if end.A != 16 || end.B != 1 || end.C != 0 || end.D == end.E || end.D <= 0 || end.E <= 0 || end.Flag || end.Str != "" {
		t.Fatalf("rebuild_end = %+v; want select_cnt 16, migrated 1, closed 0, distinct fds, not failed", end)
	}
	prem := 0
	for _, e := range rec.ofKind(idx, trace.KindSelectEnd) {
		if e.Flag {
			prem++
			if e.C != int64(prem) {
				t.Fatalf("premature select_end #%d has select_cnt %d", prem, e.C)
			}
		}
	}
	if prem != 16 {
		t.Fatalf("%d premature select_end events, want 16", prem)
	}
}

// A rebuild whose new epoll instance cannot be made keeps the old one, as
// Netty does: it counts as a rebuild, and its rebuild_end says it failed and
// why, so the trace's fold counts what the engine counts. Once an instance
// can be made again, the next rebuild moves the channel and the storm ends.
func TestFailedRebuildIsTraced(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	s := startServer(t, 1, 1, Config{RebuildThreshold: 16, Collector: coll}, echoInit)
	conn := dial(t, s.addr())
	echoOnce(t, conn, "x")
	w := s.worker.Loops()[0]
	boom := errors.New("epoll_create1: too many open files")
	onLoop(t, w, func() { w.failPoller = boom })
	if err := w.InjectSpuriousWakeups(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a failed rebuild", func() bool { return w.Stats().Rebuilds >= 1 })
	if st := w.Stats(); st.Migrated != 0 {
		t.Fatalf("a failed rebuild migrated %d channels", st.Migrated)
	}
	onLoop(t, w, func() { w.failPoller = nil })
	waitFor(t, "a rebuild that works", func() bool { return w.Stats().Migrated == 1 })
	waitFor(t, "worker asleep", func() bool { return blockedInEpoll(w) })
	echoOnce(t, conn, "after the rebuild")

	idx := loopIndex(t, coll, "worker-0")
	st := w.Stats()
	waitFor(t, "every rebuild_end", func() bool {
		coll.Settle()
		return int64(len(rec.ofKind(idx, trace.KindRebuildEnd))) == st.Rebuilds
	})
	ends := rec.ofKind(idx, trace.KindRebuildEnd)
	if len(ends) < 2 {
		t.Fatalf("%d rebuild_end events, want a failed one and a good one", len(ends))
	}
	for i, e := range ends {
		ok := i == len(ends)-1
		if ok && (e.Flag || e.Str != "" || e.B != 1 || e.E <= 0) {
			t.Errorf("last rebuild_end = %+v; want a success that migrated 1", e)
		}
		if !ok && (!e.Flag || e.Str != boom.Error() || e.B != 0 || e.D <= 0 || e.E != -1 || e.A != 16) {
			t.Errorf("rebuild_end #%d = %+v; want failed with %q, select_cnt 16, the old fd kept, new_fd -1", i, e, boom)
		}
	}
	fold := rec.fold(idx, "worker-0")
	if fold.Rebuilds != st.Rebuilds || fold.Migrated != st.Migrated {
		t.Errorf("the trace folds to %d rebuilds, %d migrated; the engine counted %d, %d",
			fold.Rebuilds, fold.Migrated, st.Rebuilds, st.Migrated)
	}
}
