//go:build linux

package uring

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// echoServer is the smallest completion-based server: one goroutine, locked
// to its OS thread, owning one ring. It is the shape the engine's io_uring
// IoHandler takes, cut down to echo: a multishot accept, a multishot recv
// per connection from one provided-buffer ring, one send per connection per
// batch of completions, and a shutdown that cancels, reaps and only then
// closes.
type echoServer struct {
	cfg  serverConfig
	addr string

	// Owned by the loop goroutine.
	ring        *Ring
	bufs        *BufRing
	lfd, efd    int
	wakeBuf     []byte // the eventfd read's target; reachable while armed
	conns       map[int32]*echoConn
	dirty       []*echoConn
	acceptArmed bool
	shutdown    bool
	cqes        []CQE
	final       Stats // the ring's counters at exit
	finalInFl   uint64
	finalOut    int

	stopping atomic.Bool
	done     chan struct{}
	err      error // set by the loop before done closes
	st       serverStats
}

type serverConfig struct {
	entries    uint32
	bufCount   int
	bufSize    int
	singleShot bool // single-shot accept and recv, re-armed per completion
	coop       bool // Options.CoopTaskrun: COOP_TASKRUN instead of DEFER_TASKRUN
}

// serverStats are counted by the loop and read by tests while it runs.
type serverStats struct {
	accepted, closed, open     atomic.Int64
	recvs, bytesIn, bytesOut   atomic.Int64
	enobufs, resets, cancelled atomic.Int64
	partialSends, sends        atomic.Int64
	eof                        atomic.Int64
}

type echoConn struct {
	fd         int32
	recvArmed  bool
	sending    []byte // the send in flight; the kernel reads it
	sendOff    int
	pending    []byte // replies gathered while a send is in flight
	inflight   int    // operations owed a final completion
	spare      []byte // a sent buffer's storage, for the next pending
	closing    bool   // no more receives; close once done
	dropped    bool   // nothing more to send either: reset or shutdown
	cancelSent bool
	closeSent  bool
	queued     bool // in dirty
}

// User data: the operation kind in the top byte, the descriptor below.
const (
	kindWake = iota + 1
	kindAccept
	kindRecv
	kindSend
	kindCancel
	kindClose
)

func userData(kind int, fd int32) uint64 { return uint64(kind)<<56 | uint64(uint32(fd)) }

func splitUserData(ud uint64) (int, int32) { return int(ud >> 56), int32(uint32(ud)) }

// startEchoServer starts the loop and returns once it listens.
func startEchoServer(t testing.TB, cfg serverConfig) *echoServer {
	t.Helper()
	if cfg.entries == 0 {
		cfg.entries = 256
	}
	if cfg.bufCount == 0 {
		cfg.bufCount = 256
	}
	if cfg.bufSize == 0 {
		cfg.bufSize = 4096
	}
	s := &echoServer{cfg: cfg, done: make(chan struct{}), conns: map[int32]*echoConn{}}
	ready := make(chan error, 1)
	go s.run(ready)
	if err := <-ready; err != nil {
		<-s.done
		if errors.Is(err, ErrUnavailable) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop asks the loop to shut down, from any goroutine, the way every
// other thread reaches it: a write to the eventfd its read is armed on.
func (s *echoServer) stop(t testing.TB) {
	t.Helper()
	if s.stopping.CompareAndSwap(false, true) {
		var one = []byte{1, 0, 0, 0, 0, 0, 0, 0}
		if _, err := unix.Write(s.efd, one); err != nil {
			t.Errorf("wake: %v", err)
		}
	}
	<-s.done
	if s.err != nil {
		t.Errorf("server: %v", s.err)
	}
	if s.finalInFl != 0 || s.finalOut != 0 {
		t.Errorf("leaked: %d operations in flight, %d buffers out at exit", s.finalInFl, s.finalOut)
	}
}

func (s *echoServer) run(ready chan<- error) {
	defer close(s.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := s.open(); err != nil {
		s.closeAll()
		ready <- err
		return
	}
	ready <- nil
	if err := s.loop(); err != nil && s.err == nil {
		s.err = err
	}
	s.final, s.finalInFl, s.finalOut = s.ring.Stats(), s.ring.InFlight(), s.bufs.Out()
	s.closeAll()
}

func (s *echoServer) open() error {
	var err error
	s.lfd, s.efd = -1, -1
	cq := s.cfg.entries * 16
	if s.ring, err = New(Options{Entries: s.cfg.entries, CQEntries: cq, CoopTaskrun: s.cfg.coop}); err != nil {
		return err
	}
	if !s.ring.Features().Multishot {
		s.cfg.singleShot = true
	}
	if s.bufs, err = s.ring.NewBufRing(1, s.cfg.bufCount, s.cfg.bufSize); err != nil {
		return err
	}
	if s.efd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	if s.lfd, s.addr, err = listenLoopback(); err != nil {
		return err
	}
	s.cqes = make([]CQE, 512)
	s.wakeBuf = make([]byte, 8)
	s.armWake()
	s.armAccept()
	return nil
}

func (s *echoServer) closeAll() {
	if s.bufs != nil {
		_ = s.bufs.Close()
	}
	if s.ring != nil {
		_ = s.ring.Close()
	}
	for _, fd := range []int{s.lfd, s.efd} {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

func listenLoopback() (int, string, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return -1, "", os.NewSyscallError("socket", err)
	}
	fail := func(call string, err error) (int, string, error) {
		_ = unix.Close(fd)
		return -1, "", os.NewSyscallError(call, err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fail("bind", err)
	}
	if err := unix.Listen(fd, 4096); err != nil {
		return fail("listen", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	return fd, fmt.Sprintf("127.0.0.1:%d", sa.(*unix.SockaddrInet4).Port), nil
}

// loop is the EventLoop: submit and wait, reap, run handlers, flush the
// batch's replies. It ends when shutdown has left nothing in flight.
func (s *echoServer) loop() error {
	for !s.finished() {
		if s.err != nil {
			return s.err
		}
		if _, err := s.ring.SubmitAndWait(1, -1); err != nil {
			return err
		}
		for {
			n := s.ring.Reap(s.cqes)
			if n == 0 {
				break
			}
			for i := range n {
				s.handle(&s.cqes[i])
			}
		}
		s.flush()
	}
	return nil
}

func (s *echoServer) finished() bool {
	return s.shutdown && len(s.conns) == 0 && s.ring.InFlight() == 0 && s.ring.SQReady() == 0
}

// sqe returns a free SQE, submitting the queue first when it is full.
func (s *echoServer) sqe(ud uint64) *SQE {
	e := s.ring.GetSQE()
	if e == nil {
		_, _ = s.ring.Submit()
		if e = s.ring.GetSQE(); e == nil {
			// Never expected: Submit empties the queue. The entry
			// handed back is not the ring's, and the loop stops.
			s.fail(errors.New("submission queue stays full"))
			e = &SQE{}
		}
	}
	e.UserData = ud
	return e
}

func (s *echoServer) armWake() {
	s.sqe(userData(kindWake, 0)).PrepRead(s.efd, s.wakeBuf)
}

func (s *echoServer) armAccept() {
	s.sqe(userData(kindAccept, int32(s.lfd))).PrepAccept(s.lfd, !s.cfg.singleShot, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	s.acceptArmed = true
}

func (s *echoServer) armRecv(c *echoConn) {
	s.sqe(userData(kindRecv, c.fd)).PrepRecv(int(c.fd), s.bufs.Group(), !s.cfg.singleShot)
	c.recvArmed = true
	c.inflight++
}

func (s *echoServer) handle(c *CQE) {
	kind, fd := splitUserData(c.UserData)
	switch {
	case kind == kindWake:
		s.onWake(c)
	case kind == kindAccept:
		s.onAccept(c)
	case kind == kindClose:
		s.st.closed.Add(1)
		s.st.open.Add(-1)
	case kind == kindCancel && fd < 0:
		// The listener's accept cancelled; its own completion says so.
	default:
		conn := s.conns[fd]
		if conn == nil {
			s.fail(fmt.Errorf("completion of kind %d for unknown fd %d", kind, fd))
			return
		}
		switch kind {
		case kindRecv:
			s.onRecv(conn, c)
		case kindSend:
			s.onSend(conn, c)
		case kindCancel:
			conn.inflight--
		}
		s.maybeClose(conn)
	}
}

func (s *echoServer) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// onWake runs when another thread wrote the eventfd: the completion of the
// read kept armed on it is the wakeup.
func (s *echoServer) onWake(c *CQE) {
	if s.stopping.Load() {
		s.beginShutdown()
		return
	}
	if c.Res < 0 && c.Res != -int32(unix.ECANCELED) {
		s.fail(fmt.Errorf("eventfd read: %v", c.Err()))
	}
	s.armWake()
}

func (s *echoServer) onAccept(c *CQE) {
	if !c.More() {
		s.acceptArmed = false
	}
	if c.Res >= 0 {
		fd := c.Res
		if s.shutdown {
			_ = unix.Close(int(fd))
		} else {
			conn := &echoConn{fd: fd}
			s.conns[fd] = conn
			s.st.accepted.Add(1)
			s.st.open.Add(1)
			s.armRecv(conn)
		}
	}
	if !s.acceptArmed && !s.shutdown {
		s.armAccept()
	}
}

// onRecv copies what a completion delivered into the connection's pending
// replies and hands the buffer straight back, so the ring refills within
// the same batch.
func (s *echoServer) onRecv(conn *echoConn, c *CQE) {
	if !c.More() {
		conn.recvArmed = false
		conn.inflight--
	}
	if data, id, ok := s.bufs.Take(c); ok {
		if !conn.dropped {
			conn.pending = append(conn.pending, data...)
			s.markDirty(conn)
		}
		s.bufs.Recycle(id)
	}
	switch {
	case c.Res > 0:
		s.st.recvs.Add(1)
		s.st.bytesIn.Add(int64(c.Res))
	case c.Res == 0:
		// EOF: the peer is done writing. Send what is left, then close.
		s.st.eof.Add(1)
		conn.closing = true
	case c.Res == -int32(unix.ENOBUFS):
		// The ring ran dry and the multishot recv ended; the buffers
		// are back by now, so arm it again.
		s.st.enobufs.Add(1)
	case c.Res == -int32(unix.ECANCELED):
		s.st.cancelled.Add(1)
	default:
		s.st.resets.Add(1)
		s.dropConn(conn)
	}
	if !conn.recvArmed && !conn.closing {
		s.armRecv(conn)
	}
}

func (s *echoServer) onSend(conn *echoConn, c *CQE) {
	conn.inflight--
	if c.Res < 0 {
		if c.Res == -int32(unix.ECANCELED) {
			s.st.cancelled.Add(1)
		} else {
			s.st.resets.Add(1)
		}
		s.dropConn(conn)
		return
	}
	s.st.bytesOut.Add(int64(c.Res))
	conn.sendOff += int(c.Res)
	if conn.sendOff < len(conn.sending) && !conn.dropped {
		// A short send: the socket took part of it. Send the rest
		// before anything gathered since, to keep the byte order.
		s.st.partialSends.Add(1)
		s.submitSend(conn, conn.sending[conn.sendOff:])
		return
	}
	conn.spare, conn.sending, conn.sendOff = conn.sending[:0], nil, 0
	if len(conn.pending) > 0 {
		s.markDirty(conn)
	}
}

// dropConn forgets what the connection still had to send: its peer has
// gone, or the server is shutting down.
func (s *echoServer) dropConn(conn *echoConn) {
	conn.closing, conn.dropped = true, true
	conn.pending = nil
}

func (s *echoServer) markDirty(conn *echoConn) {
	if !conn.queued {
		conn.queued = true
		s.dirty = append(s.dirty, conn)
	}
}

// flush sends, once per batch, everything each connection gathered: one
// send of all its replies, as Netty flushes once per read batch
// (ChannelInboundHandler.channelReadComplete).
func (s *echoServer) flush() {
	for _, conn := range s.dirty {
		conn.queued = false
		if conn.sending == nil && len(conn.pending) > 0 && !conn.dropped {
			conn.sending, conn.pending, conn.spare = conn.pending, conn.spare, nil
			s.submitSend(conn, conn.sending)
		}
		s.maybeClose(conn)
	}
	s.dirty = s.dirty[:0]
}

func (s *echoServer) submitSend(conn *echoConn, b []byte) {
	s.sqe(userData(kindSend, conn.fd)).PrepSend(int(conn.fd), b, 0)
	conn.inflight++
	s.st.sends.Add(1)
}

// maybeClose closes a connection that is done: replies still owed go out
// first (unless dropped), then whatever is still armed on it is cancelled,
// and once every operation has completed the descriptor is closed from
// the ring. Closing earlier could let a late completion land on a
// descriptor number already reused by a new connection.
func (s *echoServer) maybeClose(conn *echoConn) {
	if !conn.closing || conn.queued || conn.closeSent {
		return
	}
	if !conn.dropped && (conn.sending != nil || len(conn.pending) > 0) {
		return
	}
	if conn.inflight > 0 {
		if !conn.cancelSent && (conn.recvArmed || conn.dropped) {
			s.sqe(userData(kindCancel, conn.fd)).PrepCancelFD(int(conn.fd))
			conn.cancelSent = true
			conn.inflight++
		}
		return
	}
	s.sqe(userData(kindClose, conn.fd)).PrepClose(int(conn.fd))
	conn.closeSent = true
	delete(s.conns, conn.fd)
}

// beginShutdown cancels the accept and every connection's operations; the
// loop then reaps until nothing is in flight.
func (s *echoServer) beginShutdown() {
	s.shutdown = true
	if s.acceptArmed {
		s.sqe(userData(kindCancel, -1)).PrepCancel(userData(kindAccept, int32(s.lfd)))
	}
	for _, conn := range s.conns {
		s.dropConn(conn)
		s.maybeClose(conn)
	}
}
