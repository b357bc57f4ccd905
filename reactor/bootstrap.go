package reactor

import (
	"errors"
	"fmt"
	"net/netip"
	"sync/atomic"

	unix "github.com/reactorviz/reactorviz/reactor/internal/sys"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// ServerBootstrap binds server channels on a boss group and hands their
// accepted children to a worker group (C2, C26). Boss and Worker may be the
// same group: the single-reactor model.
type ServerBootstrap struct {
	Boss   *EventLoopGroup
	Worker *EventLoopGroup
	// ChildInit builds each child's pipeline; it runs on the child's loop
	// during registration (Netty's ChannelInitializer).
	ChildInit func(ch *Channel)
	// ReusePort sets SO_REUSEPORT so several server channels can share one
	// port (see BindN).
	ReusePort bool
	// MaxConnections caps open children per server channel (0: no cap);
	// connections beyond it are accepted and closed at once, and counted
	// nowhere.
	MaxConnections int
}

// ServerChannel is a listening socket registered with one boss loop for
// life: every accept happens on that loop's thread (C3).
type ServerChannel struct {
	ch       *Channel
	addr     netip.AddrPort
	boot     *ServerBootstrap
	conns    atomic.Int64
	accepted atomic.Int64
}

// Addr returns the bound address (with the kernel-chosen port for ":0").
func (s *ServerChannel) Addr() netip.AddrPort { return s.addr }

// EventLoop returns the boss loop the server channel lives on.
func (s *ServerChannel) EventLoop() *EventLoop { return s.ch.loop }

// Accepted returns how many connections this server channel accepted and
// handed to a worker (refused ones are not counted).
func (s *ServerChannel) Accepted() int64 { return s.accepted.Load() }

// Close closes the listening socket. Any goroutine.
func (s *ServerChannel) Close() error { return s.ch.Close() }

// Bind opens one server channel on addr and registers it with the boss
// group's next loop; the registration is a task on that loop, which starts
// its thread. It returns once the channel is registered.
func (b *ServerBootstrap) Bind(addr string) (*ServerChannel, error) {
	if b.Boss == nil || b.Worker == nil {
		return nil, errors.New("server bootstrap: boss and worker groups are required")
	}
	fd, bound, err := listenTCP(addr, b.ReusePort)
	if err != nil {
		return nil, err
	}
	boss := b.Boss.Next()
	s := &ServerChannel{addr: bound, boot: b}
	s.ch = newChannel(fd, kindServer, boss)
	s.ch.server = s
	done := make(chan error, 1)
	err = boss.ExecuteNamed("bind", func() { done <- boss.register0(s.ch, nil) })
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := <-done; err != nil {
		return nil, fmt.Errorf("bind %s: %w", addr, err)
	}
	return s, nil
}

// BindN binds n server channels. With ReusePort they share addr's port
// (the first one's kernel-chosen port if addr ends in :0); without it each
// gets its own port. Each lands on the boss group's next loop, so n server
// channels can keep n boss loops accepting.
func (b *ServerBootstrap) BindN(addr string, n int) ([]*ServerChannel, error) {
	var out []*ServerChannel
	for i := 0; i < n; i++ {
		a := addr
		if i > 0 && b.ReusePort {
			a = out[0].Addr().String()
		}
		s, err := b.Bind(a)
		if err != nil {
			for _, o := range out {
				_ = o.Close()
			}
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// accept runs on the boss loop when the listening socket is readable: take
// connections (see acceptsPerRead), and hand each to a worker chosen
// round-robin, as a registration task on that worker (Netty's
// ServerBootstrapAcceptor). The handoff is a queued task: it is what starts
// an idle worker's thread. When the chooser picks the boss itself, the
// registration runs inline instead.
func (s *ServerChannel) accept() {
	boss := s.ch.loop
	n := boss.acceptsPerRead()
	for i := 0; i < n; i++ {
		fd, port, err := acceptChild(s.ch.fd)
		switch err {
		case nil:
		case unix.EAGAIN, unix.ECONNABORTED, unix.EINTR:
			return
		case unix.EMFILE, unix.ENFILE:
			s.backOff(err)
			return
		default:
			s.ch.exception(err)
			return
		}
		s.handOff(boss, fd, port)
	}
	if boss.cfg.Trigger == TriggerEdge {
		// More may be pending and the edge will not be reported again.
		_ = boss.submit("accept", s.accept, boss, false)
	}
}

// acceptsPerRead is how many connections one read of a listening socket
// may take: the read loop goes on while the allocator handle's
// continueReading holds, up to maxMessagesPerRead (16).
//
// NIO: AbstractNioMessageChannel.NioMessageUnsafe.read. In Netty 4.1.9 to
// 4.1.68 continueReading (DefaultMaxMessagesRecvByteBufAllocator.
// MaxMessageHandle) needs totalBytesRead > 0, and a server channel reads no
// bytes, so one connection per selected key and a burst is worked off over
// several iterations (the 4.1.43 design). 4.1.69 gave server channels
// ServerChannelRecvByteBufAllocator, which ignores bytes read: 16 (the 4.1
// and 4.2 designs).
//
// Native epoll, every version: EpollServerSocketUnsafe.epollInReady counts
// each accepted fd as one byte read of one attempted, and continueReading
// asks EpollRecvByteAllocatorHandle.maybeMoreDataToRead. Edge-triggered
// that holds while the last read took something: 16. Level-triggered it
// holds only when the last read filled what it attempted, and the handle
// records the fd, not 1, as bytes read: one connection per read, the rest
// on the next epoll_wait. 4.2's EpollIoHandler is level-triggered only, so
// a 4.2 epoll boss accepts one connection per I/O phase.
func (l *EventLoop) acceptsPerRead() int {
	if l.cfg.Selector == SelectorEpoll {
		if l.cfg.Trigger == TriggerEdge {
			return maxMessagesPerRead
		}
		return 1
	}
	if l.cfg.Netty == Netty4143 {
		return 1
	}
	return maxMessagesPerRead
}

func (s *ServerChannel) handOff(boss *EventLoop, fd, port int) {
	// A refused connection takes no worker turn, channel id, count or
	// accept event: it never becomes a channel, and a replayed trace counts
	// accepts from the events.
	if max := s.boot.MaxConnections; max > 0 && s.conns.Load() >= int64(max) {
		unix.Close(fd)
		return
	}
	s.accepted.Add(1)
	add(&boss.stats.Accepted, 1)
	worker, pick, chosen := s.boot.Worker.Choose()
	child := newChannel(fd, kindChild, worker)
	child.server, child.port = s, port
	if boss.tracing() {
		// The chooser's pick travels with the accept, so a learner sees
		// which worker got the channel and the arithmetic that chose it.
		boss.emit(trace.Event{Kind: trace.KindAccept, A: int64(child.id), B: int64(fd), C: int64(port),
			D: int64(worker.loopIdx), E: int64(pick), Flag: chosen})
	}
	s.conns.Add(1)
	init := s.boot.ChildInit
	if worker == boss {
		// AbstractChannel.AbstractUnsafe.register calls register0 directly
		// when already on the channel's loop: in the single-reactor model
		// the child is registered and active inside this I/O phase.
		if err := worker.register0(child, init); err != nil {
			s.conns.Add(-1)
		}
		return
	}
	err := worker.submit("register", func() {
		if err := worker.register0(child, init); err != nil {
			s.conns.Add(-1)
		}
	}, boss, true)
	if err != nil {
		s.conns.Add(-1)
		unix.Close(fd) // Netty force-closes a child its loop rejects
	}
}

// backOff stops accepting for a second when descriptors run out, so the
// loop does not spin on a listening socket it cannot serve (Netty #1328).
func (s *ServerChannel) backOff(err error) {
	s.ch.exception(err)
	s.ch.setInterest(0)
	_, _ = s.ch.loop.Schedule("accept-resume", 1e9, func() {
		if !s.ch.closed() {
			s.ch.setInterest(unix.EPOLLIN)
		}
	})
}

// Bootstrap connects client channels through a loop group (C24): the
// connect is non-blocking, the channel waits with interest OUT (OP_CONNECT),
// finishes the connect when the socket becomes writable, then switches to
// read interest and fires channelActive.
type Bootstrap struct {
	Group *EventLoopGroup
	Init  func(ch *Channel)
}

// Connect starts a connection to addr on the group's next loop. done, if
// not nil, is called on that loop once the connect succeeds or fails.
func (b *Bootstrap) Connect(addr string, done func(ch *Channel, err error)) error {
	if b.Group == nil {
		return errors.New("bootstrap: group is required")
	}
	l := b.Group.Next()
	return l.ExecuteNamed("connect", func() {
		fd, finished, err := connectTCP(addr)
		if err != nil {
			if done != nil {
				done(nil, err)
			}
			return
		}
		ch := newChannel(fd, kindClient, l)
		ch.onActive = done
		if !finished {
			ch.flags |= flagConnecting
			ch.interest = unix.EPOLLOUT
		}
		if err := l.register0(ch, b.Init); err != nil {
			if done != nil {
				done(nil, err)
			}
			return
		}
		if finished {
			ch.connected()
		}
	})
}

// finishConnect runs when a connecting socket turns writable: read SO_ERROR,
// drop OUT interest (or select would spin on it, #924), go active.
func (ch *Channel) finishConnect() {
	if err := socketError(ch.fd); err != nil {
		ch.fail(err)
		return
	}
	ch.flags &^= flagConnecting
	ch.connected()
}

func (ch *Channel) connected() {
	l := ch.loop
	add(&l.stats.Connected, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindConnect, A: int64(ch.id), B: int64(ch.fd)})
	}
	ch.setInterest(ch.interest &^ unix.EPOLLOUT)
	ch.updateReadInterest()
	if cb := ch.onActive; cb != nil {
		ch.onActive = nil
		cb(ch, nil)
	}
	ch.activate()
	// A flush while connecting found OUT in the interest set (standing for
	// OP_CONNECT) and waited, as behind a pending write: it goes out now,
	// unless channelActive's own flush took it along.
	ch.flush()
}

// Register puts an already connected socket on this loop as a child
// channel, as Netty's EventLoop.register(channel) does: the registration is
// a task on the loop, and init builds the pipeline there; on the loop's own
// thread it runs at once (AbstractChannel.AbstractUnsafe.register). The
// loop owns fd from now on (it is closed if the registration is refused).
// Any goroutine.
func (l *EventLoop) Register(fd int, init func(*Channel)) error {
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return err
	}
	ch := newChannel(fd, kindChild, l)
	if l.InEventLoop() {
		return l.register0(ch, init)
	}
	err := l.submit("register", func() { _ = l.register0(ch, init) }, nil, true)
	if err != nil {
		unix.Close(fd)
	}
	return err
}
