//go:build linux && !nolive

// Package poll is the engine's only contact with epoll and eventfd: open an
// epoll instance, add, modify and delete descriptors, wait, and wake a waiter
// through an eventfd. It holds no state but file descriptors; the event loop
// above it decides what readiness means.
package poll

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Calls that cannot block (epoll_ctl, a zero-timeout epoll_wait, an eventfd
// write) go through RawSyscall, which skips the runtime's entersyscall and
// exitsyscall bookkeeping. That bookkeeping exists so the scheduler can hand
// the thread's P to another thread during a call that sleeps; around a
// short system call it costs as much as the call's own user-side work, and
// a loop thread makes two or three such calls per request. A wait that may
// sleep long is announced to the runtime (see Wait).

// Readiness and interest bits, as epoll spells them.
const (
	In    = unix.EPOLLIN
	Out   = unix.EPOLLOUT
	Err   = unix.EPOLLERR
	Hup   = unix.EPOLLHUP
	RdHup = unix.EPOLLRDHUP
	ET    = unix.EPOLLET
)

// Event is one ready descriptor returned by Wait.
type Event = unix.EpollEvent

// Poller is one epoll instance.
type Poller struct {
	fd int
}

// Open creates an epoll instance with EPOLL_CLOEXEC so that no child process
// inherits it.
func Open() (*Poller, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	return &Poller{fd: fd}, nil
}

// FD returns the epoll descriptor.
func (p *Poller) FD() int { return p.fd }

// Add registers fd with the given interest. The fd itself is stored in the
// event data, never a pointer: the loop maps it back through its own table.
func (p *Poller) Add(fd int, events uint32) error {
	return p.ctl(unix.EPOLL_CTL_ADD, fd, events)
}

// Mod changes the interest of a registered fd.
func (p *Poller) Mod(fd int, events uint32) error {
	return p.ctl(unix.EPOLL_CTL_MOD, fd, events)
}

// Del removes fd from the interest list.
func (p *Poller) Del(fd int) error {
	return p.ctl(unix.EPOLL_CTL_DEL, fd, 0)
}

func (p *Poller) ctl(op, fd int, events uint32) error {
	ev := unix.EpollEvent{Events: events, Fd: int32(fd)}
	_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(p.fd), uintptr(op), uintptr(fd),
		uintptr(unsafe.Pointer(&ev)), 0, 0)
	if e != 0 {
		return os.NewSyscallError("epoll_ctl", e)
	}
	return nil
}

// Wait blocks for at most msec milliseconds (-1: no limit, 0: poll) and fills
// events. An interrupted wait (EINTR) returns 0 and ErrInterrupted so the loop
// can treat it as Netty treats an interrupted select: stop counting it as a
// premature return.
//
// A wait that may sleep goes through Syscall, so that while this thread
// sleeps the runtime can run other goroutines on its P and stop the world
// without signalling it. (Making short waits raw as well was measured: it
// cost server CPU rather than saving it.)
func (p *Poller) Wait(events []Event, msec int) (int, error) {
	if msec == 0 {
		return p.poll(events)
	}
	n, err := unix.EpollWait(p.fd, events, msec)
	if err != nil {
		if err == unix.EINTR {
			return 0, ErrInterrupted
		}
		return 0, os.NewSyscallError("epoll_wait", err)
	}
	return n, nil
}

// poll is Wait with a zero timeout: it never sleeps, so it is a raw call.
func (p *Poller) poll(events []Event) (int, error) {
	if len(events) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(p.fd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), 0, 0, 0)
	switch e {
	case 0:
		return int(n), nil
	case unix.EINTR:
		return 0, ErrInterrupted
	}
	return 0, os.NewSyscallError("epoll_wait", e)
}

// Close closes the epoll descriptor. Registered descriptors stay open.
func (p *Poller) Close() error {
	if err := unix.Close(p.fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// ErrInterrupted reports a wait cut short by a signal.
var ErrInterrupted = os.NewSyscallError("epoll_wait", unix.EINTR)

// one is the 8-byte counter increment every eventfd write adds. It is only
// ever read, so concurrent writers may share it.
var one = [8]byte{1, 0, 0, 0, 0, 0, 0, 0}

// NewEventFD returns a non-blocking, close-on-exec eventfd. Netty's epoll
// transport registers it EPOLLIN|EPOLLET and never reads it: with edge
// triggering each write is one notification, so the read is a syscall saved.
func NewEventFD() (int, error) {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return -1, os.NewSyscallError("eventfd", err)
	}
	return fd, nil
}

// WriteEventFD adds one to the eventfd's counter, waking any epoll_wait that
// watches it. Should the counter ever saturate (EAGAIN), it is drained once
// and the write retried, as Netty's native code does.
func WriteEventFD(fd int) error {
	for {
		_, _, err := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&one[0])), uintptr(len(one)))
		switch err {
		case 0:
			return nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			DrainEventFD(fd)
			continue
		}
		return os.NewSyscallError("write", err)
	}
}

// DrainEventFD resets the counter to zero.
func DrainEventFD(fd int) {
	var buf [8]byte
	_, _ = unix.Read(fd, buf[:])
}
