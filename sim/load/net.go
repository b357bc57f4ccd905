package load

import (
	"io"
	"net"
	"time"
)

// StartNet opens the group's connections with Go's net package, outside
// the engine, one goroutine per connection (two in open loop: a writer on
// the schedule and a reader).
func StartNet(spec Spec) (*Group, error) {
	g, err := newGroup(spec)
	if err != nil {
		return nil, err
	}
	for i := 0; i < spec.Connections; i++ {
		g.wg.Add(1)
		go g.runNet(spec.First + i)
	}
	return g, nil
}

// netConn is one connection of a net client group.
type netConn struct {
	c      net.Conn
	conn   int
	port   int
	route  *Histogram
	found  bool // route looked up
	dialed time.Time
	wait   Waiter // the request in flight, for its loop's windows
}

// routeOnce looks the connection's loop up at its first answer: by then
// the server has registered the channel, since it read the request.
func (nc *netConn) routeOnce(g *Group) *Histogram {
	if !nc.found {
		nc.found = true
		nc.route = g.route(nc.port, nc.dialed)
		if nc.route != nil {
			nc.route.Watch(&nc.wait)
		}
	}
	return nc.route
}

func (g *Group) runNet(conn int) {
	defer g.wg.Done()
	addr := g.spec.Addrs[conn%len(g.spec.Addrs)]
	if !g.ready() {
		return
	}
	dialed := g.now()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		g.fail()
		return
	}
	g.onStop(func() { c.Close() })
	defer c.Close()
	g.c.conns.Add(1)
	nc := &netConn{c: c, conn: conn, dialed: dialed}
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		nc.port = a.Port
	}
	if g.spec.Open && g.spec.Interval > 0 {
		g.runNetOpen(nc)
		return
	}
	p := g.spec.Pipeline
	req := make([]byte, 0, p*max(g.ex.responseLen(), 64))
	resp := make([]byte, g.ex.responseLen())
	next := g.now()
	for seq := 0; g.spec.Requests == 0 || seq < g.spec.Requests; seq += p {
		if iv := g.spec.Interval; iv > 0 {
			next = next.Add(iv)
			if !g.waitUntil(next) {
				return
			}
		} else if !g.ready() {
			return
		}
		if !g.exchangeNet(nc, seq, req[:0], resp) {
			return
		}
	}
}

// exchangeNet writes one pipelined batch and reads and checks its answers.
func (g *Group) exchangeNet(nc *netConn, seq int, req, resp []byte) bool {
	p := g.spec.Pipeline
	for k := 0; k < p; k++ {
		req = g.ex.request(req, nc.conn, seq+k)
	}
	start := g.now()
	nc.wait.Wait(start)
	defer nc.wait.Done()
	if _, err := nc.c.Write(req); err != nil {
		g.fail()
		return false
	}
	for k := 0; k < p; k++ {
		if !g.readAnswer(nc, seq+k, resp) {
			return false
		}
		g.record(g.since(start), len(resp), nc.routeOnce(g))
	}
	return true
}

func (g *Group) readAnswer(nc *netConn, seq int, resp []byte) bool {
	if _, err := io.ReadFull(nc.c, resp); err != nil {
		g.fail()
		return false
	}
	if !g.ex.check(resp, nc.conn, seq) {
		g.fail()
		return false
	}
	return true
}

// openBacklog bounds the requests one open-loop connection has sent and
// not yet seen answered (the channel's buffer is allocated up front, 24
// bytes a request). When it is full the writer waits, as it would on a
// full socket buffer, but every request keeps the time it was due, so the
// wait still shows as latency.
const openBacklog = 256

// runNetOpen is the open loop: the writer sends each batch at its due time
// (at once, to catch up, when it is late) and hands the due time to the
// reader, which measures each answer from it.
func (g *Group) runNetOpen(nc *netConn) {
	due := make(chan time.Time, openBacklog)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer nc.c.Close()   // a reader that fails stops the writer too
		defer nc.wait.Done() // and has no request in flight any more
		resp := make([]byte, g.ex.responseLen())
		for seq := 0; ; seq++ {
			at, ok := <-due
			if !ok {
				return
			}
			nc.wait.Wait(at)
			if !g.readAnswer(nc, seq, resp) {
				return
			}
			nc.wait.Done()
			g.record(g.since(at), len(resp), nc.routeOnce(g))
		}
	}()
	// The connection stays open until the reader has every answer.
	defer func() { close(due); <-finished }()
	p, iv := g.spec.Pipeline, g.spec.Interval
	req := make([]byte, 0, p*max(g.ex.responseLen(), 64))
	next := g.now()
	for seq := 0; g.spec.Requests == 0 || seq < g.spec.Requests; seq += p {
		next = next.Add(iv)
		if !g.waitUntil(next) {
			return
		}
		req = req[:0]
		for k := 0; k < p; k++ {
			req = g.ex.request(req, nc.conn, seq+k)
			select {
			case due <- next:
			case <-finished:
				return
			}
		}
		if _, err := nc.c.Write(req); err != nil {
			g.fail()
			return
		}
	}
}
