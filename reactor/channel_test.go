package reactor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// The boss accepts; the registration runs as a task on the worker the
// chooser picked, submitted from the boss (C26).
func TestAcceptOnBossRegisterAsTaskOnWorker(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	s := startServer(t, 1, 2, Config{Collector: coll}, echoInit)
	for i := 0; i < 2; i++ {
		echoOnce(t, dial(t, s.addr()), "hi")
	}
	coll.Settle()
	boss := loopIndex(t, coll, "boss-0")
	accepts := rec.ofKind(boss, trace.KindAccept)
	if len(accepts) != 2 {
		t.Fatalf("%d accept events on boss-0, want 2", len(accepts))
	}
	for i, name := range []string{"worker-0", "worker-1"} {
		w := loopIndex(t, coll, name)
		regs := rec.ofKind(w, trace.KindRegister)
		if len(regs) != 1 || regs[0].A != accepts[i].A {
			t.Fatalf("%s: register events %+v; want channel %d", name, regs, accepts[i].A)
		}
		var sub *trace.Event
		for _, e := range rec.ofKind(w, trace.KindTaskSubmit) {
			if e.Str == "register" {
				sub = &e
				break
			}
		}
		if sub == nil || !sub.Flag {
			t.Fatalf("%s: no external register task_submit", name)
		}
	}
}

// Each accept carries the chooser's pick: the counter, 0, 1, 2, … in
// order, and the worker it dealt the channel to, idx & (n-1) of a
// power-of-two group and idx % n of another (C4), which is the loop that
// registers the channel.
func TestAcceptCarriesTheChoosersPick(t *testing.T) {
	for _, workers := range []int{4, 3} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			leakCheck(t)
			coll, rec := newTraced(t)
			s := startServer(t, 1, workers, Config{Collector: coll}, echoInit)
			for range 7 {
				echoOnce(t, dial(t, s.addr()), "hi")
			}
			coll.Settle()
			accepts := rec.ofKind(loopIndex(t, coll, "boss-0"), trace.KindAccept)
			if len(accepts) != 7 {
				t.Fatalf("%d accepts, want 7", len(accepts))
			}
			for i, a := range accepts {
				want := loopIndex(t, coll, fmt.Sprint("worker-", i%workers))
				if !a.Flag || a.E != int64(i) || a.D != int64(want) {
					t.Fatalf("accept %d: chosen %v pick %d worker %d; want true, %d, %d", i, a.Flag, a.E, a.D, i, want)
				}
				regs := rec.ofKind(uint16(a.D), trace.KindRegister)
				if !slices.ContainsFunc(regs, func(r trace.Event) bool { return r.A == a.A }) {
					t.Fatalf("accept %d: channel %d not registered on the loop it names", i, a.A)
				}
			}
		})
	}
}

// A write the kernel cannot take whole arms EPOLLOUT; once the peer reads
// and the rest is flushed, EPOLLOUT is disarmed.
func TestPartialWriteArmsAndDisarmsEpollOut(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	init := func(ch *Channel) {
		ch.Pipeline().AddLast("blast", &activeHook{fn: func(ch *Channel) {
			ch.write(big)
			ch.flush()
		}})
	}
	s := startServer(t, 1, 1, Config{Collector: coll, WriteHighWater: 64 << 20}, init)
	c := dial(t, s.addr())
	w := s.worker.Loops()[0]
	idx := loopIndex(t, coll, "worker-0")
	waitFor(t, "EPOLLOUT armed", func() bool {
		coll.Settle()
		for _, e := range rec.ofKind(idx, trace.KindInterest) {
			if e.C&poll.Out != 0 {
				return true
			}
		}
		return false
	})
	got := make([]byte, len(big))
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read back %v", err)
	}
	waitFor(t, "EPOLLOUT disarmed", func() bool {
		coll.Settle()
		in := rec.ofKind(idx, trace.KindInterest)
		return len(in) > 0 && in[len(in)-1].C&poll.Out == 0 && in[len(in)-1].D&poll.Out != 0
	})
	var partial bool
	for _, e := range rec.ofKind(idx, trace.KindWrite) {
		partial = partial || e.Flag
	}
	if !partial || w.Stats().BytesWritten != int64(len(big)) {
		t.Fatalf("partial=%v bytes_written=%d", partial, w.Stats().BytesWritten)
	}
}

// Edge-triggered, a readiness edge is reported once: the channel must read
// until EAGAIN, re-queueing itself when its 16-read budget runs out.
func TestEdgeTriggeredReadDrains(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	s := startServer(t, 1, 1, Config{Trigger: TriggerEdge, ReadBufferSize: 64, Collector: coll}, echoInit)
	c := dial(t, s.addr())
	msg := string(bytes.Repeat([]byte("e"), 64*16*4)) // needs several 16-read passes
	echoOnce(t, c, msg)
	coll.Settle()
	requeued := 0
	for _, e := range rec.ofKind(loopIndex(t, coll, "worker-0"), trace.KindTaskRun) {
		if e.Str == "epollInReady" {
			requeued++
		}
	}
	if requeued == 0 {
		t.Fatal("edge-triggered read never re-queued itself after its budget")
	}
}

// A client connect: interest OUT (OP_CONNECT) until the connect finishes,
// then read interest and channelActive (C24).
func TestClientConnectOutThenRead(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	s := startServer(t, 1, 1, Config{}, echoInit)
	g, err := NewEventLoopGroup("client", 1, Config{Collector: coll})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { g.ShutdownGracefully(0, time.Second); g.AwaitTermination(10 * time.Second) }()
	got := make(chan []byte, 1)
	var active atomic.Bool
	b := &Bootstrap{Group: g, Init: func(ch *Channel) {
		ch.Pipeline().AddLast("client", &clientHandler{got: got, active: &active})
	}}
	connected := make(chan error, 1)
	if err := b.Connect(s.addr(), func(ch *Channel, err error) {
		if err == nil {
			ch.write([]byte("via the engine's client"))
			ch.flush()
		}
		connected <- err
	}); err != nil {
		t.Fatal(err)
	}
	if err := <-connected; err != nil {
		t.Fatal(err)
	}
	if string(<-got) != "via the engine's client" || !active.Load() {
		t.Fatal("no echo through the client channel")
	}
	coll.Settle()
	idx := loopIndex(t, coll, "client-0")
	regs := rec.ofKind(idx, trace.KindRegister)
	if len(regs) != 1 {
		t.Fatalf("%d register events", len(regs))
	}
	if regs[0].C == poll.Out {
		in := rec.ofKind(idx, trace.KindInterest)
		if len(in) == 0 || in[0].D != poll.Out || in[0].C&poll.Out != 0 {
			t.Fatalf("after OP_CONNECT, interest events %+v; want OUT dropped", in)
		}
		last := in[len(in)-1]
		if last.C != poll.In {
			t.Fatalf("final interest %#x, want IN", last.C)
		}
	} else if regs[0].C != poll.In {
		t.Fatalf("registered with ops %#x", regs[0].C)
	}
}

type clientHandler struct {
	HandlerAdapter
	got    chan []byte
	active *atomic.Bool
	buf    []byte
}

func (h *clientHandler) ChannelActive(ctx *Context) { h.active.Store(true) }
func (h *clientHandler) ChannelRead(ctx *Context, msg []byte) {
	h.buf = append(h.buf, msg...)
	if len(h.buf) >= len("via the engine's client") {
		h.got <- h.buf
	}
}

func TestConnectRefused(t *testing.T) {
	leakCheck(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	g, err := NewEventLoopGroup("client", 1, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { g.ShutdownGracefully(0, time.Second); g.AwaitTermination(10 * time.Second) }()
	res := make(chan error, 1)
	if err := (&Bootstrap{Group: g}).Connect(addr, func(_ *Channel, err error) { res <- err }); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err == nil {
		t.Fatal("connect to a closed port succeeded")
	}
}

// A handler that panics is reported as an exception; the loop and its other
// channels go on.
func TestHandlerPanicIsRecovered(t *testing.T) {
	leakCheck(t)
	init := func(ch *Channel) { ch.Pipeline().AddLast("panicky", &panicky{}) }
	s := startServer(t, 1, 1, Config{}, init)
	bad := dial(t, s.addr())
	io.WriteString(bad, "panic")
	w := s.worker.Loops()[0]
	waitFor(t, "the panic", func() bool { return w.Stats().HandlerPanics == 1 })
	echoOnce(t, dial(t, s.addr()), "still alive")
}

// Edge-triggered, a panic in channelRead cuts the read short of EAGAIN and
// no edge comes again for the rest; the channel queues itself to read on,
// as after a spent read budget, so the bytes behind the panic still arrive.
func TestEdgeTriggeredReadGoesOnAfterAPanic(t *testing.T) {
	leakCheck(t)
	var seen atomic.Int64
	init := func(ch *Channel) { ch.Pipeline().AddLast("panic-once", &panicOnce{seen: &seen}) }
	s := startServer(t, 1, 1, Config{Trigger: TriggerEdge, ReadBufferSize: 64}, init)
	c := dial(t, s.addr())
	const size = 64 * 8 // several reads, all in the socket before the first
	if _, err := c.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	w := s.worker.Loops()[0]
	waitFor(t, "every byte read", func() bool { return seen.Load() == size })
	if p := w.Stats().HandlerPanics; p != 1 {
		t.Fatalf("handler panics = %d, want 1", p)
	}
}

// panicOnce counts what it is given and panics on its first read.
type panicOnce struct {
	HandlerAdapter
	seen *atomic.Int64
}

func (h *panicOnce) ChannelRead(ctx *Context, msg []byte) {
	if h.seen.Add(int64(len(msg))) == int64(len(msg)) {
		panic("first read")
	}
}

type panicky struct{ echoHandler }

func (p *panicky) ChannelRead(ctx *Context, msg []byte) {
	if string(msg) == "panic" {
		panic("handler blew up")
	}
	ctx.Write(msg)
}

// Shutdown: what was submitted before runs; what comes after is rejected
// with a clear error; every loop terminates; nothing leaks.
func TestGracefulShutdown(t *testing.T) {
	leakCheck(t)
	s := startServer(t, 1, 2, Config{}, echoInit)
	echoOnce(t, dial(t, s.addr()), "x")
	w := s.worker.Loops()[0]
	var ran atomic.Int64
	block := make(chan struct{})
	_ = w.Execute(func() { <-block })
	for i := 0; i < 1000; i++ {
		if err := w.Execute(func() { ran.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	sched, _ := w.Schedule("never", time.Hour, func() { t.Error("scheduled task ran at shutdown") })
	s.worker.ShutdownGracefully(50*time.Millisecond, 5*time.Second)
	close(block)
	if !s.worker.AwaitTermination(10 * time.Second) {
		t.Fatal("workers did not terminate")
	}
	if ran.Load() != 1000 {
		t.Fatalf("%d of 1000 tasks submitted before shutdown ran", ran.Load())
	}
	if !sched.Cancelled() {
		t.Fatal("scheduled task not cancelled")
	}
	err := w.Execute(func() {})
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("execute after shutdown: %v, want ErrRejected", err)
	}
	if w.Stats().Channels != 0 || w.State() != trace.StateTerminated {
		t.Fatalf("after shutdown: %d channels, state %v", w.Stats().Channels, w.State())
	}
}

// Tasks racing the shutdown are either run or rejected, never lost.
func TestShutdownRaceNeverLosesATask(t *testing.T) {
	leakCheck(t)
	for round := 0; round < 20; round++ {
		l, err := NewEventLoop("worker-0", "worker", Config{})
		if err != nil {
			t.Fatal(err)
		}
		var accepted, ran atomic.Int64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if l.Execute(func() { ran.Add(1) }) == nil {
					accepted.Add(1)
				}
			}
		}()
		waitFor(t, "some tasks", func() bool { return ran.Load() > 10 })
		l.ShutdownGracefully(0, time.Second)
		<-l.Terminated()
		close(stop)
		<-done
		if accepted.Load() != ran.Load() {
			t.Fatalf("round %d: %d accepted, %d ran", round, accepted.Load(), ran.Load())
		}
	}
}

// readStopper turns reading off from a handler: in channelRead (level-
// triggered) or in channelReadComplete (edge-triggered, where the channel
// has queued itself to read on).
type readStopper struct {
	HandlerAdapter
	inComplete bool
	ch         atomic.Pointer[Channel]
	reads      atomic.Int64
	bytes      atomic.Int64
	completes  chan int64
}

func (h *readStopper) ChannelRead(ctx *Context, msg []byte) {
	h.ch.Store(ctx.Channel())
	h.reads.Add(1)
	h.bytes.Add(int64(len(msg)))
	if !h.inComplete {
		ctx.Channel().SetAutoRead(false)
	}
}

func (h *readStopper) ChannelReadComplete(ctx *Context) {
	if h.inComplete {
		ctx.Channel().SetAutoRead(false)
	}
	select {
	case h.completes <- h.reads.Load():
	default:
	}
}

// A channel stops reading as soon as a handler turns read interest off, as
// Netty's continueReading does once autoRead is off, and picks up the rest
// when it is turned back on.
func TestReadStopsWhenReadInterestIsOff(t *testing.T) {
	for _, tc := range []struct {
		trigger Trigger
		want    int64
	}{
		{TriggerLevel, 1},                 // no read after the one that turned it off
		{TriggerEdge, maxMessagesPerRead}, // the re-queued read does not run
	} {
		t.Run(tc.trigger.String(), func(t *testing.T) {
			leakCheck(t)
			h := &readStopper{inComplete: tc.trigger == TriggerEdge, completes: make(chan int64, 8)}
			init := func(ch *Channel) { ch.Pipeline().AddLast("stop", h) }
			s := startServer(t, 1, 1, Config{Trigger: tc.trigger, ReadBufferSize: 64}, init)
			c := dial(t, s.addr())
			msg := bytes.Repeat([]byte("r"), 64*maxMessagesPerRead*3)
			if _, err := c.Write(msg); err != nil {
				t.Fatal(err)
			}
			if got := <-h.completes; got != tc.want {
				t.Fatalf("%d reads before readComplete, want %d", got, tc.want)
			}
			// Two round trips through the task queue: the second runs after
			// any read the first pass queued.
			w := s.worker.Loops()[0]
			onLoop(t, w, func() {})
			onLoop(t, w, func() {})
			if got := h.reads.Load(); got != tc.want {
				t.Fatalf("%d reads with read interest off, want %d", got, tc.want)
			}
			// The handler turns reading off again after every pass.
			waitFor(t, "the rest once reading is back on", func() bool {
				onLoop(t, w, func() { h.ch.Load().SetAutoRead(true) })
				return h.bytes.Load() == int64(len(msg))
			})
		})
	}
}

// A connection refused by MaxConnections takes no worker turn and no
// channel: the chooser's next pick goes to the next connection it serves.
func TestRefusedConnectionTakesNoWorkerTurn(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	boss, err := NewEventLoopGroup("boss", 1, Config{Collector: coll})
	if err != nil {
		t.Fatal(err)
	}
	worker, err := NewEventLoopGroup("worker", 2, Config{Collector: coll})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{boss: boss, worker: worker}
	t.Cleanup(s.shutdown)
	b := &ServerBootstrap{Boss: boss, Worker: worker, ChildInit: echoInit, MaxConnections: 1}
	if s.ch, err = b.Bind("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	first := dial(t, s.addr())
	echoOnce(t, first, "one")
	refused := dial(t, s.addr())
	refused.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := refused.Read(make([]byte, 1)); err == nil {
		t.Fatal("a connection beyond MaxConnections was served")
	}
	first.Close()
	waitFor(t, "the first connection to close", func() bool { return s.ch.conns.Load() == 0 })
	echoOnce(t, dial(t, s.addr()), "two")
	for i, l := range worker.Loops() {
		if r := l.Stats().Registered; r != 1 {
			t.Fatalf("worker-%d registered %d channels, want 1 each", i, r)
		}
	}
	coll.Settle()
	if n := len(rec.ofKind(loopIndex(t, coll, "boss-0"), trace.KindAccept)); n != 2 || s.ch.Accepted() != 2 {
		t.Fatalf("%d accept events, %d accepted; want 2 and 2", n, s.ch.Accepted())
	}
}

// In a single-reactor group the chooser picks the accepting loop itself, and
// register0 runs inline, inside the I/O phase that accepted the child
// (AbstractChannel.AbstractUnsafe.register), not as a queued task.
func TestRegisterRunsInlineOnTheAcceptingLoop(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	g, err := NewEventLoopGroup("reactor", 1, Config{Collector: coll})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{boss: g, worker: g}
	t.Cleanup(s.shutdown)
	b := &ServerBootstrap{Boss: g, Worker: g, ChildInit: echoInit}
	if s.ch, err = b.Bind("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	echoOnce(t, dial(t, s.addr()), "hi")
	coll.Settle()
	idx := loopIndex(t, coll, "reactor-0")
	inIO, child, registered := false, int64(-1), false
	for _, e := range rec.snapshot() {
		if e.Loop != idx {
			continue
		}
		switch e.Kind {
		case trace.KindIOBegin:
			inIO = true
		case trace.KindIOEnd:
			inIO = false
			if child >= 0 && !registered {
				t.Fatal("the child was not registered in the I/O phase that accepted it")
			}
		case trace.KindAccept:
			child = e.A
		case trace.KindRegister:
			if e.A == child {
				registered = true
				if !inIO {
					t.Fatal("register ran outside the I/O phase")
				}
			}
		case trace.KindTaskSubmit:
			if e.Str == "register" {
				t.Fatal("the registration was queued as a task")
			}
		}
	}
	if !registered {
		t.Fatal("no register event for the accepted child")
	}
}

// A burst of connections that is pending when the boss selects: the NIO
// server channel of 4.1.43 takes one per read, so the burst is worked off
// over several iterations, and from 4.1.69 on (the 4.1 and 4.2 designs) all
// of it (up to 16); the native one, edge-triggered, takes all of it in one
// read, and level-triggered (4.2's only mode) one (see acceptsPerRead).
func TestAcceptsPerRead(t *testing.T) {
	leakCheck(t)
	const burst = 5
	for _, tc := range []struct {
		name     string
		cfg      Config
		perPhase int
	}{
		{"nio", Config{}, 1},
		{"epoll level", Config{Selector: SelectorEpoll}, 1},
		{"epoll edge", Config{Selector: SelectorEpoll, Trigger: TriggerEdge}, burst},
		{"4.1 nio", Config{Netty: Netty41}, burst},
		{"4.1 epoll level", Config{Netty: Netty41, Selector: SelectorEpoll}, 1},
		{"4.1 epoll edge", Config{Netty: Netty41, Selector: SelectorEpoll, Trigger: TriggerEdge}, burst},
		{"4.2 nio", Config{Netty: Netty42}, burst},
		{"4.2 epoll", Config{Netty: Netty42, Selector: SelectorEpoll}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			coll, rec := newTraced(t)
			tc.cfg.Collector = coll
			s := startServer(t, 1, 1, tc.cfg, echoInit)
			boss := s.boss.Loops()[0]
			running, release := make(chan struct{}), make(chan struct{})
			if err := boss.Execute(func() { close(running); <-release }); err != nil {
				t.Fatal(err)
			}
			<-running
			for i := 0; i < burst; i++ {
				dial(t, s.addr()) // complete in the kernel's backlog, unaccepted
			}
			close(release)
			waitFor(t, "the burst to be accepted", func() bool { return s.ch.Accepted() == burst })
			coll.Settle()
			most, n := 0, 0
			for _, e := range rec.snapshot() {
				if e.Loop != loopIndex(t, coll, "boss-0") {
					continue
				}
				switch e.Kind {
				case trace.KindIOBegin:
					n = 0
				case trace.KindAccept:
					n++
					most = max(most, n)
				}
			}
			if most != tc.perPhase {
				t.Fatalf("at most %d accepts in one I/O phase, want %d", most, tc.perPhase)
			}
		})
	}
}

// Level-triggered, the native transport queues another read when the last
// of the 16 reads filled the buffer (AbstractEpollChannel.epollInFinally
// with EpollRecvByteAllocatorHandle.maybeMoreDataToRead); the JDK selector
// leaves the rest to the next select.
func TestLevelTriggeredEpollRequeuesAFullRead(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name    string
		sel     SelectorKind
		requeue bool
	}{{"epoll", SelectorEpoll, true}, {"nio", SelectorNIO, false}} {
		t.Run(tc.name, func(t *testing.T) {
			coll, rec := newTraced(t)
			// 16 reads of 16 bytes take 256 of the 1 KiB sent at once.
			cfg := Config{Collector: coll, Selector: tc.sel, ReadBufferSize: 16}
			s := startServer(t, 1, 1, cfg, echoInit)
			echoOnce(t, dial(t, s.addr()), string(bytes.Repeat([]byte("x"), 1024)))
			coll.Settle()
			requeued := false
			for _, e := range rec.ofKind(loopIndex(t, coll, "worker-0"), trace.KindTaskSubmit) {
				requeued = requeued || e.Str == "epollInReady"
			}
			if requeued != tc.requeue {
				t.Fatalf("epollInReady queued: %v, want %v", requeued, tc.requeue)
			}
		})
	}
}

// A submission names its producer when it is another loop, as the boss's
// register task does; one from a goroutine that is no loop names none,
// and one from the loop itself is not external. The move to SHUTTING_DOWN
// carries the quiet period and the timeout confirmShutdown waits on.
func TestSubmitNamesItsProducerAndShutdownItsQuietPeriod(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	s := startServer(t, 1, 1, Config{Collector: coll}, echoInit)
	echoOnce(t, dial(t, s.addr()), "hi")
	w := s.worker.Loops()[0]
	inner := make(chan error, 1)
	if err := w.ExecuteNamed("outer", func() { inner <- w.ExecuteNamed("inner", func() {}) }); err != nil {
		t.Fatal(err)
	}
	if err := <-inner; err != nil {
		t.Fatal(err)
	}
	s.worker.ShutdownGracefully(30*time.Millisecond, 2*time.Second)
	s.worker.AwaitTermination(10 * time.Second)
	coll.Settle()
	idx, boss := loopIndex(t, coll, "worker-0"), loopIndex(t, coll, "boss-0")
	want := map[string]struct {
		external bool
		producer int64
	}{"register": {true, int64(boss) + 1}, "outer": {true, 0}, "inner": {false, 0}}
	seen := 0
	for _, e := range rec.ofKind(idx, trace.KindTaskSubmit) {
		if w, ok := want[e.Str]; ok {
			seen++
			if e.Flag != w.external || e.C != w.producer {
				t.Errorf("%s: external %v producer %d; want %v, %d", e.Str, e.Flag, e.C, w.external, w.producer)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d submissions traced", seen, len(want))
	}
	var quiet, timeout int64 = -1, -1
	for _, e := range rec.ofKind(idx, trace.KindState) {
		if trace.State(e.B) == trace.StateShuttingDown {
			quiet, timeout = e.D, e.E
		} else if e.D != 0 || e.E != 0 {
			t.Errorf("state %v carries quiet %d timeout %d", trace.State(e.B), e.D, e.E)
		}
	}
	if quiet != int64(30*time.Millisecond) || timeout != int64(2*time.Second) {
		t.Errorf("SHUTTING_DOWN carries quiet %d timeout %d; want 30ms, 2s", quiet, timeout)
	}
}
