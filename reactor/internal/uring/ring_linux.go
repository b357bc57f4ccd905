//go:build linux

package uring

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Options configures New. The zero value asks for a 256-entry ring with
// every syscall-saving setup flag the kernel accepts.
type Options struct {
	// Entries is the submission queue size, rounded up by the kernel to a
	// power of two; 0 means 256. The completion queue gets twice as many
	// unless CQEntries says otherwise.
	Entries uint32
	// CQEntries, when non-zero, sizes the completion queue
	// (IORING_SETUP_CQSIZE). Multishot operations post many completions per
	// submission, so a server wants it larger than Entries.
	CQEntries uint32
	// Shared leaves out SINGLE_ISSUER and DEFER_TASKRUN, for a ring that
	// more than one thread submits to or waits on. A ring owned by one
	// locked thread, as an EventLoop's is, leaves it false.
	Shared bool
	// CoopTaskrun asks for COOP_TASKRUN even where the kernel has
	// DEFER_TASKRUN: completion work then also runs when the loop thread
	// enters the kernel for any other reason, so one enter tends to find
	// more completions (BenchmarkEcho counts them), at the price of that
	// work landing on the thread between handlers.
	CoopTaskrun bool
	// Disabled creates the ring disabled (IORING_SETUP_R_DISABLED, 5.10):
	// any thread may set it up and register with it, and the thread that
	// calls Enable becomes its single issuer. Nothing is submitted before.
	Disabled bool
}

// Enable starts a ring made with Options.Disabled
// (IORING_REGISTER_ENABLE_RINGS). Under SINGLE_ISSUER the calling thread
// becomes the one that submits, so an event loop calls it from its own
// locked thread, when that thread starts.
func (r *Ring) Enable() error { return r.register(registerEnableRing, nil, 0) }

// Ring is one io_uring instance: the two mmapped queues and the descriptor.
// It is not safe for concurrent use: like Netty's IoUringIoHandler it
// belongs to one event loop thread. Unless Options.Shared is set, the
// kernel also holds it to one OS thread (SINGLE_ISSUER), so the owning
// goroutine must call runtime.LockOSThread before New and keep it.
type Ring struct {
	fd       int
	flags    uint32 // setup flags the kernel accepted
	features uint32

	// Submission queue. sqHead and sqTail point into the shared mapping;
	// sqeTail is the next SQE handed out, published to the kernel by flush.
	sqHead, sqTail, sqFlags *uint32
	sqMask, sqEntries       uint32
	sqes                    []SQE
	sqeTail                 uint32

	// Completion queue.
	cqHead, cqTail, cqOverflow *uint32
	cqMask, cqEntries          uint32
	cqes                       []CQE

	sqRing, cqRing, sqeMem []byte
	singleMmap             bool // cqRing is sqRing

	// arg and ts are what IORING_ENTER_EXT_ARG points the kernel at; they
	// live in the Ring so no per-call allocation escapes to the heap.
	arg getEventsArg
	ts  Timespec
	// timeouts counts the timeout SQEs bounding waits (no EXT_ARG) not yet
	// completed. One outlives a wait that other completions ended; it
	// fires later and Reap drops it. Kernels since 5.11 never need one.
	timeouts uint32

	stats Stats
}

// Stats counts the ring's traffic since New. The owner reads it; it is not
// synchronised.
type Stats struct {
	Enters    uint64 // io_uring_enter calls
	Waits     uint64 // enters that asked to wait for a completion
	Submitted uint64 // SQEs the kernel consumed
	Completed uint64 // final CQEs (without CQEMore) reaped
	CQEs      uint64 // every CQE reaped, multishot ones included
}

// New creates a ring. Where io_uring is missing, disabled or refused it
// returns an error wrapping ErrUnavailable that says which.
func New(o Options) (*Ring, error) {
	return newRing(o, setupCandidates(o), true)
}

// newRing tries each candidate set of setup flags in turn; a test passes
// its own list, and may ask for separate ring mappings.
func newRing(o Options, candidates []uint32, singleMmap bool) (*Ring, error) {
	if err := checkEnabled(); err != nil {
		return nil, err
	}
	if o.Entries == 0 {
		o.Entries = 256
	}
	var p params
	var fd int
	var err error
	for _, flags := range candidates {
		p = params{flags: flags | setupClamp}
		if o.Disabled {
			p.flags |= setupRDisabled
		}
		if o.CQEntries != 0 {
			p.flags |= setupCQSize
			p.cqEntries = o.CQEntries
		}
		fd, err = setup(o.Entries, &p)
		if err != unix.EINVAL {
			break
		}
	}
	if err != nil {
		return nil, setupError(err)
	}
	if !singleMmap {
		p.features &^= featSingleMmap
	}
	r := &Ring{fd: fd, flags: p.flags, features: p.features}
	if err := r.mapRings(&p); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.probeOps(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// setupCandidates lists the setup flags to try, best first. DEFER_TASKRUN
// (6.1) runs completion work only when the owner enters to reap, so no
// interrupt lands on the loop thread while it runs handlers; COOP_TASKRUN
// (5.19) is the weaker form. SUBMIT_ALL keeps one bad SQE from stranding the
// rest of a batch. A kernel that does not know a flag answers EINVAL, and
// the next candidate is tried.
func setupCandidates(o Options) []uint32 {
	all := []uint32{
		setupSubmitAll | setupSingleIssuer | setupDeferTaskrun,
		setupSubmitAll | setupSingleIssuer | setupCoopTaskrun,
		setupSubmitAll | setupCoopTaskrun,
		setupSubmitAll,
		0,
	}
	switch {
	case o.Shared:
		return all[2:]
	case o.CoopTaskrun:
		return all[1:]
	}
	return all
}

func setup(entries uint32, p *params) (int, error) {
	fd, _, e := unix.RawSyscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// mapRings maps the SQ ring, the CQ ring and the SQE array. Since 5.4
// (IORING_FEAT_SINGLE_MMAP) the two rings share one mapping.
func (r *Ring) mapRings(p *params) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(CQE{})))
	single := p.features&featSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if r.sqRing, err = mmap(r.fd, offSQRing, sqSize); err != nil {
		return err
	}
	r.cqRing, r.singleMmap = r.sqRing, single
	if !single {
		if r.cqRing, err = mmap(r.fd, offCQRing, cqSize); err != nil {
			return err
		}
	}
	if r.sqeMem, err = mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(SQE{}))); err != nil {
		return err
	}
	r.sqHead = word(r.sqRing, p.sqOff.head)
	r.sqTail = word(r.sqRing, p.sqOff.tail)
	r.sqFlags = word(r.sqRing, p.sqOff.flags)
	r.sqMask = *word(r.sqRing, p.sqOff.ringMask)
	r.sqEntries = *word(r.sqRing, p.sqOff.ringEntries)
	r.sqes = unsafe.Slice((*SQE)(unsafe.Pointer(&r.sqeMem[0])), r.sqEntries)
	// The SQ array indirects ring slots to SQEs; an identity map lets slot i
	// always mean SQE i, as liburing's setup does.
	array := unsafe.Slice(word(r.sqRing, p.sqOff.array), r.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.sqeTail = atomic.LoadUint32(r.sqTail)

	r.cqHead = word(r.cqRing, p.cqOff.head)
	r.cqTail = word(r.cqRing, p.cqOff.tail)
	r.cqOverflow = word(r.cqRing, p.cqOff.overflow)
	r.cqMask = *word(r.cqRing, p.cqOff.ringMask)
	r.cqEntries = *word(r.cqRing, p.cqOff.ringEntries)
	r.cqes = unsafe.Slice((*CQE)(unsafe.Pointer(&r.cqRing[p.cqOff.cqes])), r.cqEntries)
	return nil
}

func mmap(fd int, off int64, size int) ([]byte, error) {
	b, err := unix.Mmap(fd, off, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return b, nil
}

func word(mem []byte, off uint32) *uint32 {
	return (*uint32)(unsafe.Pointer(&mem[off]))
}

// Close unmaps the queues and closes the ring. The kernel cancels whatever
// is still in flight; a caller that wants its descriptors and buffers back
// in order cancels and reaps first (see CancelFD).
func (r *Ring) Close() error {
	if r.cqRing != nil && !r.singleMmap {
		_ = unix.Munmap(r.cqRing)
	}
	for _, m := range [][]byte{r.sqeMem, r.sqRing} {
		if m != nil {
			_ = unix.Munmap(m)
		}
	}
	r.sqeMem, r.cqRing, r.sqRing = nil, nil, nil
	if r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	if err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// FD returns the ring's descriptor.
func (r *Ring) FD() int { return r.fd }

// Stats returns the counters since New.
func (r *Ring) Stats() Stats { return r.stats }

// InFlight is the number of submitted operations whose final completion
// has not been reaped: every SQE ends in exactly one CQE without CQEMore.
// Zero after a clean shutdown means no operation was leaked.
// The timeout SQEs that bound waits on kernels without EXT_ARG are the
// ring's own and not counted.
func (r *Ring) InFlight() uint64 {
	n := int64(r.stats.Submitted) - int64(r.stats.Completed) - int64(r.timeouts)
	return uint64(max(n, 0))
}

// Overflowed is the kernel's count of completions it had to drop because
// the CQ was full; it stays zero where the kernel has IORING_FEAT_NODROP
// and holds them back instead.
func (r *Ring) Overflowed() uint32 { return atomic.LoadUint32(r.cqOverflow) }

// SQReady is the number of SQEs prepared but not yet consumed by the
// kernel.
func (r *Ring) SQReady() uint32 { return r.sqeTail - atomic.LoadUint32(r.sqHead) }

// CQReady is the number of completions posted and not yet reaped.
func (r *Ring) CQReady() uint32 { return atomic.LoadUint32(r.cqTail) - atomic.LoadUint32(r.cqHead) }

// SQEntries is the submission queue size the kernel chose.
func (r *Ring) SQEntries() uint32 { return r.sqEntries }

// CQEntries is the completion queue size.
func (r *Ring) CQEntries() uint32 { return r.cqEntries }

// GetSQE hands out the next free submission entry, zeroed, or nil when the
// queue is full of entries the kernel has not consumed yet; Submit and
// retry then. The entry is the caller's until the next Submit.
func (r *Ring) GetSQE() *SQE {
	// The kernel advances head as it consumes entries; the acquire load
	// orders our reuse of a slot after its read of it.
	if r.sqeTail-atomic.LoadUint32(r.sqHead) >= r.sqEntries {
		return nil
	}
	sqe := &r.sqes[r.sqeTail&r.sqMask]
	*sqe = SQE{}
	r.sqeTail++
	return sqe
}

// flush publishes the prepared entries. The store to the tail is the
// release that makes their contents visible to the kernel before it sees
// the new tail.
func (r *Ring) flush() uint32 {
	atomic.StoreUint32(r.sqTail, r.sqeTail)
	return r.sqeTail - atomic.LoadUint32(r.sqHead)
}

// Submit passes the prepared entries to the kernel without waiting. Under
// DEFER_TASKRUN it also asks for completions, so deferred completion work
// runs and its CQEs become visible to Reap.
func (r *Ring) Submit() (int, error) {
	return r.SubmitAndWait(0, 0)
}

// SubmitAndWait submits the prepared entries and, if wait > 0, sleeps until
// at least wait completions are ready or timeout passes (timeout < 0: no
// limit). It is the loop's one system call per iteration, standing where
// Netty's NioEventLoop.select calls epoll_wait; IoUringIoHandler likewise
// submits and waits in one io_uring_enter. It returns how many entries the
// kernel consumed. An expired timeout or a signal is not an error: the
// caller reaps what is there and loops.
func (r *Ring) SubmitAndWait(wait uint32, timeout time.Duration) (int, error) {
	var flags uint32
	var argp unsafe.Pointer
	var argsz uintptr
	if wait > 0 && timeout >= 0 {
		if r.features&featExtArg != 0 {
			r.ts = durationTimespec(timeout)
			r.arg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
			argp, argsz = unsafe.Pointer(&r.arg), unsafe.Sizeof(r.arg)
			flags |= enterExtArg
		} else if !r.armTimeout(timeout) {
			wait = 0 // no room for the timeout SQE: do not sleep unbounded
		}
	}
	toSubmit := r.flush()
	if wait > 0 || r.flags&setupDeferTaskrun != 0 || atomic.LoadUint32(r.sqFlags)&(sqCQOverflow|sqTaskrun) != 0 {
		flags |= enterGetEvents
	}
	if toSubmit == 0 && flags == 0 {
		return 0, nil
	}
	n, err := r.enter(toSubmit, wait, flags, argp, argsz)
	r.stats.Enters++
	if wait > 0 {
		r.stats.Waits++
	}
	if n > 0 {
		r.stats.Submitted += uint64(n)
	}
	switch err {
	case nil:
		return n, nil
	case unix.ETIME, unix.EINTR, unix.EAGAIN, unix.EBUSY:
		// ETIME: the wait timed out. EINTR: a signal (the Go runtime
		// preempts with SIGURG). EAGAIN/EBUSY: the CQ is over its limit
		// and wants reaping first. Each means "reap and loop".
		return n, nil
	}
	return n, os.NewSyscallError("io_uring_enter", err)
}

// enter calls io_uring_enter. One that may sleep goes through Syscall so the
// runtime can hand this thread's P to another goroutine; one that cannot is
// a raw call, as the epoll poller's zero-timeout wait is. Each is called by
// name with the uintptr(arg) conversion in its argument list: only there
// does the compiler keep what arg points at alive until the call returns
// (unsafe.Pointer rule 4); a call through a function value gets no such
// guarantee.
func (r *Ring) enter(toSubmit, wait, flags uint32, arg unsafe.Pointer, argsz uintptr) (int, error) {
	var n uintptr
	var e unix.Errno
	if wait > 0 {
		n, _, e = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(wait),
			uintptr(flags), uintptr(arg), argsz)
	} else {
		n, _, e = unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), uintptr(wait),
			uintptr(flags), uintptr(arg), argsz)
	}
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// internalTimeout is the user_data of the timeout SQE that bounds a wait
// on kernels without IORING_FEAT_EXT_ARG (before 5.11). Reap hides its CQE.
const internalTimeout = ^uint64(0)

func (r *Ring) armTimeout(d time.Duration) bool {
	sqe := r.GetSQE()
	if sqe == nil {
		return false
	}
	r.ts = durationTimespec(d)
	sqe.PrepTimeout(&r.ts, 1, 0)
	sqe.UserData = internalTimeout
	r.timeouts++
	return true
}

func durationTimespec(d time.Duration) Timespec {
	return Timespec{Sec: int64(d / time.Second), Nsec: int64(d % time.Second)}
}

// Reap copies up to len(dst) completions into dst, frees their slots and
// returns how many it copied.
func (r *Ring) Reap(dst []CQE) int {
	head := atomic.LoadUint32(r.cqHead)
	// The acquire load of the tail orders our reads of the entries after
	// the kernel's writes of them.
	tail := atomic.LoadUint32(r.cqTail)
	n := 0
	for ; head != tail && n < len(dst); head++ {
		c := r.cqes[head&r.cqMask]
		r.stats.CQEs++
		if c.Flags&CQEMore == 0 {
			r.stats.Completed++
		}
		if c.UserData == internalTimeout {
			r.timeouts--
			continue
		}
		dst[n] = c
		n++
	}
	// Releasing the head hands the slots back; the kernel may overwrite
	// them only after our copies above.
	atomic.StoreUint32(r.cqHead, head)
	return n
}

// ErrUnavailable is wrapped by every error that means this process cannot
// use io_uring at all, as opposed to an operation failing.
var ErrUnavailable = errors.New("io_uring unavailable")

// disabledSysctl is a variable so a test can point it at a file of its own.
var disabledSysctl = "/proc/sys/kernel/io_uring_disabled"

// checkEnabled reads the sysctl (6.6+) that can switch io_uring off, so the
// error names the switch rather than a bare EPERM.
func checkEnabled() error {
	b, err := os.ReadFile(disabledSysctl)
	if err != nil {
		return nil // older kernel: no switch; setup will tell
	}
	if len(b) > 0 && b[0] == '2' {
		return fmt.Errorf("%w: disabled for all processes (%s = 2)", ErrUnavailable, disabledSysctl)
	}
	return nil
}

func setupError(err error) error {
	switch err {
	case unix.ENOSYS:
		return fmt.Errorf("%w: the kernel has no io_uring (io_uring_setup: ENOSYS)", ErrUnavailable)
	case unix.EPERM:
		if b, rerr := os.ReadFile(disabledSysctl); rerr == nil && len(b) > 0 && b[0] == '1' {
			return fmt.Errorf("%w: restricted to the kernel.io_uring_group group (%s = 1)", ErrUnavailable, disabledSysctl)
		}
		return fmt.Errorf("%w: io_uring_setup not permitted (EPERM); a seccomp or container policy may block it", ErrUnavailable)
	case unix.EINVAL:
		return fmt.Errorf("%w: io_uring_setup refused every flag set (EINVAL)", ErrUnavailable)
	}
	return os.NewSyscallError("io_uring_setup", err)
}
