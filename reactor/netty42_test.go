//go:build linux && !nolive

package reactor

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// skipWithoutIOUring skips where the kernel or a policy refuses io_uring.
func skipWithoutIOUring(t *testing.T) {
	t.Helper()
	if err := probeIOUring(); err != nil {
		if errors.Is(err, ErrIOUringUnavailable) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
}

// frozenClock is a loop clock that stands still while the test looks; the
// caller registers unfreeze as a cleanup after the loop's own, so the clock
// runs again for the shutdown, whose quiet period needs time to pass.
func frozenClock() (now func() int64, unfreeze func()) {
	base := trace.NewClock()
	var frozen atomic.Int64
	frozen.Store(base.Now())
	now = func() int64 {
		if v := frozen.Load(); v != 0 {
			return v
		}
		return base.Now()
	}
	return now, func() { frozen.Store(0) }
}

// idleTimeouts returns the timeouts announced by the loop's blocking
// selects or io_uring enters (an enter that only polls announces 0).
func idleTimeouts(coll *trace.Collector, rec *recorder, idx uint16) []int64 {
	coll.Settle()
	var out []int64
	for _, e := range rec.ofKind(idx, trace.KindSelectBegin) {
		if e.Str == "select" || e.Str == "io_uring_enter" && e.A != 0 {
			out = append(out, e.A)
		}
	}
	return out
}

// Every 4.2 handler reads its deadline from the IoHandlerContext, whose
// deadlineNanos() is SingleThreadEventExecutor.deadlineNanos(): now + 1 s
// with nothing scheduled, never -1. So an idle 4.2 loop waits 1 s, under
// NIO, epoll and io_uring alike; 4.1 (4.1.44+) waits with no timeout. The
// clock stands still, so the timeout the trace announces is exact.
func TestIdleWaitPerDesign(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want int64
	}{
		{"4.1.43", Config{}, schedulePurgeInterval},
		{"4.1 epoll", Config{Netty: Netty41, Selector: SelectorEpoll}, -1},
		{"4.2 nio", Config{Netty: Netty42}, schedulePurgeInterval},
		{"4.2 epoll", Config{Netty: Netty42, Selector: SelectorEpoll}, schedulePurgeInterval},
		{"4.2 io_uring", uringCfg, schedulePurgeInterval},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Selector == SelectorIOUring {
				skipWithoutIOUring(t)
			}
			leakCheck(t)
			coll, rec := newTraced(t)
			now, unfreeze := frozenClock()
			tc.cfg.Collector, tc.cfg.Now = coll, now
			startedLoop(t, tc.cfg)
			t.Cleanup(unfreeze)
			idx := loopIndex(t, coll, "worker-0")
			waitFor(t, "an idle wait", func() bool { return len(idleTimeouts(coll, rec, idx)) > 0 })
			if got := idleTimeouts(coll, rec, idx)[0]; got != tc.want {
				t.Fatalf("idle loop: timeout %d ns, want %d", got, tc.want)
			}
		})
	}
}

// blockedInEnter reports whether the loop's thread sleeps in
// io_uring_enter with no wakeup pending.
func blockedInEnter(l *EventLoop) bool {
	if l.woken.Load() {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", l.TID()))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 0 && f[0] == "426" && !l.woken.Load() // io_uring_enter
}

// IoUringIoHandler.wakeup writes the eventfd when
// eventfdAsyncNotify.getAndSet(true) was false, and the loop clears that
// latch only when it handles the eventfd read's completion. A loop that was
// woken, handled that completion and now runs a task is written to once
// more by the first of many submissions, and by none of the rest (4.1.44's
// AWAKE swap would write none: the loop is running).
func TestIOUringWakeupLatch(t *testing.T) {
	skipWithoutIOUring(t)
	leakCheck(t)
	l := startedLoop(t, uringCfg)
	waitFor(t, "loop asleep in io_uring_enter", func() bool { return blockedInEnter(l) })
	running, release := make(chan struct{}), make(chan struct{})
	before := l.Stats()
	if err := l.Execute(func() { close(running); <-release }); err != nil {
		t.Fatal(err)
	}
	<-running
	woke := l.Stats()
	if w := woke.WakeupsWritten - before.WakeupsWritten; w != 1 {
		t.Fatalf("waking the sleeping loop: %d writes, want 1", w)
	}
	const n = 100
	var ran atomic.Int64
	for i := 0; i < n; i++ {
		if err := l.Execute(func() { ran.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	held := l.Stats()
	close(release)
	waitFor(t, "the submissions to run", func() bool { return ran.Load() == n })
	w, c := held.WakeupsWritten-woke.WakeupsWritten, held.WakeupsCoalesced-woke.WakeupsCoalesced
	if w != 1 || c != n-1 {
		t.Fatalf("%d submissions to a busy loop: %d writes, %d coalesced; want 1 and %d", n, w, c, n-1)
	}
}

// IoUringIoHandler.processCompletionsAndHandleOverflow submits what
// handling the completions queued before the I/O phase ends: the echo's
// send leaves in the I/O phase whose recv completion produced it, with an
// enter of its own there, not at the next iteration's enter after the
// task batch.
func TestIOUringRepliesSubmittedInTheIOPhase(t *testing.T) {
	skipWithoutIOUring(t)
	leakCheck(t)
	coll, rec := newTraced(t)
	cfg := uringCfg
	cfg.Collector = coll
	s := startServer(t, 1, 1, cfg, echoInit)
	echoOnce(t, dial(t, s.addr()), "ping")
	w := loopIndex(t, coll, "worker-0")
	// The reply can reach the client before the loop has traced the enter
	// that sent it: look until the I/O phase has ended.
	var outside, entered bool
	waitFor(t, "the I/O phase that read the request to end", func() bool {
		coll.Settle()
		var ended bool
		outside, ended, entered = sendPhase(rec.snapshot(), w)
		return outside || ended
	})
	if outside {
		t.Fatal("the reply's send was submitted outside the I/O phase that read the request")
	}
	if !entered {
		t.Fatal("no enter within the I/O phase submitted the reply")
	}
}

// sendPhase walks a loop's events: whether the first send was submitted
// outside the I/O phase that completed a 4-byte recv, and whether that
// phase has ended, and whether an enter in it submitted the send.
func sendPhase(events []trace.Event, loop uint16) (outside, ended, entered bool) {
	inIO, recvSeen, sent := false, false, false
	for _, e := range events {
		if e.Loop != loop {
			continue
		}
		switch {
		case e.Kind == trace.KindIOBegin:
			inIO, recvSeen = true, false
		case e.Kind == trace.KindIOEnd:
			if sent {
				return false, true, entered
			}
			inIO = false
		case e.Kind == trace.KindRingComplete && e.Str == "recv" && e.B == 4:
			recvSeen = inIO
		case e.Kind == trace.KindRingSubmit && e.Str == "send":
			if !inIO || !recvSeen {
				return true, false, false
			}
			sent = true
		case e.Kind == trace.KindRingEnter && sent && e.A > 0:
			entered = true
		}
	}
	return false, false, false
}

// NioEventLoop.run of 4.1.44+ calls processSelectedKeys only when the
// strategy (the keys selected) is > 0: an iteration woken by a task has
// no I/O phase. So does 4.2's EpollIoHandler.run (processReady only if
// strategy > 0). 4.1.43's run and 4.2's NioIoHandler process keys each
// iteration, with or without any.
func TestIOPhaseOnlyWithKeys(t *testing.T) {
	for _, tc := range []struct {
		flavour    Flavour
		selector   SelectorKind
		emptyPhase bool
	}{{Netty41, SelectorNIO, false}, {Netty4143, SelectorNIO, true}, {Netty42, SelectorNIO, true},
		{Netty42, SelectorEpoll, false}} {
		t.Run(tc.flavour.String()+" "+tc.selector.String(), func(t *testing.T) {
			leakCheck(t)
			coll, rec := newTraced(t)
			l := startedLoop(t, Config{Netty: tc.flavour, Selector: tc.selector, Collector: coll})
			for i := 0; i < 3; i++ {
				waitFor(t, "loop asleep", func() bool { return blockedInEpoll(l) })
				done := make(chan struct{})
				if err := l.Execute(func() { close(done) }); err != nil {
					t.Fatal(err)
				}
				<-done
			}
			coll.Settle()
			idx := loopIndex(t, coll, "worker-0")
			if n := len(rec.ofKind(idx, trace.KindTasksBegin)); n < 3 {
				t.Fatalf("%d task batches, want at least 3", n)
			}
			empty := 0
			for _, e := range rec.ofKind(idx, trace.KindIOEnd) {
				if e.A == 0 {
					empty++
				}
			}
			if (empty > 0) != tc.emptyPhase {
				t.Fatalf("%d I/O phases with no keys; want some: %v", empty, tc.emptyPhase)
			}
		})
	}
}

// holdHandler parks the I/O phase on a "hold" read until release closes,
// and keeps the channel for the test.
type holdHandler struct {
	HandlerAdapter
	ch      chan *Channel
	release chan struct{}
	holding chan struct{}
}

func (h holdHandler) ChannelRead(ctx *Context, msg []byte) {
	h.ch <- ctx.Channel()
	close(h.holding)
	<-h.release
}

// Netty 4.2's SingleThreadIoEventLoop.run calls ioHandler.prepareToDestroy()
// (it closes the channels) after runIo and before runAllTasks; 4.1's
// NioEventLoop.run runs the tasks first and calls closeAll after them. A
// task queued while the loop is in its I/O phase, together with the
// shutdown, finds its channel closed under 4.2 and still open under 4.1.
func TestShutdownClosesChannelsBeforeTasks(t *testing.T) {
	for _, tc := range []struct {
		flavour    Flavour
		sel        SelectorKind
		openInTask bool
	}{
		{Netty4143, SelectorNIO, true},
		{Netty41, SelectorEpoll, true},
		{Netty42, SelectorNIO, false},
		{Netty42, SelectorEpoll, false},
		{Netty42, SelectorIOUring, false},
	} {
		t.Run(tc.flavour.String()+" "+tc.sel.String(), func(t *testing.T) {
			if tc.sel == SelectorIOUring {
				skipWithoutIOUring(t)
			}
			leakCheck(t)
			h := holdHandler{ch: make(chan *Channel, 1), release: make(chan struct{}), holding: make(chan struct{})}
			s := startServer(t, 1, 1, Config{Netty: tc.flavour, Selector: tc.sel}, func(ch *Channel) {
				ch.Pipeline().AddLast("hold", h)
			})
			c := dial(t, s.addr())
			if _, err := c.Write([]byte("hold")); err != nil {
				t.Fatal(err)
			}
			<-h.holding
			ch, w := <-h.ch, s.worker.Loops()[0]
			w.ShutdownGracefully(0, 5*time.Second)
			active := make(chan bool, 1)
			if err := w.Execute(func() { active <- ch.IsActive() }); err != nil {
				t.Fatal(err)
			}
			close(h.release)
			if got := <-active; got != tc.openInTask {
				t.Fatalf("the channel was open in the task: %v, want %v", got, tc.openInTask)
			}
			<-w.Terminated()
		})
	}
}

// 4.1's NioEventLoop overrides beforeScheduledTaskSubmitted and
// afterScheduledTaskSubmitted: scheduling from outside wakes a loop only
// for a deadline earlier than the one it sleeps until; a later one goes in
// with lazyExecute and waits for the loop to wake anyway. 4.2 overrides
// neither, and every outside schedule wakes the loop.
func TestScheduleFromOutsideWakesOnlyForAnEarlierDeadline(t *testing.T) {
	for _, tc := range []struct {
		cfg         Config
		laterWrites int64
	}{
		{Config{Netty: Netty41, Selector: SelectorEpoll}, 0},
		{Config{Netty: Netty41}, 0},
		{Config{Netty: Netty42, Selector: SelectorEpoll}, 1},
	} {
		t.Run(tc.cfg.Netty.String()+" "+tc.cfg.Selector.String(), func(t *testing.T) {
			leakCheck(t)
			l := startedLoop(t, tc.cfg)
			if _, err := l.Schedule("in an hour", time.Hour, func() {}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the loop asleep with a deadline", func() bool {
				d := l.nextWakeup.Load()
				return blockedInEpoll(l) && d != wakeAwake && d != wakeNone && l.Stats().QueueDepth == 0
			})
			before := l.Stats()
			if _, err := l.Schedule("in two hours", 2*time.Hour, func() {}); err != nil {
				t.Fatal(err)
			}
			later := l.Stats()
			if w := later.WakeupsWritten - before.WakeupsWritten; w != tc.laterWrites {
				t.Fatalf("a later deadline: %d eventfd writes, want %d", w, tc.laterWrites)
			}
			fired := make(chan struct{})
			if _, err := l.Schedule("soon", time.Millisecond, func() { close(fired) }); err != nil {
				t.Fatal(err)
			}
			<-fired
			heapLen := make(chan int, 1)
			_ = l.Execute(func() { heapLen <- len(l.scheduled) })
			if n := <-heapLen; n != 2 {
				t.Fatalf("%d tasks on the heap, want the two far ones", n)
			}
		})
	}
}

// From 4.1.44 on the task sent by an outside schedule is the
// ScheduledFutureTask itself; arriving already due, its run() runs it at
// once, in submission order: execute X1, schedule S in 0 ms, execute X2
// runs X1, S, X2. 4.1.43 adds S to the heap, and runAllTasks fetches it
// only in the next batch, after X2.
func TestDueScheduleFromOutsideRunsInSubmissionOrder(t *testing.T) {
	for _, tc := range []struct {
		flavour Flavour
		want    string
	}{{Netty41, "X1 S X2"}, {Netty42, "X1 S X2"}, {Netty4143, "X1 X2 S"}} {
		t.Run(tc.flavour.String(), func(t *testing.T) {
			leakCheck(t)
			l := startedLoop(t, Config{Netty: tc.flavour})
			running, release := make(chan struct{}), make(chan struct{})
			if err := l.Execute(func() { close(running); <-release }); err != nil {
				t.Fatal(err)
			}
			<-running
			var order []string
			done := make(chan struct{})
			note := func(s string) func() { return func() { order = append(order, s) } }
			_ = l.Execute(note("X1"))
			if _, err := l.Schedule("S", 0, note("S")); err != nil {
				t.Fatal(err)
			}
			_ = l.Execute(note("X2"))
			close(release)
			waitFor(t, "all three", func() bool {
				select {
				case <-done:
					return true
				default:
				}
				_ = l.Execute(func() {
					if len(order) == 3 {
						select {
						case <-done:
						default:
							close(done)
						}
					}
				})
				return false
			})
			if got := strings.Join(order, " "); got != tc.want {
				t.Fatalf("ran %s, want %s", got, tc.want)
			}
		})
	}
}

// shutdownGracefully on a ST_NOT_STARTED executor calls doStartThread():
// under the 4.1 and 4.2 designs a loop that never ran gets a thread to
// shut down, and a task queued to it runs on that thread. The 4.1.43
// design terminates it without one (docs/netty-differences.md).
func TestShutdownStartsANeverStartedLoop(t *testing.T) {
	for _, tc := range []struct {
		flavour Flavour
		thread  bool
	}{{Netty41, true}, {Netty42, true}, {Netty4143, false}} {
		t.Run(tc.flavour.String(), func(t *testing.T) {
			leakCheck(t)
			g, err := NewEventLoopGroup("worker", 4, Config{Netty: tc.flavour})
			if err != nil {
				t.Fatal(err)
			}
			ranOnLoop := make(chan bool, 1)
			l := g.Loops()[2]
			if err := l.ExecuteAfterEventLoopIteration("tail", func() { ranOnLoop <- l.InEventLoop() }); err != nil {
				t.Fatal(err)
			}
			g.ShutdownGracefully(0, time.Second)
			if !g.AwaitTermination(10 * time.Second) {
				t.Fatal("group did not terminate")
			}
			for _, l := range g.Loops() {
				if (l.TID() != 0) != tc.thread {
					t.Fatalf("%s: tid %d after shutdown; want a thread: %v", l.Name(), l.TID(), tc.thread)
				}
			}
			if got := <-ranOnLoop; got != tc.thread {
				t.Fatalf("the queued tail task ran on the loop's thread: %v, want %v", got, tc.thread)
			}
		})
	}
}

// An I/O phase that stops at its round limit leaves the completions it
// reaped last for the next phase, as Netty's stay in the completion
// queue: none is lost. With one round a phase, every phase reaps the
// completions of the sends it submitted and leaves them; a lost send
// completion kept its channel waiting on that send forever.
func TestIOUringRoundLimitLosesNoCompletion(t *testing.T) {
	s := startUringServer(t, 1, echoInit)
	w := s.worker.Loops()[0]
	onLoop(t, w, func() { w.uring.drainRounds = 1 })
	const conns, trips = 16, 200
	errs := make(chan error, conns)
	for c := 0; c < conns; c++ {
		conn := dial(t, s.addr())
		go func() { errs <- echoTrips(conn, trips) }()
	}
	for c := 0; c < conns; c++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// echoTrips sends trips short messages one after another, each after the
// echo of the last, on conn.
func echoTrips(conn net.Conn, trips int) error {
	buf := make([]byte, 8)
	for i := 0; i < trips; i++ {
		msg := fmt.Sprintf("trip%04d", i)
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(conn, msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(conn, buf); err != nil {
			return fmt.Errorf("trip %d: %w", i, err)
		}
		if string(buf) != msg {
			return fmt.Errorf("trip %d: got %q", i, buf)
		}
	}
	return nil
}
