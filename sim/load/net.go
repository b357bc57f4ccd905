package load

import (
	"io"
	"net"
	"time"
)

// StartNet opens the group's connections with Go's net package, outside
// the engine, one goroutine per connection.
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

func (g *Group) runNet(conn int) {
	defer g.wg.Done()
	addr := g.spec.Addrs[conn%len(g.spec.Addrs)]
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		g.fail()
		return
	}
	g.onStop(func() { c.Close() })
	defer c.Close()
	g.c.conns.Add(1)
	p := g.spec.Pipeline
	req := make([]byte, 0, p*max(g.ex.responseLen(), 64))
	resp := make([]byte, g.ex.responseLen())
	next := time.Now()
	for seq := 0; g.spec.Requests == 0 || seq < g.spec.Requests; seq += p {
		if iv := g.spec.Interval; iv > 0 {
			next = next.Add(iv)
			if !g.wait(time.Until(next)) {
				return
			}
		} else if g.stopped() {
			return
		}
		if !g.exchangeNet(c, conn, seq, req[:0], resp) {
			return
		}
	}
}

// exchangeNet writes one pipelined batch and reads and checks its answers.
func (g *Group) exchangeNet(c net.Conn, conn, seq int, req, resp []byte) bool {
	p := g.spec.Pipeline
	for k := 0; k < p; k++ {
		req = g.ex.request(req, conn, seq+k)
	}
	start := time.Now()
	if _, err := c.Write(req); err != nil {
		g.fail()
		return false
	}
	for k := 0; k < p; k++ {
		if _, err := io.ReadFull(c, resp); err != nil {
			g.fail()
			return false
		}
		if !g.ex.check(resp, conn, seq+k) {
			g.fail()
			return false
		}
		g.c.hist.Record(time.Since(start))
		g.c.requests.Add(1)
		g.c.verified.Add(int64(len(resp)))
	}
	return true
}
