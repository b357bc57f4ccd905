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
		h := &engineClient{g: g, conn: conn}
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
	g     *Group
	conn  int
	ch    *reactor.Channel
	seq   int
	buf   []byte
	start time.Time
	due   int // answers outstanding in the current batch
	done  bool
}

func (h *engineClient) ChannelActive(ctx *reactor.Context) { h.send(ctx) }

func (h *engineClient) send(ctx *reactor.Context) {
	if h.done || h.g.stopped() || (h.g.spec.Requests > 0 && h.seq >= h.g.spec.Requests) {
		return
	}
	var req []byte
	for k := 0; k < h.g.spec.Pipeline; k++ {
		req = h.g.ex.request(req, h.conn, h.seq+k)
	}
	h.due = h.g.spec.Pipeline
	h.start = time.Now()
	ctx.WriteAndFlush(req)
}

func (h *engineClient) ChannelRead(ctx *reactor.Context, msg []byte) {
	h.buf = append(h.buf, msg...)
	n := h.g.ex.responseLen()
	for h.due > 0 && len(h.buf) >= n {
		if !h.g.ex.check(h.buf[:n], h.conn, h.seq) {
			h.g.fail()
			h.done = true
			ctx.Close()
			return
		}
		h.g.c.hist.Record(time.Since(h.start))
		h.g.c.requests.Add(1)
		h.g.c.verified.Add(int64(n))
		h.buf = h.buf[n:]
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
