//go:build linux

package uring

import (
	"io"
	"net"
	"sync"
	"testing"
)

// BenchmarkEcho measures the ring echo server's system calls per request:
// every server-side call is an io_uring_enter, so enters/req is the whole
// count (the epoll loop makes an epoll_wait plus a read and a write per
// ready connection). With many connections one enter serves the batch;
// pipelining puts several requests in each receive.
func BenchmarkEcho(b *testing.B) {
	for _, bc := range []struct {
		name     string
		conns    int
		pipeline int
	}{
		{name: "conns=1", conns: 1, pipeline: 1},
		{name: "conns=16", conns: 16, pipeline: 1},
		{name: "conns=16/pipeline=16", conns: 16, pipeline: 16},
	} {
		b.Run(bc.name, func(b *testing.B) { benchEcho(b, bc.conns, bc.pipeline) })
	}
}

func benchEcho(b *testing.B, conns, pipeline int) {
	s := startEchoServer(b, serverConfig{entries: 512, bufCount: 512, bufSize: 4096})
	const size = 64
	clients := make([]net.Conn, conns)
	for i := range clients {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		clients[i] = c
	}
	rounds := b.N/(conns*pipeline) + 1
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := make([]byte, size*pipeline)
			resp := make([]byte, len(req))
			for range rounds {
				if _, err := c.Write(req); err != nil {
					b.Error(err)
					return
				}
				if _, err := io.ReadFull(c, resp); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	for _, c := range clients {
		_ = c.Close()
	}
	s.stop(b)
	reqs := float64(rounds * conns * pipeline)
	b.ReportMetric(float64(s.final.Enters)/reqs, "enters/req")
	b.ReportMetric(float64(s.final.Submitted)/reqs, "sqes/req")
	b.ReportMetric(float64(s.final.CQEs)/reqs, "cqes/req")
}
