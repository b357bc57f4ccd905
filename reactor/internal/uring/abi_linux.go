//go:build linux

package uring

import "unsafe"

// The kernel ABI, spelled as include/uapi/linux/io_uring.h spells it.
// golang.org/x/sys/unix carries only the system call numbers, so the
// constants and layouts the package uses are declared here, and nothing else.

// Setup flags (io_uring_params.flags) and the features setup reports back.
const (
	setupCQSize       = 1 << 3
	setupClamp        = 1 << 4
	setupRDisabled    = 1 << 6
	setupSubmitAll    = 1 << 7
	setupCoopTaskrun  = 1 << 8
	setupSingleIssuer = 1 << 12
	setupDeferTaskrun = 1 << 13
	featSingleMmap    = 1 << 0
	featNodrop        = 1 << 1
	featFastPoll      = 1 << 5
	featExtArg        = 1 << 8
	featRegRegRing    = 1 << 13
)

// io_uring_enter flags, and the SQ ring flags that ask for an enter.
const (
	enterGetEvents = 1 << 0
	enterExtArg    = 1 << 3
	sqCQOverflow   = 1 << 1
	sqTaskrun      = 1 << 2
)

// mmap offsets of the three regions.
const (
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000
)

// io_uring_register opcodes.
const (
	registerProbe      = 8
	registerEnableRing = 12
	registerPbufRing   = 22
	unregisterPbufRing = 23
	opSupported        = 1 << 0 // io_uring_probe_op.flags
)

const cqeBufferShift = 16 // buffer id position in io_uring_cqe.flags

// SQE flags (io_uring_sqe.flags).
const (
	sqeBufferSelect = 1 << 5
)

// Opcodes the package prepares. The probe checks each of them.
const (
	opNop         = 0
	opTimeout     = 11
	opAccept      = 13
	opAsyncCancel = 14
	opClose       = 19
	opRead        = 22
	opSend        = 26
	opRecv        = 27
)

// Operation modifiers kept in sqe.ioprio or sqe's op-specific flags word.
const (
	acceptMultishot = 1 << 0 // ioprio of IORING_OP_ACCEPT
	recvMultishot   = 1 << 1 // ioprio of IORING_OP_RECV
	cancelAll       = 1 << 0 // cancel_flags
	cancelFD        = 1 << 1
)

// CQE flags (io_uring_cqe.flags).
const (
	// CQEBuffer marks a completion that consumed a provided buffer; its id
	// is in the upper 16 bits (see CQE.BufferID).
	CQEBuffer = 1 << 0
	// CQEMore marks a completion of a multishot operation that stays armed:
	// more completions for the same SQE follow. Its absence ends the op.
	CQEMore = 1 << 1
	// CQESockNonEmpty reports that the socket had more data after a recv.
	CQESockNonEmpty = 1 << 2
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// SQE is one 64-byte submission queue entry, laid out as struct io_uring_sqe
// with the unions flattened to the members this package uses.
type SQE struct {
	Opcode   uint8
	Flags    uint8
	IOPrio   uint16
	FD       int32
	Off      uint64 // off / addr2
	Addr     uint64 // buffer, timespec or user_data to cancel
	Len      uint32
	OpFlags  uint32 // msg_flags, accept_flags, timeout_flags, cancel_flags …
	UserData uint64
	BufGroup uint16 // buf_index / buf_group
	_        uint16 // personality
	OptLen   uint32 // splice_fd_in / file_index / optlen
	_        [2]uint64
}

// CQE is one 16-byte completion queue entry (struct io_uring_cqe).
type CQE struct {
	UserData uint64
	// Res is the operation's result: a byte count or descriptor, or a
	// negated errno.
	Res   int32
	Flags uint32
}

type getEventsArg struct {
	sigmask     uint64
	sigmaskSz   uint32
	minWaitUsec uint32
	ts          uint64
}

// Timespec is struct __kernel_timespec.
type Timespec struct {
	Sec  int64
	Nsec int64
}

type probeOp struct {
	op    uint8
	resv  uint8
	flags uint16
	resv2 uint32
}

type probe struct {
	lastOp uint8
	opsLen uint8
	resv   uint16
	resv2  [3]uint32
	ops    [256]probeOp
}

type bufReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	resv        [6]uint32
}

// bufDesc is struct io_uring_buf, one slot of a provided-buffer ring.
type bufDesc struct {
	addr uint64
	len  uint32
	bid  uint16
	resv uint16 // slot 0's resv is the ring's tail
}

// Layout checks: a wrong size here would corrupt the kernel's view of
// every entry, so the build fails instead.
var (
	_ [64 - unsafe.Sizeof(SQE{})]byte
	_ [unsafe.Sizeof(SQE{}) - 64]byte
	_ [16 - unsafe.Sizeof(CQE{})]byte
	_ [unsafe.Sizeof(CQE{}) - 16]byte
	_ [120 - unsafe.Sizeof(params{})]byte
	_ [unsafe.Sizeof(params{}) - 120]byte
	_ [40 - unsafe.Sizeof(bufReg{})]byte
	_ [unsafe.Sizeof(bufReg{}) - 40]byte
	_ [16 - unsafe.Sizeof(bufDesc{})]byte
	_ [24 - unsafe.Sizeof(getEventsArg{})]byte
	_ [unsafe.Sizeof(getEventsArg{}) - 24]byte
	_ [16 + 256*8 - unsafe.Sizeof(probe{})]byte
)
