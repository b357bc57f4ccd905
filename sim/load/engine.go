package load

import (
	"time"

	"github.com/reactorviz/reactorviz/reactor"
)

// StartEngine opens the group's connections through the engine's own client
// bootstrap on group: each connect is non-blocking, waits on OP_CONNECT,
// then reads (C24). Requests at a fixed rate are paced by the client loop's
// scheduled tasks, so the client side too is the engine at work.
func StartEngine(spec Spec, group *reactor.EventLoopGroup) (*Group, error) {
	g, err := newGroup(spec)
	if err != nil {
		return nil, err
	}
	for i := 0; i < spec.Connections; i++ {
		conn := spec.First + i
		h := &engineClient{g: g, conn: conn, dialed: g.now()}
		b := &reactor.Bootstrap{Group: group, Init: func(ch *reactor.Channel) {
			ch.Pipeline().AddLast("client", h)
		}}
		g.wg.Add(1)
		err := b.Connect(spec.Addrs[conn%len(spec.Addrs)], func(ch *reactor.Channel, err error) {
			if err != nil {
				g.fail()
				g.wg.Done()
				return
			}
			h.ch = ch
			g.c.conns.Add(1)
			g.onStop(func() { _ = ch.Close() })
		})
		if err != nil {
			g.fail()
			g.wg.Done()
		}
	}
	return g, nil
}

// engineClient is one client connection's handler. It runs on its client
// loop only, so it needs no locks.
type engineClient struct {
	reactor.HandlerAdapter
	g      *Group
	conn   int
	ch     *reactor.Channel
	seq    int // next request to send
	recv   int // next answer expected
	buf    []byte
	start  time.Time
	due    int // answers outstanding in the current batch (closed loop)
	done   bool
	route  *Histogram
	found  bool
	dialed time.Time
	// Open loop: when each sent request was due, oldest first, and when
	// the next batch is.
	sent []time.Time
	next time.Time
}

func (h *engineClient) open() bool { return h.g.spec.Open && h.g.spec.Interval > 0 }

func (h *engineClient) ChannelActive(ctx *reactor.Context) {
	if !h.open() {
		h.send(ctx)
		return
	}
	h.next = h.g.now().Add(h.g.spec.Interval)
	h.scheduleTick(ctx)
}

func (h *engineClient) finished() bool {
	return h.done || h.g.stopped() || (h.g.spec.Requests > 0 && h.seq >= h.g.spec.Requests)
}

func (h *engineClient) batch() []byte {
	var req []byte
	for k := 0; k < h.g.spec.Pipeline; k++ {
		req = h.g.ex.request(req, h.conn, h.seq+k)
	}
	return req
}

func (h *engineClient) send(ctx *reactor.Context) {
	if h.finished() {
		return
	}
	req := h.batch()
	h.due = h.g.spec.Pipeline
	h.start = h.g.now()
	ctx.WriteAndFlush(req)
}

// scheduleTick arms the next open-loop batch as a scheduled task on the
// client loop; a late loop gets delay 0 and catches up.
func (h *engineClient) scheduleTick(ctx *reactor.Context) {
	_, _ = ctx.EventLoop().Schedule("client-send", h.next.Sub(h.g.now()), func() { h.tick(ctx) })
}

// tick sends the batch due at h.next whatever is still unanswered.
func (h *engineClient) tick(ctx *reactor.Context) {
	if h.finished() {
		return
	}
	req := h.batch()
	for k := 0; k < h.g.spec.Pipeline; k++ {
		h.sent = append(h.sent, h.next)
	}
	h.seq += h.g.spec.Pipeline
	ctx.WriteAndFlush(req)
	h.next = h.next.Add(h.g.spec.Interval)
	h.scheduleTick(ctx)
}

func (h *engineClient) routeOnce(ctx *reactor.Context) *Histogram {
	if !h.found {
		h.found = true
		if port := ctx.Channel().LocalPort(); port != 0 {
			h.route = h.g.route(port, h.dialed)
		}
	}
	return h.route
}

func (h *engineClient) ChannelRead(ctx *reactor.Context, msg []byte) {
	h.buf = append(h.buf, msg...)
	if h.open() {
		h.readOpen(ctx)
		return
	}
	n := h.g.ex.responseLen()
	for h.due > 0 && len(h.buf) >= n {
		if !h.answer(ctx, h.seq, h.g.since(h.start)) {
			return
		}
		h.seq++
		h.due--
	}
	if h.due > 0 {
		return
	}
	h.buf = h.buf[:0]
	if iv := h.g.spec.Interval; iv > 0 {
		_, _ = ctx.EventLoop().Schedule("client-send", iv, func() { h.send(ctx) })
		return
	}
	h.send(ctx)
}

// readOpen matches answers to the due times of the requests sent, in
// order: a TCP connection answers in the order it was asked.
func (h *engineClient) readOpen(ctx *reactor.Context) {
	whole, n := h.buf, h.g.ex.responseLen()
	for len(h.sent) > 0 && len(h.buf) >= n {
		if !h.answer(ctx, h.recv, h.g.since(h.sent[0])) {
			return
		}
		h.recv++
		h.sent = h.sent[1:]
	}
	h.buf = append(whole[:0], h.buf...) // keep a partial answer for the next read
}

// answer checks the next answer at the head of the buffer and records it.
func (h *engineClient) answer(ctx *reactor.Context, seq int, took time.Duration) bool {
	n := h.g.ex.responseLen()
	if !h.g.ex.check(h.buf[:n], h.conn, seq) {
		h.g.fail()
		h.done = true
		ctx.Close()
		return false
	}
	h.g.record(took, n, h.routeOnce(ctx))
	h.buf = h.buf[n:]
	return true
}

func (h *engineClient) ChannelInactive(ctx *reactor.Context) {
	if !h.done {
		h.done = true
		if !h.g.stopped() {
			h.g.fail()
		}
		h.g.wg.Done()
	}
}

func (h *engineClient) ExceptionCaught(ctx *reactor.Context, err error) {}
