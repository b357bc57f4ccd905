//go:build linux && !nolive

package reactor

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor/internal/uring"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"golang.org/x/sys/unix"
)

// countRings makes newRing count the rings it made and refuse the one
// numbered fail with EMFILE, as a full descriptor table refuses it, until
// the test ends.
func countRings(t *testing.T, fail int32) (made *atomic.Int32) {
	made = new(atomic.Int32)
	newRing = func(o uring.Options) (*uring.Ring, error) {
		if made.Add(1) == fail {
			return nil, unix.EMFILE
		}
		return uring.New(o)
	}
	t.Cleanup(func() { newRing = uring.New })
	return made
}

// A loop's ring is made when its group is built, as IoUringIoHandler's
// constructor makes it: a ring the kernel refuses fails the group's
// creation with the loop's name and the reason, and the rings already made
// for the loops before it are closed (the leak check counts descriptors),
// so no connection is ever dealt to a loop without a ring.
func TestIOUringGroupWithoutARingFailsToBuild(t *testing.T) {
	if err := probeIOUring(); err != nil {
		t.Skip(err)
	}
	leakCheck(t)
	made := countRings(t, 3)
	g, err := NewEventLoopGroup("worker", 4, uringCfg)
	if err == nil {
		g.ShutdownGracefully(0, 0)
		t.Fatal("a group was built with a loop whose ring was refused")
	}
	if !strings.Contains(err.Error(), "worker-2: io_uring ring setup failed") || !errors.Is(err, unix.EMFILE) {
		t.Fatalf("group creation failed with %v", err)
	}
	if n := made.Load(); n != 3 {
		t.Fatalf("%d rings asked for, want 3 (worker-3 is never built)", n)
	}
	// Once the kernel makes rings again, a group is built and serves.
	s := startServer(t, 1, 2, uringCfg, echoInit)
	for range 4 {
		echoOnce(t, dial(t, s.addr()), "next")
	}
}

// A ring made with its group that fails to start on its loop's thread (its
// provided buffers refused memory) says why, in its error and in an
// exception event, stops, and is dealt no more connections: every later
// connection is answered by the workers that run. Only the connection that
// started it is lost.
func TestIOUringWorkerWhoseRingCannotStartTakesNoConnections(t *testing.T) {
	if err := probeIOUring(); err != nil {
		t.Skip(err)
	}
	leakCheck(t)
	var starts atomic.Int32
	startRing = func(r *uring.Ring) error {
		if starts.Add(1) == 3 { // boss-0, worker-0, then worker-1
			return unix.ENOMEM
		}
		return r.Enable()
	}
	t.Cleanup(func() { startRing = (*uring.Ring).Enable })
	coll, rec := newTraced(t)
	cfg := uringCfg
	cfg.Collector = coll
	s := startServer(t, 1, 2, cfg, echoInit)
	c0 := dial(t, s.addr())
	echoOnce(t, c0, "first") // worker-0
	// The second connection is dealt to worker-1, whose start fails: the
	// loop closes what it was given.
	c1 := dial(t, s.addr())
	c1.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c1.Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection dealt to the failed worker was served")
	} else if err != io.EOF && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("the connection dealt to the failed worker: %v", err)
	}
	w1 := s.worker.Loops()[1]
	<-w1.Terminated()
	if err := w1.Err(); err == nil || !strings.Contains(err.Error(), "worker-1: io_uring ring start failed") || !errors.Is(err, unix.ENOMEM) {
		t.Fatalf("worker-1 stopped with %v", err)
	}
	for range 8 {
		echoOnce(t, dial(t, s.addr()), "next")
	}
	coll.Settle()
	idx := loopIndex(t, coll, "worker-1")
	ex := rec.ofKind(idx, trace.KindException)
	if len(ex) != 1 || !strings.Contains(ex[0].Str, "io_uring ring start failed") {
		t.Fatalf("worker-1's exception events: %+v", ex)
	}
}

// fillTable lowers the descriptor limit to a little above what the process
// holds and fills the table with duplicates, leaving free descriptors; the
// returned func frees them and restores the limit.
func fillTable(t *testing.T, free int) (release func()) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = uint64(leaktest.FDs(t) + 32)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	var fillers []int
	release = func() {
		for _, fd := range fillers {
			unix.Close(fd)
		}
		fillers = nil
		unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	}
	t.Cleanup(release)
	for {
		fd, err := unix.Dup(0)
		if err != nil {
			break
		}
		fillers = append(fillers, fd)
	}
	for range free {
		unix.Close(fillers[len(fillers)-1])
		fillers = fillers[:len(fillers)-1]
	}
	return release
}

// On a real full descriptor table a group of io_uring loops is refused
// when it is built, with EMFILE, and gives back every descriptor it took.
func TestIOUringGroupOnAFullTable(t *testing.T) {
	if err := probeIOUring(); err != nil {
		t.Skip(err)
	}
	leakCheck(t)
	release := fillTable(t, 3) // worker-0's eventfd and ring, worker-1's eventfd
	g, err := NewEventLoopGroup("worker", 2, uringCfg)
	release()
	if err == nil {
		g.ShutdownGracefully(0, 0)
		<-g.Loops()[1].Terminated()
		t.Fatal("a group was built on a full descriptor table")
	}
	if !strings.Contains(err.Error(), "worker-1: io_uring ring setup failed") || !errors.Is(err, unix.EMFILE) {
		t.Fatalf("group creation failed with %v", err)
	}
}

// A worker that starts on a full descriptor table serves: its ring was
// made with its group. The test leaves one descriptor free, a client in
// another process connects, the boss accepts it into that last one, and
// worker-1, starting for it, needs no other: the client gets its echo.
func TestIOUringWorkerStartingOnAFullTable(t *testing.T) {
	if err := probeIOUring(); err != nil {
		t.Skip(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash for the client process")
	}
	leakCheck(t)
	s := startServer(t, 1, 2, uringCfg, echoInit)
	echoOnce(t, dial(t, s.addr()), "first") // worker-0 runs
	_, port, _ := net.SplitHostPort(s.addr())
	// The client waits for a line on stdin before it connects, then prints
	// the echo it reads.
	client := exec.Command(bash, "-c", "read x; exec 3<>/dev/tcp/127.0.0.1/"+port+
		"; echo full >&3; read -t 20 y <&3; echo \"got $y\"")
	in, err := client.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Process.Kill(); client.Wait() })
	release := fillTable(t, 1) // one for the boss's accept
	io.WriteString(in, "go\n")
	line, err := bufio.NewReader(out).ReadString('\n')
	release()
	if line != "got full\n" {
		t.Fatalf("the client on the last descriptor read %q (%v)", line, err)
	}
	if w1 := s.worker.Loops()[1]; w1.Err() != nil || w1.State() != trace.StateStarted {
		t.Fatalf("worker-1 is %v with %v", w1.State(), w1.Err())
	}
	for range 8 {
		echoOnce(t, dial(t, s.addr()), "after")
	}
}
