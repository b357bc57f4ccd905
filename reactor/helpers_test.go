package reactor

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor/trace"
	ctr "github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// The shared checks, under the names these tests use.
var (
	leakCheck = leaktest.Check
	waitFor   = leaktest.WaitFor
)

type echoHandler struct{ HandlerAdapter }

func (echoHandler) ChannelRead(ctx *Context, msg []byte) { ctx.Write(msg) }
func (echoHandler) ChannelReadComplete(ctx *Context)     { ctx.Flush() }

func echoInit(ch *Channel) { ch.Pipeline().AddLast("echo", echoHandler{}) }

// recorder is a sink that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []trace.Event
}

func (r *recorder) Consume(b []trace.Event) {
	r.mu.Lock()
	r.events = append(r.events, b...)
	r.mu.Unlock()
}

func (r *recorder) snapshot() []trace.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]trace.Event(nil), r.events...)
}

// ofKind returns the events of kind k from the loop with index loop.
func (r *recorder) ofKind(loop uint16, k trace.Kind) []trace.Event {
	var out []trace.Event
	for _, e := range r.snapshot() {
		if e.Loop == loop && e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// fold counts the events of the loop with index loop, named name, as a
// replay of the trace does.
func (r *recorder) fold(loop uint16, name string) ctr.Stats {
	var s ctr.Stats
	for _, e := range r.snapshot() {
		if e.Loop == loop {
			s.Fold(&e, name)
		}
	}
	return s
}

func newTraced(t *testing.T) (*trace.Collector, *recorder) {
	t.Helper()
	c := trace.NewCollector(trace.Options{RingSize: 1 << 16, Interval: time.Millisecond})
	r := &recorder{}
	c.AddSink(r)
	c.Start()
	t.Cleanup(c.Stop)
	return c, r
}

func loopIndex(t *testing.T, c *trace.Collector, name string) uint16 {
	t.Helper()
	i, ok := c.LoopIndex(name)
	if !ok {
		t.Fatalf("no loop %s", name)
	}
	return i
}

// server is a boss/worker pair with an echo server bound to a kernel port.
type server struct {
	boss, worker *EventLoopGroup
	ch           *ServerChannel
}

// startServer starts a server that shuts down when the test ends.
func startServer(t *testing.T, bosses, workers int, cfg Config, init func(*Channel)) *server {
	t.Helper()
	s := newServer(t, bosses, workers, cfg, init)
	t.Cleanup(s.shutdown)
	return s
}

// newServer starts a server; the caller shuts it down.
func newServer(tb testing.TB, bosses, workers int, cfg Config, init func(*Channel)) *server {
	tb.Helper()
	boss, err := NewEventLoopGroup("boss", bosses, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	worker, err := NewEventLoopGroup("worker", workers, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	s := &server{boss: boss, worker: worker}
	b := &ServerBootstrap{Boss: boss, Worker: worker, ChildInit: init}
	if s.ch, err = b.Bind("127.0.0.1:0"); err != nil {
		s.shutdown()
		tb.Fatal(err)
	}
	return s
}

// echoingWorker starts a one-boss, one-worker echo server for the test and
// returns its worker and a connection that has echoed once, so it is
// registered and the worker has run.
func echoingWorker(t *testing.T, cfg Config) (*EventLoop, net.Conn) {
	t.Helper()
	s := startServer(t, 1, 1, cfg, echoInit)
	c := dial(t, s.addr())
	echoOnce(t, c, "x")
	w := s.worker.Loops()[0]
	// The echo's write is counted when write(2) returns, which can be a
	// moment after the client has read the bytes; a caller counting the
	// next exchange's writes must not see this one's.
	waitFor(t, "the settling echo's write counted", func() bool { return w.Stats().Writes >= 1 })
	awaitWakeups(t, w)
	return w, c
}

// awaitWakeups waits until every task submitted to l from elsewhere has
// made its wakeup. A boss queues a registration, then wakes the worker; on
// a busy machine that wakeup can land after the worker has registered,
// echoed and gone to sleep, and then costs an iteration of its own, which
// a test counting iterations or premature returns must not see.
func awaitWakeups(t *testing.T, l *EventLoop) {
	t.Helper()
	waitFor(t, "the submitters' wakeups", func() bool {
		st := l.Stats()
		return st.WakeupsWritten+st.WakeupsCoalesced == st.TasksSubmitted
	})
}

func (s *server) addr() string { return s.ch.Addr().String() }

func (s *server) shutdown() {
	s.boss.ShutdownGracefully(0, time.Second)
	s.worker.ShutdownGracefully(0, time.Second)
	s.boss.AwaitTermination(30 * time.Second) // 10 000 channels to close
	s.worker.AwaitTermination(30 * time.Second)
}

// echoOnce sends msg on conn and checks that it comes back whole.
func echoOnce(t *testing.T, conn net.Conn, msg string) {
	t.Helper()
	if _, err := io.WriteString(conn, msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, buf); err != nil {
		t.Fatalf("echo %q: %v", msg, err)
	}
	if string(buf) != msg {
		t.Fatalf("echo: got %q, want %q", buf, msg)
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// blockedInEpoll reports whether the loop is asleep in select: its thread
// sits in epoll_wait, by the kernel's own word in /proc, and no wakeup is
// pending. The flags are read first: a thread woken but not yet scheduled
// still shows epoll_wait in /proc, but then wakenUp or the selector latch is
// still set, because only the loop clears them, after the wait returns.
func blockedInEpoll(l *EventLoop) bool {
	if l.wakenUp.Load() || l.woken.Load() {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", l.TID()))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	inWait := len(f) > 0 && (f[0] == "232" || f[0] == "281") // epoll_wait, epoll_pwait
	return inWait && !l.wakenUp.Load() && !l.woken.Load()
}
