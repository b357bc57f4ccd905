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

// One key ready for CONNECT, WRITE and READ at once is handled in Netty's
// order within one call (C21, NioEventLoop.processSelectedKey): a client
// channel queues a write before its connect completes; the server writes
// first and half-closes; the client loop is busy while both arrive, so one
// epoll_wait returns OUT|RDHUP for the connecting key. Its trace shows
// connect, then the queued write, then the read, in one I/O phase. Under
// nio semantics RDHUP is not asked for: the key is selected for OUT only,
// the same call does connect then write, and the read waits for the next
// select.
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
	coll.Flush()
	idx := loopIndex(t, coll, "client-0")
	regs := rec.ofKind(idx, trace.KindRegister)
	if len(regs) != 1 || regs[0].C != poll.Out {
		t.Skipf("the connect finished at once (register %+v): no key waited on OP_CONNECT", regs)
	}
	id := int64(client.ID())
	var inPhase bool
	var phases int
	var order []trace.Kind
	for _, e := range rec.snapshot() {
		if e.Loop != idx {
			continue
		}
		switch e.Kind {
		case trace.KindIOBegin:
			inPhase, order = true, order[:0]
		case trace.KindIOEnd:
			if len(order) > 0 && order[0] == trace.KindConnect {
				phases++
				if !slices.Equal(order, want) {
					t.Fatalf("the connecting key's I/O phase did %v, want %v", order, want)
				}
			}
			inPhase = false
		case trace.KindConnect, trace.KindWrite, trace.KindRead:
			if inPhase && e.A == id {
				order = append(order, e.Kind)
			}
		}
	}
	if phases != 1 {
		t.Fatalf("%d I/O phases began with the connect, want 1", phases)
	}
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
