//go:build linux

package uring

import (
	"io"
	"net"
	"sync"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"golang.org/x/sys/unix"
)

// BenchmarkEcho compares server system calls per request between the ring
// echo server, whose every call is an io_uring_enter, and a readiness
// loop on epoll that makes an epoll_wait plus a read and a write per ready
// connection, as Netty's NioEventLoop does. With many connections one
// enter serves the batch; pipelining puts several requests in each
// receive for both. The ring runs with DEFER_TASKRUN (completion work only
// inside the owner's enter) and with COOP_TASKRUN (completion work at any
// kernel entry of the submitting thread), which changes how many
// completions one enter finds.
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
		for _, coop := range []bool{false, true} {
			name := map[bool]string{false: "io_uring/defer-taskrun/", true: "io_uring/coop-taskrun/"}[coop]
			b.Run(name+bc.name, func(b *testing.B) {
				s := startEchoServer(b, serverConfig{entries: 512, bufCount: 512, bufSize: 4096, coop: coop})
				reqs := driveEcho(b, s.addr, bc.conns, bc.pipeline)
				s.stop(b)
				b.ReportMetric(float64(s.final.Enters)/reqs, "syscalls/req")
				b.ReportMetric(float64(s.final.Submitted)/reqs, "sqes/req")
				b.ReportMetric(float64(s.final.CQEs)/reqs, "cqes/req")
			})
		}
		b.Run("epoll/"+bc.name, func(b *testing.B) {
			s := startEpollEcho(b)
			reqs := driveEcho(b, s.addr, bc.conns, bc.pipeline)
			calls := s.stop(b)
			b.ReportMetric(float64(calls)/reqs, "syscalls/req")
		})
	}
}

// driveEcho runs b.N requests of 64 bytes over conns connections,
// pipeline at a time, and returns how many it made.
func driveEcho(b *testing.B, addr string, conns, pipeline int) float64 {
	const size = 64
	clients := make([]net.Conn, conns)
	for i := range clients {
		c, err := net.Dial("tcp", addr)
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
	return float64(rounds * conns * pipeline)
}

// epollEcho is the readiness-based counterpart: level-triggered epoll, a
// read until a short read, one write of what was read. It counts its
// system calls.
type epollEcho struct {
	addr  string
	lfd   int
	efd   int
	p     *poll.Poller
	calls int
	err   error
	done  chan struct{}
}

func startEpollEcho(b *testing.B) *epollEcho {
	s := &epollEcho{done: make(chan struct{})}
	var err error
	if s.lfd, s.addr, err = listenLoopback(); err != nil {
		b.Fatal(err)
	}
	if s.p, err = poll.Open(); err != nil {
		b.Fatal(err)
	}
	if s.efd, err = poll.NewEventFD(); err != nil {
		b.Fatal(err)
	}
	for _, fd := range []int{s.lfd, s.efd} {
		if err := s.p.Add(fd, poll.In); err != nil {
			b.Fatal(err)
		}
	}
	go s.run()
	return s
}

func (s *epollEcho) stop(b *testing.B) int {
	if err := poll.WriteEventFD(s.efd); err != nil {
		b.Fatal(err)
	}
	<-s.done
	if s.err != nil {
		b.Fatal(s.err)
	}
	_ = s.p.Close()
	_ = unix.Close(s.lfd)
	_ = unix.Close(s.efd)
	return s.calls
}

func (s *epollEcho) run() {
	defer close(s.done)
	events := make([]poll.Event, 128)
	buf := make([]byte, 4096)
	conns := map[int]bool{}
	defer func() {
		for fd := range conns {
			_ = unix.Close(fd)
		}
	}()
	for {
		n, err := s.p.Wait(events, -1)
		s.calls++
		if err != nil && err != poll.ErrInterrupted {
			s.err = err
			return
		}
		for _, ev := range events[:n] {
			switch fd := int(ev.Fd); fd {
			case s.efd:
				return
			case s.lfd:
				s.accept(conns)
			default:
				if !s.echo(fd, buf) {
					_ = s.p.Del(fd)
					_ = unix.Close(fd)
					s.calls += 2
					delete(conns, fd)
				}
			}
		}
	}
}

func (s *epollEcho) accept(conns map[int]bool) {
	for {
		fd, _, err := unix.Accept4(s.lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		s.calls++
		if err != nil {
			return
		}
		conns[fd] = true
		_ = s.p.Add(fd, poll.In)
		s.calls++
	}
}

// echo reads until a short read and writes back what it read; false means
// the connection is done.
func (s *epollEcho) echo(fd int, buf []byte) bool {
	for {
		n, err := unix.Read(fd, buf)
		s.calls++
		if err == unix.EAGAIN {
			return true
		}
		if n <= 0 {
			return false
		}
		for off := 0; off < n; {
			w, err := unix.Write(fd, buf[off:n])
			s.calls++
			if err == unix.EAGAIN {
				continue
			}
			if err != nil {
				return false
			}
			off += w
		}
		if n < len(buf) {
			return true
		}
	}
}
