package reactor

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// BenchmarkWakeupLatency measures Execute from another goroutine to a loop
// asleep in epoll_wait, until the task runs: the eventfd write, the kernel
// waking the thread, and the loop reaching runAllTasks. Each round waits for
// the loop to be asleep again (checked in /proc), so every sample is a
// wakeup from sleep. Targets: p50 ≤ 20 µs, p99 ≤ 200 µs.
func BenchmarkWakeupLatency(b *testing.B) {
	l, err := NewEventLoop("worker-0", "worker", Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	clock := trace.NewClock()
	ran := make(chan int64, 1)
	_ = l.Execute(func() {})
	samples := make([]int64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for !blockedInEpoll(l) {
			runtime.Gosched()
		}
		b.StartTimer()
		t0 := clock.Now()
		_ = l.Execute(func() { ran <- clock.Now() })
		samples = append(samples, <-ran-t0)
	}
	b.StopTimer()
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2]), "p50-ns")
	b.ReportMetric(float64(samples[len(samples)*99/100]), "p99-ns")
}

// BenchmarkIdleConnMemory opens 10 000 idle connections to an echo server
// and reports the server's live heap per connection above the baseline
// taken before they were opened. Target: ≤ 2 KiB. The client ends live in a
// child process (this test binary, re-run as TestHelperHoldConns), so they
// cost the server neither heap nor descriptors: 10 000 on each side would
// not fit one process's descriptor limit here.
func BenchmarkIdleConnMemory(b *testing.B) {
	const conns = 10_000
	if err := raiseFDLimit(conns + 1000); err != nil {
		b.Skipf("cannot raise the fd limit for %d connections: %v", conns, err)
	}
	for i := 0; i < b.N; i++ {
		b.ReportMetric(idleConnBytes(b, conns), "bytes/conn")
	}
}

func idleConnBytes(b *testing.B, conns int) float64 {
	s := newServer(b, 1, 2, Config{}, echoInit)
	defer s.shutdown()
	sc, worker := s.ch, s.worker
	warm := holdConns(b, sc.Addr(), 2) // both workers' buffers go in the baseline
	waitChannels(worker, 2)
	base := liveHeap()
	held := holdConns(b, sc.Addr(), conns)
	waitChannels(worker, int64(conns+2))
	after := liveHeap()
	held.close()
	warm.close()
	return float64(after-base) / float64(conns)
}

// holdConns starts a child process that opens n connections to ap and
// keeps them until it is closed.
func holdConns(b *testing.B, ap netip.AddrPort, n int) *child {
	c := startChild(b, "TestHelperHoldConns", fmt.Sprintf("REACTORVIZ_HOLD=%s,%d", ap, n))
	c.expect(b, "ready")
	return c
}

// TestHelperHoldConns is not a test: it is the child process of
// holdConns, and does nothing unless REACTORVIZ_HOLD is set.
func TestHelperHoldConns(t *testing.T) {
	spec := os.Getenv("REACTORVIZ_HOLD")
	if spec == "" {
		t.Skip("helper process only")
	}
	var addr string
	var n int
	if i := strings.LastIndexByte(spec, ','); i > 0 {
		addr = spec[:i]
		n, _ = strconv.Atoi(spec[i+1:])
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || n <= 0 {
		t.Fatalf("bad REACTORVIZ_HOLD %q", spec)
	}
	if err := raiseFDLimit(uint64(n) + 100); err != nil {
		t.Fatal(err)
	}
	sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	for i := 0; i < n; i++ {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Connect(fd, sa); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin) // hold until the parent closes stdin
	os.Exit(0)
}

func waitChannels(g *EventLoopGroup, want int64) {
	for {
		var n int64
		for _, l := range g.Loops() {
			n += l.Stats().Channels
		}
		if n >= want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func raiseFDLimit(n uint64) error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return err
	}
	if rl.Cur >= n {
		return nil
	}
	rl.Cur = n
	rl.Max = max(rl.Max, n) // raising the hard limit needs CAP_SYS_RESOURCE
	return unix.Setrlimit(unix.RLIMIT_NOFILE, &rl)
}

// BenchmarkLoopIteration is one turn of a busy loop: a selectNow (a task is
// queued), runAllTasks running that one task, and the tail task it leaves,
// which queues the next turn's task. No wakeup is written: every submission
// comes from the loop thread. The cost is the loop's own bookkeeping (its
// counters, phase gates, clock reads) around one epoll_wait(0).
func BenchmarkLoopIteration(b *testing.B) {
	l, err := NewEventLoop("worker-0", "worker", Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	done := make(chan struct{})
	n := b.N
	var turn, tail func()
	turn = func() {
		if n--; n <= 0 {
			close(done)
			return
		}
		_ = l.ExecuteAfterEventLoopIteration("", tail)
	}
	tail = func() { _ = l.Execute(turn) }
	b.ReportAllocs()
	b.ResetTimer()
	_ = l.Execute(turn)
	<-done
	b.StopTimer()
}

// BenchmarkExecuteParallel is Execute from every P at once into one busy
// loop: the producers' side of the task queue (the inflight count, the
// task ids, the wakeup flag, the submit counters) under contention, while
// the loop thread runs the tasks.
func BenchmarkExecuteParallel(b *testing.B) { executeParallel(b, Config{}) }

func executeParallel(b *testing.B, cfg Config) {
	l, err := NewEventLoop("worker-0", "worker", cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	noop := func() {}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for l.Execute(noop) != nil {
				runtime.Gosched() // a bounded queue is full: let the loop drain it
			}
		}
	})
}

// BenchmarkEchoRoundTrip is one request through a worker and back over
// loopback: 1 KiB sent at once, read through a 64-byte buffer, so the loop
// makes about 17 reads (16 full ones per pass, and the short or empty one
// that ends it) and a write or two per request. It is the read and write
// path's own cost, counters included, beside the system calls it makes;
// most of each op is the kernel and the client's goroutine.
func BenchmarkEchoRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"level", Config{ReadBufferSize: 64}},
		{"edge", Config{Selector: SelectorEpoll, Trigger: TriggerEdge, ReadBufferSize: 64}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := newServer(b, 1, 1, tc.cfg, echoInit)
			defer s.shutdown()
			c, err := net.Dial("tcp", s.addr())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			msg, got := make([]byte, 1024), make([]byte, 1024)
			b.SetBytes(int64(len(msg)))
			b.ResetTimer()
			for range b.N {
				if _, err := c.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, got); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExecuteTraced is BenchmarkExecuteParallel with a sink attached:
// each submission from outside also records its task_submit and its
// wakeup through the off-loop ring, each in a slot claimed before the
// action (the offer, the eventfd write) and filled in after it.
func BenchmarkExecuteTraced(b *testing.B) {
	coll := trace.NewCollector(trace.Options{ExternalSize: 1 << 16})
	coll.AddSink(trace.SinkFunc(func([]trace.Event) {}))
	coll.Start()
	defer coll.Stop()
	executeParallel(b, Config{Collector: coll})
}
