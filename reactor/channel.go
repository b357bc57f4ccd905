package reactor

import (
	"errors"
	"fmt"
	"sync/atomic"

	unix "github.com/reactorviz/reactorviz/reactor/internal/sys"

	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

type channelKind uint8

const (
	kindChild  channelKind = iota // accepted by a server channel
	kindClient                    // connected by a Bootstrap
	kindServer                    // a listening socket
)

const (
	flagClosed uint16 = 1 << iota
	flagActive
	flagConnecting
	flagNoAutoRead
	flagUnwritable
	flagScratch // out is the loop's shared scratch buffer
	flagRegistered
	flagCloseOnDrain // close once the pending output is written
)

var channelIDs atomic.Uint64

// Channel is one socket registered with one loop for its whole life (C18).
// Its fields belong to that loop's thread; from other goroutines use the
// methods documented as safe for any goroutine.
type Channel struct {
	id       uint64
	fd       int
	kind     channelKind
	flags    uint16
	interest uint32
	port     int // remote port, for traces
	loop     *EventLoop
	server   *ServerChannel // the acceptor, for server channels and their children
	out      []byte         // pending output
	pipeline Pipeline
	onActive func(*Channel, error) // a client's connect callback
	u        *uringState           // on an io_uring loop, what is in flight

	// Attr holds per-channel state for handlers. Loop thread only.
	Attr any
}

func newChannel(fd int, kind channelKind, loop *EventLoop) *Channel {
	return &Channel{id: channelIDs.Add(1), fd: fd, kind: kind, loop: loop}
}

// ID returns the channel's id, unique in the process.
func (ch *Channel) ID() uint64 { return ch.id }

// FD returns the socket descriptor.
func (ch *Channel) FD() int { return ch.fd }

// LocalPort is the port the channel's socket is bound to, 0 when it has
// none: a client's ephemeral port tells the server side's channel apart.
func (ch *Channel) LocalPort() int { return localPort(ch.fd) }

// EventLoop returns the loop the channel belongs to. Any goroutine.
func (ch *Channel) EventLoop() *EventLoop { return ch.loop }

// Pipeline returns the channel's pipeline, for initializers.
func (ch *Channel) Pipeline() *Pipeline { return &ch.pipeline }

// RemotePort returns the peer's port.
func (ch *Channel) RemotePort() int { return ch.port }

// IsActive reports whether the channel is connected and open. Loop thread.
func (ch *Channel) IsActive() bool { return ch.flags&flagActive != 0 && !ch.closed() }

func (ch *Channel) closed() bool { return ch.flags&flagClosed != 0 }

// WriteAndFlush sends a copy of b. Any goroutine: off the loop thread it
// becomes a task on the channel's loop, as every Netty channel operation does.
func (ch *Channel) WriteAndFlush(b []byte) error {
	if ch.loop.InEventLoop() {
		ch.write(b)
		ch.flush()
		return nil
	}
	c := append([]byte(nil), b...)
	return ch.loop.ExecuteNamed("write", func() {
		ch.write(c)
		ch.flush()
	})
}

// Close closes the channel. Any goroutine.
func (ch *Channel) Close() error {
	if ch.loop.InEventLoop() {
		ch.closeWith("closed")
		return nil
	}
	return ch.loop.ExecuteNamed("close", func() { ch.closeWith("closed") })
}

// SetAutoRead turns read interest on or off (Netty's autoRead). A channel
// with autoRead off has interest 0: under nio semantics, the set-up for the
// JDK epoll bug. Loop thread.
func (ch *Channel) SetAutoRead(on bool) {
	if on {
		ch.flags &^= flagNoAutoRead
	} else {
		ch.flags |= flagNoAutoRead
	}
	ch.updateReadInterest()
}

func (ch *Channel) updateReadInterest() {
	want := ch.interest &^ poll.In
	if ch.flags&(flagNoAutoRead|flagUnwritable|flagConnecting) == 0 {
		want |= poll.In
	}
	ch.setInterest(want)
}

// epollEvents is the registration mask for the channel's interest set.
func (ch *Channel) epollEvents() uint32 {
	ev := ch.interest
	if ch.loop.cfg.Selector == SelectorEpoll && ch.kind != kindServer {
		ev |= poll.RdHup // Netty's stream channels always ask for RDHUP
	}
	if ch.loop.cfg.Trigger == TriggerEdge {
		ev |= poll.ET
	}
	return ev
}

func (ch *Channel) setInterest(ops uint32) {
	if ops == ch.interest || ch.closed() {
		return
	}
	old := ch.interest
	ch.interest = ops
	if ch.u != nil {
		ch.loop.uring.interestChanged(ch)
	} else if ch.flags&flagRegistered != 0 {
		if err := ch.loop.epollMod(ch.fd, ch.epollEvents()); err != nil {
			ch.fail(err)
			return
		}
	}
	if l := ch.loop; l.tracing() {
		l.emit(trace.Event{Kind: trace.KindInterest, A: int64(ch.id), B: int64(ch.fd), C: int64(ops), D: int64(old)})
	}
}

// processReady handles one selected key in Netty's order (C21), as
// NioEventLoop.processSelectedKey(SelectionKey, AbstractNioChannel) does: a
// pending connect first (finishConnect drops OP_CONNECT, else select would
// spin on it, #924), then writes (forceFlush: flushing frees memory
// sooner), then reads. A connecting channel's OUT interest stands for
// OP_CONNECT alone, the only op Netty's key asks for then, so its readyOps
// is OP_CONNECT and never OP_WRITE (and epoll's epollOutReady finishes a
// connect or flushes, never both): the call that finishes the connect
// makes no write step; what was flushed while connecting goes out in
// finishConnect. That call reads only for what the report holds beside
// OUT: an error, or RDHUP under epoll (the peer wrote and sent a FIN, read
// by epollRdHupReady). Under epoll semantics an error or hang-up goes to
// both, where the syscall surfaces it.
func (ch *Channel) processReady(ready uint32) {
	if ch.kind == kindServer {
		ch.server.accept()
		return
	}
	if ch.flags&flagConnecting != 0 {
		if ready&(poll.Out|poll.Err|poll.Hup) == 0 {
			return
		}
		ch.finishConnect()
	} else if ready&(poll.Out|poll.Err) != 0 && len(ch.out) > 0 {
		ch.doWrite()
	}
	if ch.closed() {
		return
	}
	if ready&(poll.In|poll.Err|poll.Hup|poll.RdHup) != 0 || ready == 0 {
		ch.read()
	}
}

// read reads into the loop's shared buffer and fires channelRead per read.
// Level-triggered: up to 16 reads, stopping at a short read; the selector
// reports the rest next time. Edge-triggered: read until EAGAIN. When the
// 16-read budget runs out first, readLater decides whether a task goes on.
func (ch *Channel) read() {
	l := ch.loop
	buf := l.readBuf
	total := 0
	edge := l.cfg.Trigger == TriggerEdge
	for i := 0; i < maxMessagesPerRead; i++ {
		n, err := sockRead(ch.fd, buf)
		add(&l.stats.Reads, 1)
		switch {
		case n > 0:
			total += n
			ch.readBytes(buf[:n])
			if ch.closed() {
				return
			}
			// A handler turned reading off (autoRead, backpressure, a close
			// after flush): stop now, as Netty's continueReading does.
			if !edge && n < len(buf) || ch.interest&poll.In == 0 {
				ch.readComplete(total)
				return
			}
			continue
		case err == nil:
			ch.readComplete(total)
			ch.closeWith("peer closed")
			return
		case err == unix.EAGAIN:
			// The read that tells the loop the socket is drained: edge-
			// triggered, every readiness ends with one; it emits no event.
			add(&l.stats.EmptyReads, 1)
			ch.readComplete(total)
			return
		case err == unix.EINTR:
			continue
		}
		ch.readComplete(total)
		ch.fail(err)
		return
	}
	ch.readComplete(total)
	ch.readLater(true) // level-triggered, every one of the 16 reads was full
}

// readLater goes on, in a task, with a read that stopped before EAGAIN, as
// AbstractEpollChannel.AbstractEpollUnsafe.epollInFinally queues
// epollInReadyRunnable while EpollRecvByteAllocatorHandle.maybeMoreDataToRead
// holds. Edge-triggered it always does: the edge will not be reported again.
// The native transport level-triggered does it when the last read filled
// the buffer (filled), even though the selector would report the rest
// too. The JDK selector never does: NioByteUnsafe.read leaves what is left
// to the next select. Turning reading back on re-arms the edge
// (EPOLL_CTL_MOD), so nothing is left behind if the task finds reading off.
func (ch *Channel) readLater(filled bool) {
	l := ch.loop
	maybeMore := l.cfg.Trigger == TriggerEdge || filled && l.cfg.Selector == SelectorEpoll
	if !maybeMore || ch.closed() {
		return
	}
	_ = l.submit("epollInReady", func() {
		if !ch.closed() && ch.interest&poll.In != 0 {
			ch.read()
		}
	}, ch.loop, false)
}

func (ch *Channel) readBytes(b []byte) {
	l := ch.loop
	add(&l.stats.BytesRead, int64(len(b)))
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindRead, A: int64(ch.id), B: int64(ch.fd), C: int64(len(b))})
	}
	if h, ctx := ch.pipeline.head(); h != nil {
		h.ChannelRead(ctx, b)
	}
}

func (ch *Channel) readComplete(total int) {
	if total == 0 || ch.closed() {
		return
	}
	if h, ctx := ch.pipeline.head(); h != nil {
		h.ChannelReadComplete(ctx)
	}
}

// write appends b to the pending output. The first writer in an iteration
// borrows the loop's scratch buffer, so a request/response exchange that
// flushes at once copies each reply once and allocates nothing.
func (ch *Channel) write(b []byte) {
	if ch.closed() || len(b) == 0 {
		return
	}
	ch.setOutbound(append(ch.outbound(), b...))
}

// flush writes the pending output now, unless the channel already waits
// for EPOLLOUT (the kernel buffer is full; writing again would fail).
func (ch *Channel) flush() {
	if len(ch.out) == 0 || ch.interest&poll.Out != 0 || ch.closed() {
		return
	}
	if ch.u != nil {
		ch.loop.uring.queueSend(ch) // one send per channel per batch
		return
	}
	ch.doWrite()
}

// doWrite makes one write syscall. A partial write keeps the rest and arms
// EPOLLOUT; once everything is written EPOLLOUT is disarmed again, or the
// loop would spin on a socket that is always writable.
func (ch *Channel) doWrite() {
	l := ch.loop
	n, err := sockWrite(ch.fd, ch.out)
	add(&l.stats.Writes, 1)
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		ch.fail(err)
		return
	}
	n = max(n, 0)
	add(&l.stats.BytesWritten, int64(n))
	partial := n < len(ch.out)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindWrite, A: int64(ch.id), B: int64(ch.fd), C: int64(n), Flag: partial})
	}
	if !partial {
		ch.releaseOut()
		if ch.flags&flagCloseOnDrain != 0 {
			ch.closeWith("closed after flush")
			return
		}
		ch.setInterest(ch.interest &^ poll.Out)
		ch.checkWritable()
		return
	}
	rest := ch.out[n:]
	if ch.flags&flagScratch != 0 {
		// The scratch buffer goes back to the loop; the channel keeps a
		// private copy of what the kernel did not take.
		own := append([]byte(nil), rest...)
		ch.releaseOut()
		ch.out = own
	} else {
		ch.out = append(ch.out[:0], rest...)
	}
	ch.setInterest(ch.interest | poll.Out)
	ch.checkWritable()
}

func (ch *Channel) releaseOut() {
	if ch.flags&flagScratch != 0 {
		ch.loop.scratch = ch.out[:0]
		ch.flags &^= flagScratch
	}
	ch.out = nil
}

func (ch *Channel) checkWritable() {
	if ch.flags&flagUnwritable != 0 && ch.pendingOut() <= ch.loop.cfg.WriteLowWater {
		ch.flags &^= flagUnwritable
		ch.updateReadInterest()
	}
}

// fail reports an I/O error to the pipeline and closes the channel.
func (ch *Channel) fail(err error) {
	if ch.closed() {
		return
	}
	ch.exception(err)
	ch.closeWith(err.Error())
}

func (ch *Channel) exception(err error) {
	l := ch.loop
	add(&l.stats.Exceptions, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindException, A: int64(ch.id), B: int64(ch.fd), Str: err.Error()})
	}
	if h, ctx := ch.pipeline.head(); h != nil {
		ch.safeCall(func() { h.ExceptionCaught(ctx, err) })
	}
}

// recoverHandler turns a handler's panic into exceptionCaught, as Netty's
// pipeline catches a Throwable from channelRead; the loop goes on.
func (ch *Channel) recoverHandler() {
	if r := recover(); r != nil {
		ch.handlerPanicked(r)
	}
}

// handlerPanicked reports a panic recovered from one of the channel's
// handlers as exceptionCaught.
func (ch *Channel) handlerPanicked(r any) {
	l := ch.loop
	add(&l.stats.HandlerPanics, 1)
	err := fmt.Errorf("handler panic: %v", r)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindTaskPanic, Str: err.Error()})
	}
	ch.exception(err)
}

func (ch *Channel) safeCall(fn func()) {
	defer func() { _ = recover() }()
	fn()
}

// closeWith closes the socket, removes it from the loop and fires
// channelInactive. Loop thread.
func (ch *Channel) closeWith(reason string) {
	if ch.closed() {
		return
	}
	l := ch.loop
	ch.flags |= flagClosed
	switch {
	case l.uring != nil:
		l.uring.closing(ch) // the fd closes when its last operation completes
	case ch.flags&flagRegistered != 0:
		_ = l.epollDel(ch.fd)
		l.removeChannel(ch)
		unix.Close(ch.fd)
	default:
		unix.Close(ch.fd)
	}
	ch.releaseOut()
	add(&l.stats.Closed, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindClose, A: int64(ch.id), B: int64(ch.fd), Str: reason})
	}
	if ch.server != nil && ch.kind == kindChild {
		ch.server.conns.Add(-1)
	}
	if ch.onActive != nil {
		cb := ch.onActive
		ch.onActive = nil
		cb(ch, fmt.Errorf("connect: %s", reason))
	}
	if ch.flags&flagActive != 0 {
		ch.flags &^= flagActive
		if h, ctx := ch.pipeline.head(); h != nil {
			ch.safeCall(func() { h.ChannelInactive(ctx) })
		}
	}
}

// register0 runs on the channel's loop: add it to the table and the epoll
// set, run the initializer, then fire channelActive
// (AbstractChannel.AbstractUnsafe.register0).
func (l *EventLoop) register0(ch *Channel, init func(*Channel)) error {
	if l.State() >= trace.StateShuttingDown {
		unix.Close(ch.fd)
		return errors.New("register: event loop shutting down")
	}
	if init != nil {
		init(ch)
	}
	ch.pipeline.bind(ch)
	if ch.kind != kindServer && ch.flags&flagConnecting == 0 && ch.flags&flagNoAutoRead == 0 {
		ch.interest = poll.In
	}
	if ch.kind == kindServer {
		ch.interest = poll.In
	}
	if err := l.addToSelector(ch); err != nil {
		unix.Close(ch.fd)
		return err
	}
	ch.flags |= flagRegistered
	l.addChannel(ch)
	add(&l.stats.Registered, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindRegister, A: int64(ch.id), B: int64(ch.fd), C: int64(ch.interest)})
	}
	if ch.kind == kindChild {
		ch.activate()
	}
	return nil
}

// addToSelector registers ch with the epoll set, or arms its operations on
// the ring.
func (l *EventLoop) addToSelector(ch *Channel) error {
	if l.uring != nil {
		return l.uring.register(ch)
	}
	return l.epollAdd(l.poller, ch.fd, ch.epollEvents())
}

func (ch *Channel) activate() {
	ch.flags |= flagActive
	if h, ctx := ch.pipeline.head(); h != nil {
		defer ch.recoverHandler()
		h.ChannelActive(ctx)
	}
}

func (l *EventLoop) addChannel(ch *Channel) {
	for ch.fd >= len(l.chans) {
		l.chans = append(l.chans, make([]*Channel, max(64, len(l.chans)))...)
	}
	l.chans[ch.fd] = ch
	add(&l.stats.Channels, 1)
}

func (l *EventLoop) removeChannel(ch *Channel) {
	if ch.fd < len(l.chans) && l.chans[ch.fd] == ch {
		l.chans[ch.fd] = nil
		add(&l.stats.Channels, -1)
	}
}

func (l *EventLoop) channelByFD(fd int) *Channel {
	if fd >= 0 && fd < len(l.chans) {
		return l.chans[fd]
	}
	return nil
}

// closeAll closes every channel of the loop (Netty's closeAll at shutdown).
func (l *EventLoop) closeAll(reason string) {
	for _, ch := range l.chans {
		if ch != nil {
			ch.closeWith(reason)
		}
	}
}

func (ch *Channel) outbound() []byte {
	l := ch.loop
	if ch.out == nil && l.scratch != nil {
		ch.out, l.scratch = l.scratch[:0], nil
		ch.flags |= flagScratch
	}
	return ch.out
}

func (ch *Channel) setOutbound(b []byte) {
	if ch.closed() {
		return
	}
	ch.out = b
	if ch.pendingOut() > ch.loop.cfg.WriteHighWater && ch.flags&flagUnwritable == 0 {
		// Backpressure: stop reading from a peer that does not read its
		// replies, so it cannot grow our memory without bound.
		ch.flags |= flagUnwritable
		ch.updateReadInterest()
	}
}

// pendingOut is the output the peer has not taken yet: what waits in out
// and, on a ring, the send in flight, which the kernel holds until the peer
// reads (Netty's ChannelOutboundBuffer counts a message until it is
// written, so the high-water mark sees it too).
func (ch *Channel) pendingOut() int {
	n := len(ch.out)
	if ch.u != nil {
		n += len(ch.u.sending)
	}
	return n
}

// closeAfterFlush closes the channel as soon as its pending output is
// written (at once if there is none).
func (ch *Channel) closeAfterFlush() {
	if len(ch.out) == 0 && (ch.u == nil || ch.u.sending == nil) {
		ch.closeWith("closed after flush")
		return
	}
	ch.flags |= flagCloseOnDrain
	ch.flags |= flagNoAutoRead // read nothing more from a connection we are closing
	ch.updateReadInterest()
	ch.flush()
}
