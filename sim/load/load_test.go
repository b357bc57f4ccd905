package load

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// stallServer echoes, but holds its first connection's answers back for
// stall: the server a closed-loop client would politely wait for.
func stallServer(t *testing.T, stall time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		time.Sleep(stall)
		// A plain loop: io.Copy between sockets splices through pipes
		// that Go keeps pooled after the test, which the leak check
		// would count.
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// warmNetpoll makes Go's poller open its epoll and wakeup descriptors,
// which it keeps for the life of the process, before the leak check
// counts descriptors.
func warmNetpoll(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}

// runStalled sends 20 requests at 100/s to a server that stalls 300ms and
// returns the group's latency histogram.
func runStalled(t *testing.T, open bool, start func(Spec) (*Group, error)) (sample.Hist, Stats) {
	t.Helper()
	addr := stallServer(t, 300*time.Millisecond)
	g, err := start(Spec{Protocol: "echo", Addrs: []string{addr}, Connections: 1, Payload: 16,
		Interval: 10 * time.Millisecond, Requests: 20, Open: open})
	if err != nil {
		t.Fatal(err)
	}
	leaktest.WaitFor(t, "20 answers", func() bool { return g.Stats().Requests == 20 })
	g.Stop()
	return g.Latency().Hist(), g.Stats()
}

// Open loop keeps sending on schedule through a stall and measures from
// each request's due time, so every request due during the stall shows
// it; closed loop waits, and only its first request does (coordinated
// omission).
func TestOpenLoopShowsAStall(t *testing.T) {
	warmNetpoll(t)
	leaktest.Check(t)
	open, st := runStalled(t, true, StartNet)
	if st.Errors != 0 {
		t.Fatalf("open loop: %+v", st)
	}
	// The requests due in the first 150ms of the 300ms stall waited at
	// least the other 150ms.
	if p50 := open.Quantile(0.5); p50 < 100_000 {
		t.Errorf("open loop p50 %.0fµs; the stall should reach most requests", p50)
	}
	closed, st := runStalled(t, false, StartNet)
	if st.Errors != 0 {
		t.Fatalf("closed loop: %+v", st)
	}
	if p50 := closed.Quantile(0.5); p50 >= 100_000 {
		t.Errorf("closed loop p50 %.0fµs; only its first request should wait out the stall", p50)
	}
	if mx := closed.Quantile(1); mx < 250_000 {
		t.Errorf("closed loop max %.0fµs, want the stall", mx)
	}
}

// The engine's client bootstrap keeps the same schedule: its batches are
// scheduled tasks on the client loop, sent whether or not answers came.
func TestEngineOpenLoopShowsAStall(t *testing.T) {
	warmNetpoll(t)
	leaktest.Check(t)
	group, err := reactor.NewEventLoopGroup("client", 1, reactor.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		group.ShutdownGracefully(0, time.Second)
		group.AwaitTermination(10 * time.Second)
	}()
	start := func(s Spec) (*Group, error) { return StartEngine(s, group) }
	open, st := runStalled(t, true, start)
	if st.Errors != 0 {
		t.Fatalf("open loop: %+v", st)
	}
	if p50 := open.Quantile(0.5); p50 < 100_000 {
		t.Errorf("open loop p50 %.0fµs; the stall should reach most requests", p50)
	}
}

// RequestSize is the mean request of each protocol.
func TestRequestSize(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		payload  int
		want     int
	}{
		{protocol: "echo", payload: 64, want: 64},
		{protocol: "resp", want: 10}, // PING\r\n and *1\r\n$4\r\nPING\r\n alternate
		{protocol: "nope", want: 0},
	} {
		if got := RequestSize(tc.protocol, tc.payload); got != tc.want {
			t.Errorf("RequestSize(%s, %d) = %d, want %d", tc.protocol, tc.payload, got, tc.want)
		}
	}
}

// Two copies of a histogram, as samples carry it, subtract to the
// latencies in between.
func TestHistSince(t *testing.T) {
	var h Histogram
	for _, us := range []int{10, 20, 30} {
		h.Record(time.Duration(us) * time.Microsecond)
	}
	old := h.Hist()
	for _, us := range []int{500, 600, 700, 800} {
		h.Record(time.Duration(us) * time.Microsecond)
	}
	now := h.Hist()
	d := now.Since(&old)
	if d.N != 4 || d.Quantile(0) < 490 || d.Quantile(1) < 780 || d.Quantile(1) > 800 {
		t.Errorf("since: n %d, min %.0f, max %.0f", d.N, d.Quantile(0), d.Quantile(1))
	}
	if all := now.Since(nil); all.N != 7 || all.Quantile(0) != 10 {
		t.Errorf("all: n %d, min %.0f", all.N, all.Quantile(0))
	}
	if now.Quantile(1) != 800 || now.Quantile(0.5) != 500 {
		t.Errorf("whole: max %.0f, p50 %.0f; want 800 and 500", now.Quantile(1), now.Quantile(0.5))
	}
	if !now.Valid() || (&sample.Hist{N: 1, Counts: []uint64{3, 2}}).Valid() {
		t.Error("Valid: a histogram's copy is valid, counts that do not add up are not")
	}
}

// An open-loop connection whose answer fails leaves no request in flight
// behind it: its loop's windows would count the dead request's age,
// growing, as a client still waiting.
func TestFailedAnswerLeavesNoRequestWaiting(t *testing.T) {
	warmNetpoll(t)
	leaktest.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { // answers the first request, then hangs up
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 16)
		if _, err := io.ReadFull(c, buf); err == nil {
			_, _ = c.Write(buf)
		}
	}()
	defer func() { ln.Close(); <-done }()
	var served Histogram
	g, err := StartNet(Spec{Protocol: "echo", Addrs: []string{ln.Addr().String()}, Connections: 1, Payload: 16,
		Interval: 10 * time.Millisecond, Open: true,
		Route: func(int) (*Histogram, time.Time) { return &served, time.Time{} }})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	leaktest.WaitFor(t, "the first answer and a failed one", func() bool { return g.Stats().Requests == 1 && g.Stats().Errors > 0 })
	g.Stop()
	if w := served.Waiting(time.Now()); w != nil {
		t.Errorf("%d request(s) still waiting on a connection that failed, the oldest %v", w.N, time.Duration(w.MaxNS))
	}
}
