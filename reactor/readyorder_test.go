package reactor

import (
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// A connecting key reported with more than OUT is handled in Netty's order
// within one call (C21, NioEventLoop.processSelectedKey; epoll's connect,
// then epollRdHupReady): a client channel queues a write before its
// connect completes; the server writes first and half-closes; the client
// loop is busy while both arrive, so one epoll_wait returns OUT|RDHUP for
// the connecting key. Its trace shows connect, then the queued write (the
// flush that waited on the connect, done as it completes), then the read,
// in one I/O phase. Under nio semantics RDHUP is not asked for: the key is
// selected for OUT only, the same call does connect (and the waiting
// write), and the read waits for the next select.
func TestReadyOpsOrderConnectWriteRead(t *testing.T) {
	for _, tc := range []struct {
		sel  SelectorKind
		want []trace.Kind
	}{
		{SelectorEpoll, []trace.Kind{trace.KindConnect, trace.KindWrite, trace.KindRead}},
		{SelectorNIO, []trace.Kind{trace.KindConnect, trace.KindWrite}},
	} {
		t.Run(tc.sel.String(), func(t *testing.T) { readyOpsOrder(t, tc.sel, tc.want) })
	}
}

func readyOpsOrder(t *testing.T, sel SelectorKind, want []trace.Kind) {
	leakCheck(t)
	coll, rec := newTraced(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	greeted := make(chan struct{})
	heard := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(greeted)
			heard <- err.Error()
			return
		}
		defer c.Close()
		_, _ = io.WriteString(c, "hello")
		_ = c.(*net.TCPConn).CloseWrite() // FIN: RDHUP on the client, no RST
		close(greeted)
		b, _ := io.ReadAll(c)
		heard <- string(b)
	}()

	g, err := NewEventLoopGroup("client", 1, Config{Collector: coll, Selector: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { g.ShutdownGracefully(0, time.Second); g.AwaitTermination(10 * time.Second) }()
	got := make(chan []byte, 1)
	var client *Channel
	b := &Bootstrap{Group: g, Init: func(ch *Channel) {
		client = ch
		ch.Pipeline().AddLast("client", &greetingReader{got: got})
		// Queued while connecting: flush waits, as the channel's interest
		// is OUT (OP_CONNECT).
		ch.write([]byte("queued"))
		ch.flush()
		// The loop stays busy, before its next select, until the connect is
		// done and the server has written and half-closed: that select sees
		// all of it at once.
		select {
		case <-greeted:
		case <-time.After(5 * time.Second):
		}
		time.Sleep(20 * time.Millisecond)
	}}
	if err := b.Connect(ln.Addr().String(), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if string(b) != "hello" {
			t.Fatalf("client read %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client never read the greeting")
	}
	if s := <-heard; s != "queued" {
		t.Fatalf("server heard %q, want the queued write", s)
	}
	coll.Settle()
	phases := connectPhases(t, rec, loopIndex(t, coll, "client-0"), client)
	if len(phases) != 1 {
		t.Fatalf("%d I/O phases began with the connect, want 1", len(phases))
	}
	if !slices.Equal(phases[0], want) {
		t.Fatalf("the connecting key's I/O phase did %v, want %v", phases[0], want)
	}
}

// The call that finishes a connect makes no write step: Netty's key of a
// connecting channel is CONNECT-ready only (NIO's readyOps is OP_CONNECT,
// epoll's epollOutReady finishes the connect or flushes). A channelActive
// write too big for the socket leaves the rest for the next select's OUT
// readiness: the connect's I/O phase makes that one write, not a second
// attempt, and the rest still goes out.
func TestConnectCallMakesNoWriteStep(t *testing.T) {
	for _, sel := range []SelectorKind{SelectorEpoll, SelectorNIO} {
		t.Run(sel.String(), func(t *testing.T) { connectCallWrites(t, sel) })
	}
}

func connectCallWrites(t *testing.T, sel SelectorKind) {
	leakCheck(t)
	coll, rec := newTraced(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	big := make([]byte, 32<<20) // more than loopback's socket buffers hold
	wrote := make(chan struct{})
	heard := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			heard <- -1
			return
		}
		defer c.Close()
		<-wrote // the first write fills the buffers: the server reads nothing yet
		n, _ := io.Copy(io.Discard, io.LimitReader(c, int64(len(big))))
		heard <- n
	}()

	g, err := NewEventLoopGroup("client", 1, Config{Collector: coll, Selector: sel})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { g.ShutdownGracefully(0, time.Second); g.AwaitTermination(10 * time.Second) }()
	var client *Channel
	b := &Bootstrap{Group: g, Init: func(ch *Channel) {
		client = ch
		ch.Pipeline().AddLast("client", &activeHook{fn: func(ch *Channel) {
			ch.write(big)
			ch.flush()
			close(wrote)
		}})
	}}
	if err := b.Connect(ln.Addr().String(), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-heard:
		if n != int64(len(big)) {
			t.Fatalf("server read %d bytes, want %d", n, len(big))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server never read the whole write")
	}
	coll.Settle()
	idx := loopIndex(t, coll, "client-0")
	if w := rec.ofKind(idx, trace.KindWrite); len(w) == 0 || !w[0].Flag {
		t.Skipf("the socket took channelActive's whole write (%+v): nothing was left for a write step", w)
	}
	phases := connectPhases(t, rec, idx, client)
	if want := []trace.Kind{trace.KindConnect, trace.KindWrite}; len(phases) != 1 || !slices.Equal(phases[0], want) {
		t.Fatalf("the I/O phases that began with the connect did %v, want one doing %v", phases, want)
	}
}

// connectPhases returns what ch did (connect, write, read), in order, in
// each I/O phase of loop idx that began with its connect. It skips the
// test when the connect finished at once, with no key waiting on
// OP_CONNECT (never seen on loopback).
func connectPhases(t *testing.T, rec *recorder, idx uint16, ch *Channel) [][]trace.Kind {
	t.Helper()
	if regs := rec.ofKind(idx, trace.KindRegister); len(regs) != 1 || regs[0].C != poll.Out {
		t.Skipf("the connect finished at once (register %+v): no key waited on OP_CONNECT", regs)
	}
	id := int64(ch.ID())
	var phases [][]trace.Kind
	var order []trace.Kind
	inPhase := false
	for _, e := range rec.snapshot() {
		if e.Loop != idx {
			continue
		}
		switch e.Kind {
		case trace.KindIOBegin:
			inPhase, order = true, nil
		case trace.KindIOEnd:
			if len(order) > 0 && order[0] == trace.KindConnect {
				phases = append(phases, order)
			}
			inPhase = false
		case trace.KindConnect, trace.KindWrite, trace.KindRead:
			if inPhase && e.A == id {
				order = append(order, e.Kind)
			}
		}
	}
	return phases
}

// greetingReader passes on the first read.
type greetingReader struct {
	HandlerAdapter
	got chan []byte
}

func (h *greetingReader) ChannelRead(_ *Context, msg []byte) {
	select {
	case h.got <- append([]byte(nil), msg...):
	default:
	}
}
