//go:build linux && !nolive

package sys

import "golang.org/x/sys/unix"

// Errno values the engine tells apart.
const (
	EAGAIN       = unix.EAGAIN
	EINTR        = unix.EINTR
	ECONNABORTED = unix.ECONNABORTED
	EMFILE       = unix.EMFILE
	ENFILE       = unix.ENFILE
)

// Interest bits a channel keeps, as epoll spells them.
const (
	EPOLLIN  = unix.EPOLLIN
	EPOLLOUT = unix.EPOLLOUT
)

// Close closes a descriptor.
func Close(fd int) error { return unix.Close(fd) }

// SetNonblock sets or clears O_NONBLOCK.
func SetNonblock(fd int, nonblocking bool) error { return unix.SetNonblock(fd, nonblocking) }

// Gettid returns the calling thread's id: how a loop knows it is on its own
// thread, as Netty's SingleThreadEventExecutor.inEventLoop compares threads.
func Gettid() int { return unix.Gettid() }

// Interrupt sends SIGURG to thread tid of this process: a blocking
// epoll_wait there returns EINTR, as Thread.interrupt() makes a JDK
// selector return. SIGURG is the signal Go's runtime preempts goroutines
// with, so the runtime already expects it at any time and ignores a
// stray one.
func Interrupt(tid int) error { return unix.Tgkill(unix.Getpid(), tid, unix.SIGURG) }
