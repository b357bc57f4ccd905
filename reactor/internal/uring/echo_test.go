//go:build linux

package uring

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/reactorviz/reactorviz/internal/leaktest"
)

func dial(t testing.TB, s *echoServer) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*net.TCPConn)
}

// echoRoundTrip writes msg and reads the same number of bytes back.
func echoRoundTrip(t testing.TB, c net.Conn, msg []byte) {
	t.Helper()
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("echo differs: sent %d bytes, got back different bytes", len(msg))
	}
}

func payload(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// A message larger than one provided buffer arrives as several receives,
// each short of the message; the echo must still come back whole and in
// order. Dribbled single bytes are the other kind of short read.
func TestEchoShortReads(t *testing.T) {
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{bufSize: 512})
	c := dial(t, s)
	msg := payload(64<<10, 1)
	echoRoundTrip(t, c, msg)
	if got, min := s.st.recvs.Load(), int64(len(msg)/512); got < min {
		t.Errorf("%d receives for %d bytes in 512-byte buffers, want at least %d", got, len(msg), min)
	}
	for i := range 64 {
		echoRoundTrip(t, c, msg[i:i+1])
	}
}

// A peer that keeps writing but does not read fills its receive window, so
// the server's sends complete short and must be continued from where they
// stopped, ahead of anything gathered since.
func TestEchoPartialSends(t *testing.T) {
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{})
	c := dial(t, s)
	if err := c.SetReadBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	msg := payload(8<<20, 2)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(msg)
		errc <- err
	}()
	// Read only once the server has all of it: its sends pile up against
	// a full window meanwhile.
	leaktest.WaitFor(t, "the server to receive everything", func() bool { return s.st.bytesIn.Load() == int64(len(msg)) })
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("echo differs")
	}
	if s.st.partialSends.Load() == 0 {
		t.Errorf("no short send seen across %d sends", s.st.sends.Load())
	}
}

// A peer that resets while a multishot recv is armed (and halfway through
// a message) ends that recv with an error; the server cancels nothing
// twice, closes the descriptor and stays up for the next client.
func TestEchoPeerResetMidRecv(t *testing.T) {
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{})
	c := dial(t, s)
	echoRoundTrip(t, c, []byte("first half of a request"))
	if _, err := c.Write([]byte("second half, never fin")); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	_ = c.Close() // SO_LINGER 0: an RST, not a FIN
	leaktest.WaitFor(t, "the reset connection to be closed", func() bool { return s.st.closed.Load() == 1 })
	// The reset reaches whichever operation meets it first: the armed recv
	// (ECONNRESET) or the echo's send (EPIPE, which consumes the socket's
	// error so the recv then sees EOF). Either way one of them fails.
	if s.st.resets.Load() == 0 {
		t.Errorf("no operation failed on the reset connection (EOF %d)", s.st.eof.Load())
	}
	echoRoundTrip(t, dial(t, s), []byte("still serving"))
}

// One provided buffer of 16 bytes and a 4 KiB write: the multishot recv
// fills the buffer, finds the ring empty on its next try and ends with
// -ENOBUFS. The server recycles and re-arms; nothing is lost.
func TestEchoBufferExhaustion(t *testing.T) {
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{bufCount: 1, bufSize: 16})
	c := dial(t, s)
	echoRoundTrip(t, c, payload(4096, 3))
	if s.st.enobufs.Load() == 0 {
		t.Error("no ENOBUFS with one 16-byte buffer for a 4 KiB write")
	}
}

// Shutdown with receives armed on idle connections and a send stuck
// against a full window: every operation is cancelled and reaped before
// any descriptor is closed, and nothing is left in flight (stop checks).
func TestEchoCloseWithOpsInFlight(t *testing.T) {
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{})
	const idle = 50
	var conns []*net.TCPConn
	for range idle {
		c := dial(t, s)
		echoRoundTrip(t, c, []byte("x"))
		conns = append(conns, c)
	}
	stuck := dial(t, s)
	if err := stuck.SetReadBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	big := payload(4<<20, 4)
	go func() { _, _ = stuck.Write(big) }()
	leaktest.WaitFor(t, "a send to stall", func() bool { return s.st.partialSends.Load() > 0 })
	s.stop(t)
	if got := s.st.cancelled.Load(); got < idle {
		t.Errorf("%d operations cancelled, want at least %d", got, idle)
	}
	if got, want := s.st.closed.Load(), s.st.accepted.Load(); got != want {
		t.Errorf("%d connections closed of %d accepted", got, want)
	}
	for _, c := range conns {
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("client read after shutdown: %v, want EOF", err)
			break
		}
	}
}

// Every connection gets its own echo through one multishot accept and
// one buffer group; then all close and every descriptor comes back. The
// clients run in a child process (this test binary again), so that the
// two ends together do not need more descriptors than one process may
// have.
func TestEchoManyConnections(t *testing.T) {
	n := 10000
	if raceEnabled || testing.Short() {
		n = 2000
	}
	raiseFDLimit(t, n+1000)
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{entries: 1024, bufCount: 1024, bufSize: 2048})
	cmd := exec.Command(os.Args[0], "-test.run=^TestEchoClientProcess$")
	cmd.Env = append(os.Environ(), clientAddrEnv+"="+s.addr, clientCountEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = stdin.Close()
		t.Fatalf("client process: %q, %v; %v", line, err, cmd.Wait())
	}
	if got := s.st.open.Load(); got != int64(n) {
		t.Errorf("%d connections open, want %d", got, n)
	}
	_ = stdin.Close() // the clients close everything and exit
	if err := cmd.Wait(); err != nil {
		t.Fatalf("client process: %v", err)
	}
	leaktest.WaitFor(t, "every connection to close", func() bool { return s.st.closed.Load() == int64(n) })
	s.stop(t)
	t.Logf("%d connections: %+v", n, s.final)
}

const (
	clientAddrEnv  = "URING_ECHO_CLIENT_ADDR"
	clientCountEnv = "URING_ECHO_CLIENT_COUNT"
)

// TestEchoClientProcess is the client side of TestEchoManyConnections,
// run in a child process: it opens the connections, echoes once on each,
// says "ready", and closes them all when its stdin closes.
func TestEchoClientProcess(t *testing.T) {
	addr := os.Getenv(clientAddrEnv)
	if addr == "" {
		t.Skip("the client half of TestEchoManyConnections")
	}
	n, err := strconv.Atoi(os.Getenv(clientCountEnv))
	if err != nil {
		t.Fatal(err)
	}
	raiseFDLimit(t, n+1000)
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 128)
	errs := make(chan error, n)
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
			msg := []byte{byte(i), byte(i >> 8), 'p', 'i', 'n', 'g'}
			got := make([]byte, len(msg))
			if _, err := c.Write(msg); err != nil {
				errs <- err
			} else if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
				errs <- fmt.Errorf("connection %d: echo %q, %v", i, got, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		_ = c.Close()
	}
}

// Many connections each stream random data in random-sized writes while
// reading concurrently; every byte must come back, checked by SHA-256, with
// a small buffer group so exhaustion and short sends happen along the way.
func TestEchoSoak(t *testing.T) {
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{bufCount: 64, bufSize: 1024})
	conns, perConn := 16, 2<<20
	if testing.Short() {
		perConn = 256 << 10
	}
	var wg sync.WaitGroup
	for i := range conns {
		c := dial(t, s)
		wg.Add(2)
		data := payload(perConn, uint64(100+i))
		want := sha256.Sum256(data)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for off := 0; off < len(data); {
				n := min(1+r.IntN(64<<10), len(data)-off)
				if _, err := c.Write(data[off : off+n]); err != nil {
					t.Error(err)
					return
				}
				off += n
			}
		}()
		go func() {
			defer wg.Done()
			h := sha256.New()
			if _, err := io.CopyN(h, c, int64(perConn)); err != nil {
				t.Error(err)
				return
			}
			if !bytes.Equal(h.Sum(nil), want[:]) {
				t.Errorf("connection %d: echoed data differs", i)
			}
		}()
	}
	wg.Wait()
	// A client can hold its last bytes before the server has reaped the
	// send's completion, which is where bytesOut counts them: the counts
	// are read once the server has stopped with nothing in flight.
	s.stop(t)
	if in, out := s.st.bytesIn.Load(), s.st.bytesOut.Load(); in != int64(conns*perConn) || out != in {
		t.Errorf("bytes in %d, out %d, want %d", in, out, conns*perConn)
	}
	t.Logf("soak: recvs %d sends %d partial %d enobufs %d, ring %+v",
		s.st.recvs.Load(), s.st.sends.Load(), s.st.partialSends.Load(), s.st.enobufs.Load(), s.final)
}

// Where the kernel lacks multishot, accept and recv are armed once per
// completion; the echo must not notice.
func TestEchoSingleShot(t *testing.T) {
	leaktest.Check(t)
	s := startEchoServer(t, serverConfig{singleShot: true, bufCount: 4, bufSize: 256})
	for i := range 20 {
		echoRoundTrip(t, dial(t, s), payload(8<<10, uint64(200+i)))
	}
	s.stop(t)
	if got := s.final.Submitted; got < 20*(8<<10)/256 {
		t.Errorf("%d SQEs for single-shot receives of 8 KiB in 256-byte buffers ×20", got)
	}
}
