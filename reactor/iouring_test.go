//go:build linux && !nolive

package reactor

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

var uringCfg = Config{Netty: Netty42, Selector: SelectorIOUring}

// startUringServer is startServer on io_uring loops; it skips where the
// kernel or a policy refuses io_uring, saying why.
func startUringServer(t *testing.T, workers int, init func(*Channel)) *server {
	t.Helper()
	if err := probeIOUring(); err != nil {
		if errors.Is(err, ErrIOUringUnavailable) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	return startServer(t, 1, workers, uringCfg, init)
}

func TestIOUringNeedsNetty42(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Selector: SelectorIOUring}, "io_uring needs netty 4.2"},
		{Config{Netty: Netty41, Selector: SelectorIOUring}, "io_uring needs netty 4.2"},
		{Config{Netty: Netty42, Selector: SelectorIOUring, Trigger: TriggerEdge}, "trigger: edge"},
	} {
		_, err := NewEventLoop("l", "g", c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.cfg, err, c.want)
		}
	}
	if SelectorIOUring.String() != "io_uring" {
		t.Errorf("String: %q", SelectorIOUring.String())
	}
}

func TestIOUringEcho(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 2, echoInit)
	for i := 0; i < 4; i++ {
		c := dial(t, s.addr())
		for j := 0; j < 3; j++ {
			echoOnce(t, c, strings.Repeat("ab", 1+i*j))
		}
	}
	waitFor(t, "4 accepts", func() bool { return s.ch.Accepted() == 4 })
	w := s.worker.Loops()
	if a, b := w[0].Stats().Channels, w[1].Stats().Channels; a != 2 || b != 2 {
		t.Fatalf("placement: %d and %d channels, want 2 and 2", a, b)
	}
	s.shutdown()
	for _, l := range append(s.boss.Loops(), w...) {
		if l.uring.ring != nil {
			t.Errorf("%s: ring not released", l.Name())
		}
	}
}

// TestIOUringShortReadsAndLargeReplies sends a request in small pieces and
// a reply far larger than a socket buffer, which the kernel takes in
// several short sends the handler continues in order.
func TestIOUringShortReadsAndLargeReplies(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 1, echoInit)
	c := dial(t, s.addr())
	for _, p := range []string{"he", "l", "lo"} {
		if _, err := io.WriteString(c, p); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // separate segments, so separate recvs
	}
	buf := make([]byte, 5)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("got %q, %v", buf, err)
	}
	soak(t, c, 8<<20, 1)
}

// soak writes n random bytes in random-sized pieces while reading the echo
// and compares checksums: nothing lost, duplicated or reordered.
func soak(t *testing.T, c net.Conn, n int, seed int64) {
	t.Helper()
	rnd := rand.New(rand.NewSource(seed))
	data := make([]byte, n)
	rnd.Read(data)
	errc := make(chan error, 1)
	go func() {
		rest := data
		for len(rest) > 0 {
			k := min(len(rest), 1+rnd.Intn(64<<10))
			if _, err := c.Write(rest[:k]); err != nil {
				errc <- err
				return
			}
			rest = rest[k:]
		}
		errc <- nil
	}()
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	got := make([]byte, n)
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read echo: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(got) != sha256.Sum256(data) {
		t.Fatal("echoed bytes differ")
	}
}

// TestIOUringSoakExhaustsBuffers: connections that send faster than the
// loop frees buffers end their multishot recvs with ENOBUFS; the handler
// re-arms them and nothing is lost.
func TestIOUringSoakExhaustsBuffers(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 1, echoInit)
	const conns = 8
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		c := dial(t, s.addr())
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			soak(t, c, 4<<20, int64(i))
		}(i)
	}
	wg.Wait()
	w := s.worker.Loops()[0]
	t.Logf("ENOBUFS re-arms: %d", w.uring.noBufs.Load())
}

func TestIOUringPeerReset(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 1, echoInit)
	c := dial(t, s.addr())
	echoOnce(t, c, "x")
	w := s.worker.Loops()[0]
	if err := c.(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	c.Close() // RST
	waitFor(t, "the reset channel closed", func() bool { return w.Stats().Channels == 0 })
	c2 := dial(t, s.addr())
	echoOnce(t, c2, "still serving")
}

// TestIOUringCloseWithOpsInFlight shuts the loops down while clients keep
// sending: every armed recv, send and accept is cancelled and reaped, and
// no descriptor or goroutine is left behind (leakCheck).
func TestIOUringCloseWithOpsInFlight(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 2, echoInit)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		c := dial(t, s.addr())
		echoOnce(t, c, "warm")
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for !stop.Load() {
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	s.shutdown()
	stop.Store(true)
	wg.Wait()
	for _, l := range append(s.boss.Loops(), s.worker.Loops()...) {
		if l.uring.ring != nil {
			t.Errorf("%s: ring not released", l.Name())
		}
		if n := l.Stats().Channels; n != 0 {
			t.Errorf("%s: %d channels left", l.Name(), n)
		}
	}
}

// TestIOUringWakeupAndTimers: a task from another goroutine completes the
// eventfd read a sleeping loop waits on; a scheduled task bounds the wait.
func TestIOUringWakeupAndTimers(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 1, echoInit)
	c := dial(t, s.addr())
	echoOnce(t, c, "x")
	w := s.worker.Loops()[0]
	done := make(chan struct{})
	if err := w.Execute(func() { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
	fired := make(chan struct{})
	if _, err := w.Schedule("timer", 20*time.Millisecond, func() { close(fired) }); err != nil {
		t.Fatal(err)
	}
	<-fired
	st := w.Stats()
	if st.WakeupsWritten == 0 {
		t.Errorf("no eventfd write for a task from outside: %+v", st)
	}
}

type boomHandler struct{ HandlerAdapter }

func (boomHandler) ChannelRead(ctx *Context, msg []byte) {
	if bytes.HasPrefix(msg, []byte("boom")) {
		panic("boom")
	}
	ctx.Write(msg)
}
func (boomHandler) ChannelReadComplete(ctx *Context) { ctx.Flush() }

func TestIOUringHandlerPanicKeepsLoop(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 1, func(ch *Channel) { ch.Pipeline().AddLast("p", boomHandler{}) })
	c := dial(t, s.addr())
	if _, err := io.WriteString(c, "boom"); err != nil {
		t.Fatal(err)
	}
	w := s.worker.Loops()[0]
	waitFor(t, "the panic reported", func() bool { return w.Stats().HandlerPanics == 1 })
	echoOnce(t, c, "after")
}

// TestIOUringCloseAfterFlush: a reply written then closed reaches the peer
// before the FIN.
func TestIOUringCloseAfterFlush(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 1, func(ch *Channel) { ch.Pipeline().AddLast("bye", byeHandler{}) })
	c := dial(t, s.addr())
	if _, err := io.WriteString(c, "hi"); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatal(err)
	}
	if string(b) != "bye" {
		t.Fatalf("got %q", b)
	}
}

type byeHandler struct{ HandlerAdapter }

func (byeHandler) ChannelRead(ctx *Context, _ []byte) {
	ctx.Write([]byte("bye"))
	ctx.CloseAfterFlush()
}

// TestIOUringTraced: with tracing on, each enter reports what it submitted
// and reaped, and each operation its submission and completion; a request
// costs one recv completion and one send.
func TestIOUringTraced(t *testing.T) {
	leakCheck(t)
	if err := probeIOUring(); err != nil {
		t.Skip(err)
	}
	coll, rec := newTraced(t)
	cfg := uringCfg
	cfg.Collector = coll
	s := startServer(t, 1, 1, cfg, echoInit)
	c := dial(t, s.addr())
	echoOnce(t, c, "ping")
	w := loopIndex(t, coll, "worker-0")
	var sends, recvs, armed int
	waitFor(t, "the send's completion traced", func() bool {
		sends, recvs, armed = 0, 0, 0
		for _, e := range rec.ofKind(w, trace.KindRingComplete) {
			switch {
			case e.Str == "send" && e.B == 4:
				sends++
			case e.Str == "recv" && e.B == 4 && e.Flag:
				recvs++
			}
		}
		for _, e := range rec.ofKind(w, trace.KindRingSubmit) {
			if e.Str == "recv" {
				armed++
			}
		}
		return sends == 1
	})
	if recvs != 1 || armed != 1 {
		t.Errorf("recv completions %d (want 1, multishot, 4 bytes), recv submissions %d (want 1)", recvs, armed)
	}
	enters := rec.ofKind(w, trace.KindRingEnter)
	var submitted int64
	for _, e := range enters {
		submitted += e.A
	}
	if len(enters) == 0 || submitted < 3 { // eventfd read, recv, send
		t.Errorf("%d enters submitted %d SQEs; want the eventfd read, the recv and the send", len(enters), submitted)
	}
}

// TestIOUringManyConnections: a thousand connections open at once (two
// hundred with -short), each echoing a message carrying its number, on
// one boss and two workers; every channel is closed and every descriptor
// released at shutdown.
func TestIOUringManyConnections(t *testing.T) {
	leakCheck(t)
	n := 1000
	if testing.Short() {
		n = 200
	}
	s := startUringServer(t, 2, echoInit)
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", s.addr())
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer c.Close()
		conns[i] = c
	}
	for i, c := range conns {
		if _, err := io.WriteString(c, fmt.Sprintf("conn %05d", i)); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, len("conn 00000"))
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != fmt.Sprintf("conn %05d", i) {
			t.Fatalf("conn %d: got %q, %v", i, buf, err)
		}
	}
	if got := s.ch.Accepted(); got != int64(n) {
		t.Fatalf("accepted %d, want %d", got, n)
	}
	s.shutdown()
	for _, l := range s.worker.Loops() {
		if ch := l.Stats().Channels; ch != 0 {
			t.Errorf("%s: %d channels after shutdown", l.Name(), ch)
		}
	}
}

// TestIOUringRepliesBeforeEOF: a peer that sends and at once shuts its
// side down still gets every reply before the server closes; the request
// and the EOF may arrive in one batch of completions.
func TestIOUringRepliesBeforeEOF(t *testing.T) {
	leakCheck(t)
	s := startUringServer(t, 1, echoInit)
	for i := 0; i < 20; i++ {
		c := dial(t, s.addr())
		msg := strings.Repeat("z", 1+i*4096)
		if _, err := io.WriteString(c, msg); err != nil {
			t.Fatal(err)
		}
		if err := c.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(c)
		if err != nil || string(got) != msg {
			t.Fatalf("round %d: got %d bytes (%v), want %d then EOF", i, len(got), err, len(msg))
		}
	}
}

// TestIOUringUnavailableFailsAtCreation: where the probe finds no io_uring
// (disabled by sysctl, filtered, too old a kernel), the loop is refused
// when it is created, with the reason, and no descriptor is left open.
func TestIOUringUnavailableFailsAtCreation(t *testing.T) {
	leakCheck(t)
	saved := probeIOUring
	t.Cleanup(func() { probeIOUring = saved })
	probeIOUring = func() error {
		return fmt.Errorf("%w: disabled for all processes (io_uring_disabled = 2)", ErrIOUringUnavailable)
	}
	_, err := NewEventLoopGroup("worker", 2, uringCfg)
	if !errors.Is(err, ErrIOUringUnavailable) || !strings.Contains(err.Error(), "io_uring_disabled = 2") {
		t.Fatalf("err %v, want io_uring unavailable with the reason", err)
	}
}
