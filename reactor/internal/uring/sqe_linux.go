//go:build linux

package uring

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Prep methods fill an SQE from GetSQE for one operation; the caller
// sets UserData afterwards to recognise the completion. Memory an SQE points
// at (a read or send buffer, a timespec) is read or written by the kernel
// after Prep returns, so it must stay reachable from the caller's own data
// and untouched until the operation's final completion: the SQE holds only
// its address, which the garbage collector does not see.

// PrepNop prepares an operation that does nothing but complete.
func (s *SQE) PrepNop() { s.Opcode = opNop; s.FD = -1 }

// PrepRead reads into buf from fd at the current position. The engine keeps
// one such read armed on its wakeup eventfd: a write from another thread
// completes it, and the completion is the wakeup, where the epoll transport
// wakes on the eventfd's readiness (Netty's IoUringIoHandler keeps the same
// eventfd read pending).
func (s *SQE) PrepRead(fd int, buf []byte) {
	s.Opcode = opRead
	s.FD = int32(fd)
	s.Addr = addr(buf)
	s.Len = uint32(len(buf))
	s.Off = ^uint64(0) // -1: read at the file position, as read(2) does
}

// PrepAccept accepts connections on a listening socket. With multishot
// (5.19) one SQE stays armed and posts a completion, Res the new
// descriptor, for every connection until it fails or is cancelled; the
// flags are accept4's (SOCK_NONBLOCK, SOCK_CLOEXEC).
func (s *SQE) PrepAccept(fd int, multishot bool, flags int) {
	s.Opcode = opAccept
	s.FD = int32(fd)
	s.OpFlags = uint32(flags)
	if multishot {
		s.IOPrio |= acceptMultishot
	}
}

// PrepRecv receives from a socket into a buffer the kernel picks from the
// provided-buffer ring group at the moment data arrives, so no memory is
// pinned per idle connection. With multishot (6.0) the SQE stays armed and
// posts a completion per receive; it ends, without CQEMore, on EOF (Res 0),
// an error, or -ENOBUFS when the ring is out of buffers — then the caller
// returns buffers and arms it again.
func (s *SQE) PrepRecv(fd int, group uint16, multishot bool) {
	s.Opcode = opRecv
	s.FD = int32(fd)
	s.Flags |= sqeBufferSelect
	s.BufGroup = group
	if multishot {
		s.IOPrio |= recvMultishot
	}
}

// LimitRecv ends a multishot recv once it has received total bytes over
// its armed life (Linux 6.17: the SQE's optlen, IORING_RECV_MSHOT_LIM in
// the kernel): the completion that reaches the limit comes without
// CQEMore, and the caller arms it again if it still wants to read. Without
// it the kernel fills as many provided buffers for one socket, within one
// enter, as the socket and the ring hold, before a cancel can go in. A
// kernel that lacks the limit fails the recv with -EINVAL, having received
// nothing.
func (s *SQE) LimitRecv(total uint32) { s.OptLen = total }

// PrepSend sends buf on a socket. MSG_NOSIGNAL is always added: a peer
// that has gone must be an EPIPE completion, not a SIGPIPE. A socket send
// may complete short; the caller sends the rest.
func (s *SQE) PrepSend(fd int, buf []byte, flags int) {
	s.Opcode = opSend
	s.FD = int32(fd)
	s.Addr = addr(buf)
	s.Len = uint32(len(buf))
	s.OpFlags = uint32(flags | unix.MSG_NOSIGNAL)
}

// PrepClose closes fd from the ring, batching the close with the rest of
// the iteration's submissions instead of a close(2) of its own.
func (s *SQE) PrepClose(fd int) {
	s.Opcode = opClose
	s.FD = int32(fd)
}

// PrepCancel cancels the operation submitted with userData. Its own
// completion's Res is 0 when found, -ENOENT when not in flight, -EALREADY
// when too late; the cancelled operation completes with -ECANCELED.
func (s *SQE) PrepCancel(userData uint64) {
	s.Opcode = opAsyncCancel
	s.FD = -1
	s.Addr = userData
}

// PrepCancelFD cancels every operation in flight on fd (5.19): what a
// channel's close does before the descriptor is closed, so no completion
// can arrive for a reused descriptor number. Res is the number cancelled.
func (s *SQE) PrepCancelFD(fd int) {
	s.Opcode = opAsyncCancel
	s.FD = int32(fd)
	s.OpFlags = cancelFD | cancelAll
}

// PrepTimeout completes after ts passes, or once count other completions
// have been posted (0: time only). Expiry completes with -ETIME.
func (s *SQE) PrepTimeout(ts *Timespec, count uint32, flags uint32) {
	s.Opcode = opTimeout
	s.FD = -1
	s.Addr = uint64(uintptr(unsafe.Pointer(ts)))
	s.Len = 1
	s.Off = uint64(count)
	s.OpFlags = flags
}

// BufferID is the provided buffer a completion consumed; valid when
// Flags has CQEBuffer.
func (c *CQE) BufferID() uint16 { return uint16(c.Flags >> cqeBufferShift) }

// More reports whether the multishot operation stays armed.
func (c *CQE) More() bool { return c.Flags&CQEMore != 0 }

// Err is the completion's error, nil when Res is not negative.
func (c *CQE) Err() error {
	if c.Res >= 0 {
		return nil
	}
	return unix.Errno(-c.Res)
}

func addr(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(&b[0])))
}
