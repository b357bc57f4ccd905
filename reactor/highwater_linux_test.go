//go:build linux && !nolive

package reactor

import (
	"bytes"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// markProbe echoes, each request times times (once when 0), and counts the
// writes after which its channel held more output than the write
// high-water mark, counting a ring's send in flight, and still took reads:
// each is backpressure that did not happen. It also keeps the most output
// any write left pending.
type markProbe struct {
	HandlerAdapter
	missed, over, most *atomic.Int64
	times              int
}

func (p markProbe) ChannelRead(ctx *Context, msg []byte) {
	for range max(p.times, 1) {
		ctx.Write(msg)
	}
	ch := ctx.Channel()
	pending := len(ch.out)
	if ch.u != nil {
		pending += len(ch.u.sending)
	}
	if pending > ch.loop.cfg.WriteHighWater {
		p.over.Add(1)
		if ch.flags&flagUnwritable == 0 {
			p.missed.Add(1)
		}
	}
	for m := p.most.Load(); int64(pending) > m && !p.most.CompareAndSwap(m, int64(pending)); m = p.most.Load() {
	}
}

// oneRead is the most one read hands the pipeline: a provided buffer on a
// ring, the shared read buffer on epoll.
func oneRead(l *EventLoop) int {
	if l.uring != nil {
		return uringBufSize
	}
	return l.cfg.ReadBufferSize
}

// heldForOutput is the most memory one of the loop's channels holds for
// output: the capacity of its pending bytes, its send in flight and the
// buffer kept for its next replies. It runs on the loop.
func heldForOutput(t *testing.T, l *EventLoop) int {
	t.Helper()
	res := make(chan int, 1)
	if err := l.Execute(func() {
		most := 0
		for _, ch := range l.chans {
			if ch == nil || ch.kind != kindChild {
				continue
			}
			n := cap(ch.out)
			if ch.u != nil {
				n += cap(ch.u.sending) + cap(ch.u.spare)
			}
			most = max(most, n)
		}
		res <- most
	}); err != nil {
		t.Fatal(err)
	}
	return <-res
}

func (p markProbe) ChannelReadComplete(ctx *Context) { ctx.Flush() }

// A peer that sends without reading makes its channel unwritable, and so
// stops the reads, as soon as the output it has not taken passes the write
// high-water mark, on every transport. On io_uring that output includes
// the send in flight (pendingOut): the kernel holds its buffer until the
// peer reads. On epoll, past the mark a channel's output grows by the
// replies to one read at most: the loop stops reading at once
// (continueReading). A ring's completions posted before the cancel went in
// still reach the pipeline, but each multishot recv is armed with a byte
// limit under half the room left below the mark (recvLimit), so there too
// the output passes the mark by the replies to one read (a provided
// buffer), for replies up to twice their request. On both, the memory a
// channel holds for output stays within what that output needs, Go's
// append growth included: a ring keeps no large sent buffer beside the
// send in flight.
func TestNonReadingPeerHitsTheHighWaterMark(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		times int // replies per request
	}{
		{"epoll", Config{Netty: Netty42, Selector: SelectorEpoll}, 1},
		{"io_uring", uringCfg, 1},
		{"epoll/twice", Config{Netty: Netty42, Selector: SelectorEpoll}, 2},
		{"io_uring/twice", uringCfg, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Selector == SelectorIOUring {
				if err := probeIOUring(); err != nil {
					t.Skip(err)
				}
			}
			leakCheck(t)
			var missed, over, most atomic.Int64
			cfg := tc.cfg
			cfg.WriteHighWater, cfg.WriteLowWater = 64<<10, 32<<10
			s := startServer(t, 1, 1, cfg, func(ch *Channel) {
				ch.Pipeline().AddLast("probe", markProbe{missed: &missed, over: &over, most: &most, times: tc.times})
			})
			// Many peers on one worker, so that each iteration gathers more
			// replies per channel than one read: sends in flight are large.
			// Each sends until the kernel buffers on both sides are full and
			// the server has stopped reading its connection: the write then
			// blocks and its deadline ends it.
			const peers = 8
			var sent atomic.Int64
			done := make(chan struct{}, peers)
			for range peers {
				c := dial(t, s.addr())
				go func() {
					defer func() { done <- struct{}{} }()
					buf := make([]byte, 64<<10)
					c.SetWriteDeadline(time.Now().Add(2 * time.Second))
					for sent.Load() < 1<<30 {
						n, err := c.Write(buf)
						sent.Add(int64(n))
						if err != nil {
							break
						}
					}
					c.(*net.TCPConn).SetLinger(0)
				}()
			}
			for range peers {
				<-done
			}
			if sent.Load() >= 1<<30 {
				t.Fatal("the server read 1 GiB from peers that read nothing")
			}
			if over.Load() == 0 {
				t.Fatal("the output never passed the mark: the test exercised nothing")
			}
			if m := missed.Load(); m > 0 {
				t.Fatalf("%d of %d writes left more than the mark pending on a channel that still read", m, over.Load())
			}
			w := s.worker.Loops()[0]
			bound := cfg.WriteHighWater + tc.times*oneRead(w)
			if m := most.Load(); m > int64(bound) {
				t.Errorf("a channel held %d bytes of output, past the mark and the replies to one read (%d)", m, bound)
			}
			// Three halves of what was pending leave room for append's
			// growth (1.25× for large slices) and no second buffer.
			if h, m := heldForOutput(t, w), int(most.Load())+tc.times*oneRead(w); h > m*3/2 {
				t.Errorf("a channel holds %d bytes for output, more than 3/2 of the most it had pending and one read (%d)", h, m)
			}
			t.Logf("over %d missed %d most %d sent %d", over.Load(), missed.Load(), most.Load(), sent.Load())
		})
	}
}

// A peer that reads slowly gets back every byte it sent, in order, though
// its channel goes unwritable and readable again many times: on a ring its
// recv is cancelled, ended by its byte limit and armed again over and
// over, down to one receive per arm near the mark, and no byte is lost,
// repeated or reordered, and no send is left waiting.
func TestSlowReaderGetsItsBytesInOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"epoll", Config{Netty: Netty42, Selector: SelectorEpoll}},
		{"io_uring", uringCfg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Selector == SelectorIOUring {
				if err := probeIOUring(); err != nil {
					t.Skip(err)
				}
			}
			leakCheck(t)
			var missed, over, most atomic.Int64
			cfg := tc.cfg
			cfg.WriteHighWater, cfg.WriteLowWater = 64<<10, 32<<10
			s := startServer(t, 1, 1, cfg, func(ch *Channel) {
				ch.Pipeline().AddLast("probe", markProbe{missed: &missed, over: &over, most: &most})
			})
			c := dial(t, s.addr())
			const size = 16 << 20
			want := make([]byte, size)
			for i := range want {
				want[i] = byte(i * 7 / 5)
			}
			werr := make(chan error, 1)
			go func() {
				_, err := c.Write(want)
				werr <- err
			}()
			got := make([]byte, size)
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			for off := 0; off < size; {
				n, err := c.Read(got[off:min(off+4096, size)]) // small reads: the peer is slow
				if err != nil {
					t.Fatalf("read at %d: %v", off, err)
				}
				off += n
			}
			if err := <-werr; err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Fatalf("echo differs from byte %d", i)
			}
			if over.Load() == 0 {
				t.Fatal("the output never passed the mark: the test exercised nothing")
			}
		})
	}
}

// On a kernel without the multishot recv's byte limit (before 6.17) the
// first limited recv fails with -EINVAL having received nothing; the loop
// arms it again without a limit, and from then on arms every recv so: the
// channel is served, not failed.
func TestRingWithoutRecvLimitArmsWithout(t *testing.T) {
	if err := probeIOUring(); err != nil {
		t.Skip(err)
	}
	leakCheck(t)
	refuseRecvLimit = true
	t.Cleanup(func() { refuseRecvLimit = false }) // after the server's own cleanup
	s := startServer(t, 1, 1, uringCfg, echoInit)
	for range 2 {
		c := dial(t, s.addr())
		for j := range 3 {
			echoOnce(t, c, strings.Repeat("ab", 1+j*1000))
		}
	}
	w := s.worker.Loops()[0]
	res := make(chan bool, 1)
	if err := w.Execute(func() { res <- w.uring.noRecvLimit }); err != nil {
		t.Fatal(err)
	}
	if !<-res {
		t.Fatal("the refused limit was not noticed: recvs still armed with one")
	}
	if n := w.Stats().Exceptions; n != 0 {
		t.Fatalf("%d exceptions: the refusal failed a channel", n)
	}
}
