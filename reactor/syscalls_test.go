//go:build linux && !nolive

package reactor

import (
	"net"
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	ctr "github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// One message on a settled connection costs the reads its trigger mode
// makes, counted by the engine whether or not a trace is taken:
// edge-triggered, a read that takes it and one that finds the socket
// drained (EAGAIN), since the edge will not be reported again;
// level-triggered, one short read, the next wait reporting anything left,
// unless the message filled the buffer exactly, when only a second read
// can tell. Every case makes one write. A trace has no event for the
// empty read, so only the engine can count it.
func TestReadsPerReadinessCountEAGAIN(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name         string
		cfg          Config
		msg          string
		reads, empty int64
	}{
		{"edge", Config{Selector: SelectorEpoll, Trigger: TriggerEdge}, "hello", 2, 1},
		{"level nio", Config{Selector: SelectorNIO}, "hello", 1, 0},
		{"level epoll", Config{Selector: SelectorEpoll}, "hello", 1, 0},
		{"level, the buffer filled", Config{Selector: SelectorNIO, ReadBufferSize: 64}, strings.Repeat("f", 64), 2, 1},
	} {
		for _, traced := range []bool{false, true} {
			name := tc.name
			if traced {
				name += " traced"
			}
			t.Run(name, func(t *testing.T) {
				cfg := tc.cfg
				if traced {
					cfg.Collector, _ = newTraced(t)
				}
				w, c := echoingWorker(t, cfg)
				d := readsOf(t, w, c, tc.msg)
				if d.Reads != tc.reads || d.EmptyReads != tc.empty || d.Writes != 1 {
					t.Errorf("one message: %d reads, %d of them empty, %d writes; want %d, %d, 1",
						d.Reads, d.EmptyReads, d.Writes, tc.reads, tc.empty)
				}
			})
		}
	}
}

// readsOf sends msg on c, served by w, and returns what the exchange added
// to w's system call counters. The echo comes back after the loop's reads
// (the reply is flushed on channelReadComplete), but its write may be
// counted a moment after the client sees the bytes.
func readsOf(t *testing.T, w *EventLoop, c net.Conn, msg string) ctr.Stats {
	t.Helper()
	before := w.Stats()
	echoOnce(t, c, msg)
	waitFor(t, "the write counted", func() bool { return w.Stats().Writes > before.Writes })
	after := w.Stats()
	return ctr.Stats{Reads: after.Reads - before.Reads, EmptyReads: after.EmptyReads - before.EmptyReads,
		Writes: after.Writes - before.Writes, EpollCtl: after.EpollCtl - before.EpollCtl}
}

// A readiness loop's epoll_ctl calls: the eventfd's registration when the
// loop is made, each channel's when it registers, and its removal when it
// closes; an echo changes no interest, so costs none.
func TestEpollCtlCounted(t *testing.T) {
	leakCheck(t)
	w, c := echoingWorker(t, Config{Selector: SelectorEpoll})
	if got := w.Stats().EpollCtl; got != 2 {
		t.Errorf("after one registration: %d epoll_ctl calls, want 2 (the eventfd, the channel)", got)
	}
	if d := readsOf(t, w, c, "ping"); d.EpollCtl != 0 {
		t.Errorf("an echo made %d epoll_ctl calls", d.EpollCtl)
	}
	c.Close()
	waitFor(t, "the channel closed", func() bool { return w.Stats().Closed == 1 })
	if got := w.Stats().EpollCtl; got != 3 {
		t.Errorf("after the close: %d epoll_ctl calls, want 3 (its removal)", got)
	}
}

// A ring loop counts its io_uring_enter calls as the ring itself does,
// and the entries the kernel took and the completions reaped; it makes no
// read, write or epoll_ctl call of its own. The entries and completions
// fold from its ring_enter events, its shutdown's included; the enters
// are the engine's alone (a ring_enter event is a reap, with an enter or
// without).
func TestIOUringEntersCounted(t *testing.T) {
	leakCheck(t)
	if err := probeIOUring(); err != nil {
		t.Skip(err)
	}
	coll, rec := newTraced(t)
	cfg := uringCfg
	cfg.Collector = coll
	s := startServer(t, 1, 1, cfg, echoInit)
	c := dial(t, s.addr())
	for range 3 {
		echoOnce(t, c, "ping")
	}
	w := s.worker.Loops()[0]
	type counts struct{ engine, ring int64 }
	got := make(chan counts, 1)
	if err := w.Execute(func() {
		got <- counts{w.stats.RingEnters.Load(), int64(w.uring.ring.Stats().Enters)}
	}); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n.engine != n.ring || n.engine == 0 {
		t.Errorf("the loop counted %d enters, its ring %d", n.engine, n.ring)
	}
	s.shutdown()
	st := w.Stats()
	if st.RingSubmitted < 5 || st.RingCompleted < 6 || st.RingEnters < 3 {
		t.Errorf("three echoes: %d enters, %d submitted, %d completed; want at least the eventfd read, a recv and three sends, and their completions",
			st.RingEnters, st.RingSubmitted, st.RingCompleted)
	}
	if st.Reads != 0 || st.Writes != 0 || st.EpollCtl != 0 {
		t.Errorf("a ring loop made %d reads, %d writes, %d epoll_ctl", st.Reads, st.Writes, st.EpollCtl)
	}
	coll.Settle()
	var fold ctr.Stats
	idx := loopIndex(t, coll, "worker-0")
	for _, e := range rec.snapshot() {
		if e.Loop == idx && e.Kind == trace.KindRingEnter {
			fold.Fold(&e, "worker-0")
		}
	}
	if fold.RingSubmitted != st.RingSubmitted || fold.RingCompleted != st.RingCompleted {
		t.Errorf("the trace folds to %d submitted, %d completed; the engine counted %d, %d",
			fold.RingSubmitted, fold.RingCompleted, st.RingSubmitted, st.RingCompleted)
	}
}
