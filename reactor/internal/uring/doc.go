// Package uring is a small io_uring ring on golang.org/x/sys/unix, the
// completion-based counterpart of package poll: where an epoll EventLoop
// asks "which descriptors are ready?" and then makes a read or write call
// per descriptor, a ring loop submits the operations themselves and reaps
// their results, many of them per io_uring_enter. It is the ground the
// engine's io_uring IoHandler stands on, as Netty 4.2's IoUringIoHandler
// stands on its native ring.
//
// # Design
//
// A Ring is the descriptor from io_uring_setup and three shared mappings:
// the submission queue ring, the completion queue ring (one mapping with
// the first where the kernel has IORING_FEAT_SINGLE_MMAP) and the array of
// 64-byte SQEs. The application owns the SQ tail and the CQ head; the
// kernel owns the SQ head and the CQ tail. Each side publishes its index
// with a store that the other side reads with a load, both through
// sync/atomic, whose sequentially consistent order is at least the
// release/acquire pairing liburing uses: an entry's contents are written
// before the index that exposes it.
//
// One loop iteration is: GetSQE and a Prep method per operation, then
// SubmitAndWait, one io_uring_enter that submits the batch and sleeps until
// a completion or the timeout (taken from the loop's scheduled-task heap,
// as Netty's NioEventLoop.select takes it). The timeout travels in
// IORING_ENTER_EXT_ARG (5.11+), or, on older kernels, as a timeout SQE the
// ring hides from Reap. Reap then copies completions out and frees their
// slots.
//
// New asks for the setup flags that cut work and interrupts on the loop
// thread — SINGLE_ISSUER with DEFER_TASKRUN, else COOP_TASKRUN — and steps
// down one flag set at a time when the kernel answers EINVAL
// (Options.CoopTaskrun starts from COOP_TASKRUN; Options.Shared from a
// ring any thread may use). With
// SINGLE_ISSUER the ring belongs to the OS thread that created it, so its
// goroutine locks its thread first; every other thread reaches the loop by
// writing the wakeup eventfd, whose read the loop keeps armed in the ring.
//
// Receives use a provided-buffer ring (BufRing): the kernel picks a buffer
// when data arrives, so no memory is pinned per idle connection. A
// multishot receive that finds the ring empty ends with -ENOBUFS; the
// caller recycles buffers and arms it again.
//
// Every SQE ends in exactly one completion without CQEMore, so
// Stats.Submitted − Stats.Completed (InFlight) counts the operations still
// owed a completion; a clean shutdown cancels by descriptor (PrepCancelFD),
// reaps until InFlight is zero, and only then closes the ring, so no
// operation, buffer or descriptor is left behind.
//
// New fails with an error wrapping ErrUnavailable, saying which, where the
// kernel has no io_uring, /proc/sys/kernel/io_uring_disabled switches it
// off, a policy refuses it, or an operation the engine needs is missing.
//
// Memory an SQE points at must stay reachable from the caller's own data
// until the operation's final completion: the kernel holds only its
// address. The package keeps its own (the wait's timespec, buffer rings)
// in the Ring or in anonymous mappings outside the Go heap.
package uring
