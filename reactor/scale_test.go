package reactor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkScale10k serves 10 000 concurrent connections with one boss and
// one worker per CPU, and echoes scaleRounds requests on every one of them.
// The client ends live in a child process (this test binary, re-run as
// TestHelperScaleClient), for the reason BenchmarkIdleConnMemory gives:
// 20 000 descriptors would not fit one process here. The child writes a
// distinct 32-byte request on every connection, then reads every answer
// back and compares it byte for byte; a wrong, short or late answer (10 s)
// or any socket error counts as an error, and the benchmark fails unless
// there are none.
//
// It reports the errors, the requests per second of the echo rounds (all
// connections busy at once, one request each per round), and the server's
// memory: live heap per connection above the baseline, once with the
// connections idle and once after the traffic, and the process's resident
// set. It is a benchmark so that the default go test stays fast:
//
//	go test -run '^$' -bench Scale10k -benchtime 1x ./reactor/
func BenchmarkScale10k(b *testing.B) {
	const conns = 10_000
	if err := raiseFDLimit(conns + 1000); err != nil {
		b.Skipf("cannot raise the fd limit for %d connections: %v", conns, err)
	}
	for i := 0; i < b.N; i++ {
		r := scaleRun(b, conns, scaleRounds)
		b.ReportMetric(float64(r.errors), "errors")
		b.ReportMetric(r.reqPerSec, "req/s")
		b.ReportMetric(r.idleHeap, "idle-heap-B/conn")
		b.ReportMetric(r.busyHeap, "busy-heap-B/conn")
		b.ReportMetric(r.rssMiB, "rss-MiB")
		b.ReportMetric(r.rssPerConn, "rss-B/conn")
		if r.errors != 0 {
			b.Fatalf("%d errors over %d connections (first: %s)", r.errors, conns, r.firstErr)
		}
	}
}

// scaleRounds is how many requests each connection sends, one at a time.
const scaleRounds = 10

// scaleMsgLen is the size of one request; the answer is the same bytes.
const scaleMsgLen = 32

type scaleResult struct {
	errors     int
	firstErr   string
	reqPerSec  float64
	idleHeap   float64 // live heap per connection, connections open and idle
	busyHeap   float64 // the same after every connection has echoed
	rssMiB     float64 // resident set with every connection open
	rssPerConn float64 // resident set per connection above the baseline
}

func scaleRun(b *testing.B, conns, rounds int) scaleResult {
	s := newServer(b, 1, runtime.NumCPU(), Config{}, echoInit)
	defer s.shutdown()
	sc, worker := s.ch, s.worker
	// Warm every worker, so its read buffer is in the baseline, not in
	// the figure per connection.
	warm := holdConns(b, sc.Addr(), worker.Size())
	waitChannels(worker, int64(worker.Size()))
	baseHeap, baseRSS := liveHeap(), residentBytes(b)

	c := startChild(b, "TestHelperScaleClient", fmt.Sprintf("REACTORVIZ_SCALE=%s,%d,%d", sc.Addr(), conns, rounds))
	defer c.close()
	c.expect(b, "connected")
	waitChannels(worker, int64(conns+worker.Size()))
	var r scaleResult
	r.idleHeap = float64(liveHeap()-baseHeap) / float64(conns)
	rss := residentBytes(b)
	r.rssMiB = float64(rss) / (1 << 20)
	r.rssPerConn = float64(rss-baseRSS) / float64(conns)

	c.send(b, "go")
	line := c.expect(b, "done")
	fields := parseFields(line)
	r.errors, _ = strconv.Atoi(fields["errors"])
	r.firstErr = fields["first"]
	ns, _ := strconv.ParseFloat(fields["ns"], 64)
	if ns > 0 {
		r.reqPerSec = float64(conns*rounds) / (ns / 1e9)
	}
	r.busyHeap = float64(liveHeap()-baseHeap) / float64(conns)
	c.close()
	warm.close()
	return r
}

// residentBytes returns this process's resident set size.
func residentBytes(b *testing.B) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// parseFields reads "key=value" words; a value may not contain spaces,
// except the last one, "first=", which takes the rest of the line.
func parseFields(line string) map[string]string {
	m := map[string]string{}
	if i := strings.Index(line, " first="); i >= 0 {
		m["first"] = line[i+len(" first="):]
		line = line[:i]
	}
	for _, w := range strings.Fields(line) {
		if k, v, ok := strings.Cut(w, "="); ok {
			m[k] = v
		}
	}
	return m
}

// child is a helper process, the test binary re-run as one TestHelper test,
// and the two pipes that steer it. The benchmarks keep their clients' ends
// in a child: the descriptor limit does not fit both ends of 10 000
// connections in one process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	done  bool
}

// startChild runs the test named helper in a child process with env (a
// KEY=VALUE pair) added to its environment.
func startChild(b *testing.B, helper, env string) *child {
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$")
	cmd.Env = append(os.Environ(), env)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &child{cmd: cmd, stdin: stdin, out: bufio.NewReader(out)}
}

// expect reads the child's next line and fails unless it starts with word.
func (c *child) expect(b *testing.B, word string) string {
	line, err := c.out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, word) {
		b.Fatalf("%s: want %q, got %q (%v)", c.cmd.Args[1], word, line, err)
	}
	return strings.TrimSpace(line)
}

func (c *child) send(b *testing.B, line string) {
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		b.Fatal(err)
	}
}

// close ends the child: closing its stdin makes it exit, which closes its
// connections.
func (c *child) close() {
	if c.done {
		return
	}
	c.done = true
	c.stdin.Close()
	c.cmd.Wait()
}

// TestHelperScaleClient is not a test: it is the child process of
// BenchmarkScale10k, and does nothing unless REACTORVIZ_SCALE is set. It
// connects, says "connected", waits for "go", runs the echo rounds, says
// "done" with its counts, and exits when its stdin closes.
func TestHelperScaleClient(t *testing.T) {
	spec := os.Getenv("REACTORVIZ_SCALE")
	if spec == "" {
		t.Skip("helper process only")
	}
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		t.Fatalf("bad REACTORVIZ_SCALE %q", spec)
	}
	ap, err := netip.ParseAddrPort(parts[0])
	conns, _ := strconv.Atoi(parts[1])
	rounds, _ := strconv.Atoi(parts[2])
	if err != nil || conns <= 0 || rounds <= 0 {
		t.Fatalf("bad REACTORVIZ_SCALE %q", spec)
	}
	if err := raiseFDLimit(uint64(conns) + 100); err != nil {
		t.Fatal(err)
	}
	fds := make([]int, conns)
	sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	// A late answer is an error, not a hang.
	timeout := unix.NsecToTimeval(int64(10 * time.Second))
	for i := range fds {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Connect(fd, sa); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &timeout)
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		fds[i] = fd
	}
	in := bufio.NewReader(os.Stdin)
	fmt.Println("connected")
	if line, err := in.ReadString('\n'); err != nil || strings.TrimSpace(line) != "go" {
		os.Exit(0)
	}

	errs, first := 0, ""
	fail := func(format string, args ...any) {
		if errs == 0 {
			first = fmt.Sprintf(format, args...)
		}
		errs++
	}
	msg := make([]byte, scaleMsgLen)
	got := make([]byte, scaleMsgLen)
	start := time.Now()
	for r := 0; r < rounds; r++ {
		// Every connection gets its request before any answer is read, so
		// all of them are in flight at once.
		for i, fd := range fds {
			scaleMessage(msg, i, r)
			if n, err := unix.Write(fd, msg); n != len(msg) || err != nil {
				fail("write conn %d round %d: n=%d %v", i, r, n, err)
			}
		}
		for i, fd := range fds {
			scaleMessage(msg, i, r)
			if err := readFull(fd, got); err != nil {
				fail("read conn %d round %d: %v", i, r, err)
				continue
			}
			if !bytes.Equal(got, msg) {
				fail("conn %d round %d: got %q, want %q", i, r, got, msg)
			}
		}
	}
	elapsed := time.Since(start)
	fmt.Printf("done conns=%d rounds=%d errors=%d ns=%d first=%s\n", conns, rounds, errs, elapsed.Nanoseconds(), first)
	io.Copy(io.Discard, in) // hold the connections until the parent is done
	os.Exit(0)
}

// scaleMessage fills msg with the request of connection i in round r: the
// pair in decimal, padded to scaleMsgLen, so that an answer sent to the
// wrong connection or out of order cannot pass for the right one.
func scaleMessage(msg []byte, i, r int) {
	s := fmt.Sprintf("conn %06d round %04d", i, r)
	n := copy(msg, s)
	for ; n < len(msg)-1; n++ {
		msg[n] = '.'
	}
	msg[len(msg)-1] = '\n'
}

// readFull reads len(p) bytes from a blocking socket.
func readFull(fd int, p []byte) error {
	for off := 0; off < len(p); {
		n, err := unix.Read(fd, p[off:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			return io.ErrUnexpectedEOF
		}
		off += n
	}
	return nil
}
