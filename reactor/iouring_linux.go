//go:build linux && !nolive

package reactor

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reactorviz/reactorviz/reactor/internal/uring"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// ErrIOUringUnavailable is wrapped by every error that means this process
// cannot use io_uring (no kernel support, disabled by sysctl, refused by a
// seccomp policy, an operation missing); the message says which.
var ErrIOUringUnavailable = uring.ErrUnavailable

// Sizes of a loop's ring and of its provided-buffer ring. The buffers are
// the recv side of the loop's shared read buffer: the kernel picks one when
// data arrives, so an idle connection pins no memory (IoUringIoHandler's
// IoUringBufferRing).
const (
	uringEntries  = 1024
	uringBufCount = 256
	uringBufSize  = 16 << 10
	uringBufGroup = 1
	uringCQEBatch = 512
	// uringDrainRounds bounds the process/submit rounds of one I/O phase,
	// as processCompletionsAndHandleOverflow bounds its loop to 128.
	uringDrainRounds = 128
	// uringSpareMax is the largest sent buffer kept for the next replies.
	// A larger one, grown under a peer slow to read, goes back to the heap:
	// kept, it would sit beside the next send's buffer, doubling what a
	// channel under backpressure holds.
	uringSpareMax = 64 << 10
)

// Operation kinds in the top byte of an SQE's user data; the descriptor is
// in the low 32 bits. A channel's descriptor is closed only once none of
// its operations is in flight, so the number cannot be reused while a
// completion for it may still arrive.
const (
	opWake uint64 = iota + 1
	opAccept
	opRecv
	opSend
	opCancel
)

// opNames name the kinds in ring_submit and ring_complete events.
var opNames = [...]string{"", "wake", "accept", "recv", "send", "cancel"}

func userData(op uint64, fd int) uint64 { return op<<56 | uint64(uint32(fd)) }

func splitUserData(ud uint64) (uint64, int) { return ud >> 56, int(int32(uint32(ud))) }

// probeIOUring sets up and tears down one ring, once per process, so a
// loop that asks for io_uring fails when it is created, with what is
// missing, rather than on its thread later.
var probeIOUring = sync.OnceValue(func() error {
	r, err := uring.New(uring.Options{Entries: 8, Shared: true})
	if err != nil {
		return err
	}
	if !r.Features().Multishot {
		// Without multishot accept and recv (5.19/6.0) every completion
		// would need a re-arm; the handler is written for the one-SQE shape.
		_ = r.Close()
		return fmt.Errorf("%w: the kernel lacks multishot accept and recv (Linux 6.0+)", uring.ErrUnavailable)
	}
	return r.Close()
})

// uringState is a channel's share of the ring: the operations owed a final
// completion and the send in flight. Loop thread only.
type uringState struct {
	ops       int    // SQEs of this channel without their final completion
	armed     bool   // the multishot recv (or accept) is armed
	cancelled bool   // a cancel of the armed op is in flight
	limited   bool   // the armed recv carries a byte limit (recvLimit)
	sending   []byte // the send in flight: the kernel reads it until it completes
	sendOff   int
	spare     []byte // a sent buffer's storage, reused for the next replies
	queued    bool   // in the handler's dirty list
	fdClosed  bool
}

// uringHandler is Netty 4.2's IoUringIoHandler: one ring per loop. The
// select phase is one io_uring_enter that submits what the last iteration
// prepared and waits for a completion, bounded by the next scheduled
// deadline; the I/O phase processes the completions reaped (the bytes are
// already read, into a provided buffer). A read kept armed on the wakeup
// eventfd is how other threads wake it. Loop thread only, apart from wake.
type uringHandler struct {
	l    *EventLoop
	ring *uring.Ring
	bufs *uring.BufRing
	cqes []uring.CQE
	// n counts the completions reaped and not yet handled, cqes[:n]. An
	// I/O phase that reaches its round limit leaves the last ones here
	// for the next, as Netty's stay in the completion queue.
	n int
	// drainRounds bounds one I/O phase's rounds (uringDrainRounds; a
	// test lowers it to reach the limit at once).
	drainRounds int
	wakeBuf     []byte
	dirty       []*Channel   // channels with replies to send this batch
	held        int          // provided buffer lent to a pipeline, or -1
	noBufs      atomic.Int64 // multishot recvs ended by an empty buffer ring
	// noRecvLimit: the kernel refused a recv's byte limit (before 6.17);
	// recvs are armed without one from then on.
	noRecvLimit bool
	tearingDown bool // the ring is being torn down: re-arm nothing
}

// refuseRecvLimit, set by a test, makes the kernel fail each recv armed
// with a byte limit, as a kernel before 6.17 fails one.
var refuseRecvLimit bool

// newRing is uring.New, and startRing enables a ring; a test makes them
// fail as a full descriptor table or a lack of memory does.
var (
	newRing   = uring.New
	startRing = (*uring.Ring).Enable
)

// create makes the loop's ring when the loop is created, as
// IoUringIoHandler's constructor does when its group is built: a ring the
// kernel refuses (a full descriptor table) fails the group's creation, not
// the first connection dealt to the loop. The ring is made disabled, so
// the loop's thread, started lazily, can still become its single issuer.
func (h *uringHandler) create() error {
	r, err := newRing(uring.Options{Entries: uringEntries, CQEntries: uringEntries * 8, Disabled: true})
	if err != nil {
		return err
	}
	h.ring, h.drainRounds = r, uringDrainRounds
	return nil
}

// open starts the ring on the loop's own thread, which SINGLE_ISSUER then
// ties it to, and registers the provided buffers: they are memory, not a
// descriptor, and a loop that never starts should cost none. On failure
// the ring is closed and the loop has none.
func (h *uringHandler) open() error {
	r := h.ring
	err := startRing(r)
	var b *uring.BufRing
	if err == nil {
		b, err = r.NewBufRing(uringBufGroup, uringBufCount, uringBufSize)
	}
	if err != nil {
		_ = r.Close()
		h.ring = nil
		return err
	}
	h.bufs, h.held = b, -1
	h.cqes = make([]uring.CQE, uringCQEBatch)
	h.wakeBuf = make([]byte, 8)
	h.armWake()
	return nil
}

// sqe returns a free SQE with ud set, submitting first when the queue is
// full.
func (h *uringHandler) sqe(ud uint64) *uring.SQE {
	e := h.ring.GetSQE()
	if e == nil {
		if _, err := h.ring.Submit(); err != nil {
			h.l.selectorFailed(err)
		}
		if e = h.ring.GetSQE(); e == nil {
			h.l.selectorFailed(errors.New("io_uring: submission queue stays full"))
			e = &uring.SQE{} // not the ring's: the loop stops
		}
	}
	e.UserData = ud
	return e
}

func (h *uringHandler) armWake() {
	h.sqe(userData(opWake, h.l.wakeFD)).PrepRead(h.l.wakeFD, h.wakeBuf)
	h.traceSubmit(opWake, h.l.wakeFD, 0)
}

// traceSubmit records one prepared SQE: which operation, on which fd, how
// many bytes it carries, and how many operations are then in flight or
// queued. One atomic load when tracing is off.
func (h *uringHandler) traceSubmit(op uint64, fd, n int) {
	if l := h.l; l.tracing() {
		inFlight := int64(h.ring.InFlight()) + int64(h.ring.SQReady())
		l.emit(trace.Event{Kind: trace.KindRingSubmit, A: int64(fd), B: int64(n), C: inFlight, Str: opNames[op]})
	}
}

// wake is IoUringIoHandler.wakeup: write the eventfd unless a write is
// already pending, whatever the loop is doing. The latch is
// eventfdAsyncNotify.getAndSet(true), here the loop's woken flag, and only
// the loop clears it, when it handles the completion of the eventfd read
// (handleEventFdRead, onWake). So a loop woken and still busy costs no
// second write, but a loop that has handled its wakeup and runs tasks
// costs one: there is no AWAKE state to tell a running loop from a
// sleeping one, as the readiness handlers' nextWakeupNanos does.
func (h *uringHandler) wake() bool { return h.l.wakeSelector() }

// selectPhase submits the iteration's SQEs (sends gathered since the last
// one included) and waits for at least one completion, or not at all when
// tasks are queued; the wait ends at the first scheduled deadline, as
// IoUringIoHandler.run passes the select timeout to submitAndWait.
func (h *uringHandler) selectPhase(handoff int64) int64 {
	l := h.l
	if h.ring == nil {
		return 0
	}
	h.flushSends()
	var wait uint32
	var timeout time.Duration // a poll (wait 0) is traced as timeout 0
	if !l.hasTasks() && h.n == 0 {
		if handoff == 0 {
			handoff = l.now()
		}
		// IoUringIoHandler.run waits delayNanos(now): until the next
		// scheduled task, or SCHEDULE_PURGE_INTERVAL (1 s) with none.
		wait, timeout = h.waitFor(l.nextDeadline(handoff, true), handoff)
	}
	var start int64
	var sqDepth uint32
	add(&l.stats.Selects, 1)
	tracing := l.tracing()
	if tracing {
		start, sqDepth = l.now(), h.ring.SQReady()
		l.emitAt(start, trace.Event{Kind: trace.KindSelectBegin, Str: "io_uring_enter", A: int64(timeout), Flag: l.iterationMark()})
	}
	submitted, err := h.submitAndWait(wait, timeout)
	if err != nil {
		l.selectorFailed(err)
	}
	t := l.now()
	var cqDepth uint32
	if tracing {
		cqDepth = h.ring.CQReady()
	}
	reaped := h.reap()
	if tracing {
		l.emitAt(t, trace.Event{Kind: trace.KindRingEnter, A: int64(submitted), B: int64(wait),
			C: int64(reaped), D: int64(sqDepth), E: int64(cqDepth)})
		l.emitAt(t, trace.Event{Kind: trace.KindSelectEnd, A: int64(h.n), B: t - start})
	}
	return t
}

// waitFor turns a deadline into the enter's wait count and timeout:
// nothing to wait for once it has passed.
func (h *uringHandler) waitFor(deadline, now int64) (uint32, time.Duration) {
	if d := deadline - now; d > 0 {
		return 1, time.Duration(d)
	}
	return 0, 0
}

// submitAndWait is the loop's io_uring_enter, counted: the ring enters
// the kernel only when it has entries to submit or a wait to make (or
// the kernel asks for it), so the enters are the ring's own count, and
// the entries the kernel took are what it returns.
func (h *uringHandler) submitAndWait(wait uint32, timeout time.Duration) (int, error) {
	before := h.ring.Stats().Enters
	submitted, err := h.ring.SubmitAndWait(wait, timeout)
	st := &h.l.stats
	add(&st.RingEnters, int64(h.ring.Stats().Enters-before))
	add(&st.RingSubmitted, int64(max(submitted, 0)))
	return submitted, err
}

// reap copies every posted completion out of the CQ, after those still
// unhandled, growing the batch while the CQ keeps filling it. It returns
// how many it copied, which the loop counts as completions.
func (h *uringHandler) reap() int {
	from := h.n
	for {
		n := h.ring.Reap(h.cqes[h.n:])
		h.n += n
		if h.n < len(h.cqes) {
			add(&h.l.stats.RingCompleted, int64(h.n-from))
			return h.n - from
		}
		h.cqes = append(h.cqes, make([]uring.CQE, len(h.cqes))...)
	}
}

// processIO is the I/O phase of a completion-based loop, as
// IoUringIoHandler.processCompletionsAndHandleOverflow does it: handle the
// completions reaped, then submit at once what handling them queued (the
// replies' sends), reap again and go on, until a round neither submits
// nor finds a completion, at most uringDrainRounds rounds. So a reply to
// a recv leaves in the I/O phase that read it, not after the task batch.
// A handler's panic becomes its channel's exceptionCaught and the batch
// goes on after it. It returns how many completions it handled.
func (h *uringHandler) processIO() int {
	total := 0
	for round := 0; round < h.drainRounds; round++ {
		n := h.n
		for i := 0; i < n; {
			i = h.processFrom(i)
		}
		h.n = 0
		total += n
		if h.ring == nil || !h.submitNow() {
			break // nothing submitted and nothing new reaped: the phase is done
		}
	}
	return total
}

// submitNow prepares the sends queued so far and submits every prepared
// SQE without waiting, then reaps what has completed meanwhile. It reports
// whether it submitted or reaped anything.
func (h *uringHandler) submitNow() bool {
	l := h.l
	h.flushSends()
	sqDepth := h.ring.SQReady()
	submitted := 0
	if sqDepth > 0 {
		var err error
		if submitted, err = h.submitAndWait(0, 0); err != nil {
			l.selectorFailed(err)
			return false
		}
	}
	var cqDepth uint32
	tracing := l.tracing()
	if tracing {
		cqDepth = h.ring.CQReady()
	}
	reaped := h.reap()
	if tracing && (submitted > 0 || reaped > 0) {
		l.emit(trace.Event{Kind: trace.KindRingEnter, A: int64(submitted), C: int64(reaped),
			D: int64(sqDepth), E: int64(cqDepth)})
	}
	return submitted > 0 || h.n > 0
}

func (h *uringHandler) processFrom(i int) (next int) {
	defer func() {
		if r := recover(); r != nil {
			h.recycleHeld()
			_, fd := splitUserData(h.cqes[i].UserData)
			if ch := h.l.channelByFD(fd); ch != nil && ch.u != nil {
				ch.handlerPanicked(r)
				h.settle(ch)
			}
			next = i + 1
		}
	}()
	for ; i < h.n; i++ {
		h.complete(&h.cqes[i])
	}
	return i
}

func (h *uringHandler) complete(c *uring.CQE) {
	op, fd := splitUserData(c.UserData)
	if l := h.l; l.tracing() && op < uint64(len(opNames)) {
		l.emit(trace.Event{Kind: trace.KindRingComplete, A: int64(fd), B: int64(c.Res), C: int64(h.n),
			Flag: c.More(), Str: opNames[op]})
	}
	switch op {
	case opWake:
		h.onWake(c)
		return
	case opCancel:
		return // the cancelled operation reports itself
	}
	ch := h.l.channelByFD(fd)
	if ch == nil || ch.u == nil {
		h.recycle(c) // cannot happen: descriptors outlive their operations
		return
	}
	switch op {
	case opAccept:
		h.onAccept(ch, c)
	case opRecv:
		h.onRecv(ch, c)
	case opSend:
		h.onSend(ch, c)
	}
	h.settle(ch)
}

// settle is what follows every completion of a channel, a handler's panic
// included: a multishot op that ended is armed again while the channel
// reads, and a closed channel's descriptor is closed once nothing of it is
// in flight.
func (h *uringHandler) settle(ch *Channel) {
	if ch.closed() {
		h.finishClose(ch)
		return
	}
	if !ch.u.armed && ch.interest&unix.EPOLLIN != 0 && !h.tearingDown {
		h.arm(ch)
	}
}

// onWake: another thread wrote the eventfd. The latch opens again (from
// here the next wake writes) and the read is armed again, unless the loop
// is tearing the ring down.
func (h *uringHandler) onWake(c *uring.CQE) {
	h.l.woken.Store(false)
	if c.Res == -int32(unix.ECANCELED) || h.tearingDown {
		return
	}
	h.armWake()
}

func (h *uringHandler) recycle(c *uring.CQE) {
	if _, id, ok := h.bufs.Take(c); ok {
		h.bufs.Recycle(id)
	}
}

func (h *uringHandler) recycleHeld() {
	if h.held >= 0 {
		h.bufs.Recycle(uint16(h.held))
		h.held = -1
	}
}

// register arms what a new channel needs: the multishot accept of a server
// channel (IoUringServerSocketChannel), the multishot recv of a child with
// autoRead on. Channels the loop connects itself are not served on a ring.
func (h *uringHandler) register(ch *Channel) error {
	if ch.kind == kindClient {
		return errors.New("register: io_uring loops serve accepted channels only")
	}
	ch.u = &uringState{}
	if ch.kind == kindChild {
		_ = unix.SetsockoptInt(ch.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	if ch.interest&unix.EPOLLIN != 0 {
		h.arm(ch)
	}
	return nil
}

func (h *uringHandler) arm(ch *Channel) {
	u := ch.u
	op := opRecv
	if ch.kind == kindServer {
		op = opAccept
		h.sqe(userData(op, ch.fd)).PrepAccept(ch.fd, true, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	} else {
		e := h.sqe(userData(op, ch.fd))
		e.PrepRecv(ch.fd, h.bufs.Group(), true)
		limit := h.recvLimit(ch)
		e.LimitRecv(uint32(limit))
		if limit > 0 && refuseRecvLimit {
			e.Off = 1 // addr2: the prep fails with -EINVAL, as an old kernel's does
		}
		u.limited = limit > 0
	}
	h.traceSubmit(op, ch.fd, 0)
	u.armed, u.cancelled = true, false
	u.ops++
}

// recvLimit is how many bytes a channel's multishot recv may receive
// before it ends and is armed again. A channel turned unwritable cancels
// its recv, but every completion the recv posted before the cancel went in
// still reaches the pipeline, as Netty 4.2's
// AbstractIoUringStreamChannel.readComplete0 delivers them, and within one
// enter the kernel fills as many provided buffers for one socket as the
// socket and the ring hold: a peer that does not read could carry the
// channel's output far past the mark. The kernel's multishot receive
// length cap (Linux 6.17), proposed by Netty's maintainer for this very
// backpressure, bounds it; Netty 4.2 does not use it yet. The kernel
// checks the limit between receives, each filling up to one buffer, so an
// arm takes at most limit + one buffer - 1: here under half the room left
// below the high-water mark, or one receive once that is less than two
// buffers. So output no larger than its requests passes the mark by one
// buffer at most, and replies twice their requests stay under it until
// the last receive. An idle channel's arm takes half the mark less a
// buffer before it is armed again.
func (h *uringHandler) recvLimit(ch *Channel) int {
	if h.noRecvLimit {
		return 0
	}
	room := ch.loop.cfg.WriteHighWater - ch.pendingOut()
	return max(room/2-uringBufSize, 1)
}

// interestChanged applies a change of read interest (autoRead, write
// backpressure, an accept back-off): arm the multishot op, or cancel it.
// Data a cancelled recv had already taken is still delivered.
func (h *uringHandler) interestChanged(ch *Channel) {
	u := ch.u
	want := ch.interest&unix.EPOLLIN != 0
	switch {
	case want && !u.armed:
		h.arm(ch)
	case !want && u.armed && !u.cancelled:
		op := opRecv
		if ch.kind == kindServer {
			op = opAccept
		}
		h.sqe(userData(opCancel, ch.fd)).PrepCancel(userData(op, ch.fd))
		h.traceSubmit(opCancel, ch.fd, 0)
		u.cancelled = true
	}
}

// onAccept hands a connection the multishot accept produced to a worker,
// as ServerBootstrapAcceptor does for every accepted child.
func (h *uringHandler) onAccept(ch *Channel, c *uring.CQE) {
	u := ch.u
	if !c.More() {
		u.armed = false
		u.ops--
	}
	s := ch.server
	switch {
	case c.Res >= 0 && ch.closed():
		unix.Close(int(c.Res))
	case c.Res >= 0:
		fd, port := int(c.Res), 0
		if h.l.tracing() {
			port = peerPort(fd) // one getpeername, for the trace only
		}
		s.handOff(h.l, fd, port)
	case c.Res == -int32(unix.EMFILE) || c.Res == -int32(unix.ENFILE):
		s.backOff(c.Err())
	case c.Res == -int32(unix.ECANCELED):
	default:
		ch.exception(c.Err())
	}
}

// onRecv passes the bytes a completion carries to the pipeline, then
// returns the buffer to the ring at once so it refills within the batch.
// A multishot recv that ends (ENOBUFS when the ring ran dry) is armed again.
func (h *uringHandler) onRecv(ch *Channel, c *uring.CQE) {
	u := ch.u
	if !c.More() {
		u.armed = false
		u.ops--
	}
	if data, id, ok := h.bufs.Take(c); ok {
		h.held = int(id)
		if !ch.closed() {
			ch.readBytes(data)
			ch.readComplete(len(data))
		}
		h.recycleHeld()
	}
	switch {
	case c.Res > 0, c.Res == -int32(unix.ECANCELED):
	case c.Res == -int32(unix.EINVAL) && u.limited:
		// A kernel before 6.17 refuses the byte limit and received
		// nothing: settle arms the recv again, without one.
		h.noRecvLimit, u.limited = true, false
	case c.Res == 0 && (len(ch.out) > 0 || u.sending != nil):
		// The peer finished sending, and the replies to what it sent are
		// not all out yet: the epoll loop wrote them before it read the
		// EOF; here they leave first, then the channel closes.
		ch.closeAfterFlush()
	case c.Res == 0:
		ch.closeWith("peer closed")
	case c.Res == -int32(unix.ENOBUFS):
		h.noBufs.Add(1)
	default:
		ch.fail(c.Err())
	}
}

// queueSend notes that ch has replies; they go out in one send per channel
// when the loop next enters the ring. A channel whose send is in flight
// sends the rest when that completes: bytes must leave in order.
func (h *uringHandler) queueSend(ch *Channel) {
	u := ch.u
	if u.queued || u.sending != nil || ch.closed() {
		return
	}
	u.queued = true
	h.dirty = append(h.dirty, ch)
}

// flushSends prepares one send per channel with everything it gathered
// since its last send: every reply of a batch leaves in one SQE.
func (h *uringHandler) flushSends() {
	for i, ch := range h.dirty {
		h.dirty[i] = nil
		ch.u.queued = false
		if !ch.closed() && len(ch.out) > 0 && ch.u.sending == nil {
			h.startSend(ch)
		}
	}
	h.dirty = h.dirty[:0]
}

// startSend moves the pending output into the send slot; new replies go to
// the spare buffer meanwhile.
func (h *uringHandler) startSend(ch *Channel) {
	u := ch.u
	u.sending, u.sendOff = ch.out, 0
	ch.out, u.spare = u.spare[:0], nil
	h.submitSend(ch)
}

func (h *uringHandler) submitSend(ch *Channel) {
	u := ch.u
	h.sqe(userData(opSend, ch.fd)).PrepSend(ch.fd, u.sending[u.sendOff:], 0)
	u.ops++
	h.traceSubmit(opSend, ch.fd, len(u.sending)-u.sendOff)
}

// onSend continues a short send before anything newer, then starts the
// replies gathered meanwhile, or closes a channel waiting for its output
// to drain.
func (h *uringHandler) onSend(ch *Channel, c *uring.CQE) {
	l, u := h.l, ch.u
	u.ops--
	if ch.closed() {
		return
	}
	if c.Res < 0 {
		ch.fail(c.Err())
		return
	}
	n := int(c.Res)
	u.sendOff += n
	add(&l.stats.BytesWritten, int64(n))
	sent := u.sending
	partial := u.sendOff < len(sent)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindWrite, A: int64(ch.id), B: int64(ch.fd), C: int64(n), Flag: partial})
	}
	if partial {
		h.submitSend(ch)
		return
	}
	u.spare, u.sending, u.sendOff = nil, nil, 0
	if cap(sent) <= uringSpareMax {
		u.spare = sent[:0]
	}
	switch {
	case len(ch.out) > 0:
		h.startSend(ch)
	case ch.flags&flagCloseOnDrain != 0:
		ch.closeWith("closed after flush")
		return
	}
	ch.checkWritable()
}

// closing is a channel's close on a ring: cancel whatever it has in
// flight; the descriptor is closed when the last of it completes.
func (h *uringHandler) closing(ch *Channel) {
	if ch.u == nil || ch.u.ops == 0 {
		h.finishClose(ch)
		return
	}
	h.sqe(userData(opCancel, ch.fd)).PrepCancelFD(ch.fd)
	h.traceSubmit(opCancel, ch.fd, 0)
}

// finishClose closes a closed channel's descriptor once nothing of it is
// in flight.
func (h *uringHandler) finishClose(ch *Channel) {
	u := ch.u
	if u != nil && (u.ops > 0 || u.fdClosed) {
		return
	}
	if u != nil {
		u.fdClosed = true
		u.sending, u.spare = nil, nil
	}
	if ch.flags&flagRegistered != 0 {
		h.l.removeChannel(ch)
	}
	unix.Close(ch.fd)
}

// shutdown cancels what is still armed (the eventfd read and any channel
// op), reaps until nothing is in flight, and releases the ring: no SQE,
// provided buffer or descriptor outlives the loop.
func (h *uringHandler) shutdown() {
	if h.ring == nil {
		return
	}
	if h.bufs == nil {
		// Never started: nothing was submitted.
		_ = h.ring.Close()
		h.ring = nil
		return
	}
	h.flushSends()
	h.tearingDown = true
	h.sqe(userData(opCancel, h.l.wakeFD)).PrepCancel(userData(opWake, h.l.wakeFD))
	for i := 0; i < 1000 && (h.ring.InFlight() > 0 || h.ring.SQReady() > 0); i++ {
		sqDepth := h.ring.SQReady()
		submitted, err := h.submitAndWait(1, 10*time.Millisecond)
		if err != nil {
			break
		}
		// Traced like every other reap, so a fold of the trace counts
		// the cancellations' entries and completions too.
		cqDepth := h.ring.CQReady()
		if reaped := h.reap(); h.l.tracing() {
			h.l.emit(trace.Event{Kind: trace.KindRingEnter, A: int64(submitted), B: 1, C: int64(reaped),
				D: int64(sqDepth), E: int64(cqDepth)})
		}
		h.processIO()
	}
	_ = h.bufs.Close()
	_ = h.ring.Close()
	h.ring, h.bufs = nil, nil
}

// peerPort is the remote port of a connected socket.
func peerPort(fd int) int {
	sa, err := unix.Getpeername(fd)
	if err != nil {
		return 0
	}
	return portOf(sa)
}
