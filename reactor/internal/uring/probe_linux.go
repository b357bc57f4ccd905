//go:build linux

package uring

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Features is what the kernel granted this ring, for the loop to choose
// its paths and for the UI to show.
type Features struct {
	SingleIssuer bool // IORING_SETUP_SINGLE_ISSUER accepted
	DeferTaskrun bool // IORING_SETUP_DEFER_TASKRUN accepted
	CoopTaskrun  bool // IORING_SETUP_COOP_TASKRUN accepted
	SingleMmap   bool // both rings in one mapping
	ExtArg       bool // waits are bounded by IORING_ENTER_EXT_ARG, not a timeout SQE
	FastPoll     bool // socket ops wait on internal poll, not a worker thread
	NoDrop       bool // completions are never dropped on CQ overflow
	// Multishot reports multishot accept and recv. Neither has an opcode
	// of its own to probe; both are in every kernel that has registered
	// ring descriptors (IORING_FEAT_REG_REG_RING, 6.3), which stands for
	// them. Where it is false, single-shot operations are re-armed.
	Multishot bool
}

// Features reports what the kernel granted.
func (r *Ring) Features() Features {
	return Features{
		SingleIssuer: r.flags&setupSingleIssuer != 0,
		DeferTaskrun: r.flags&setupDeferTaskrun != 0,
		CoopTaskrun:  r.flags&setupCoopTaskrun != 0,
		SingleMmap:   r.features&featSingleMmap != 0,
		ExtArg:       r.features&featExtArg != 0,
		FastPoll:     r.features&featFastPoll != 0,
		NoDrop:       r.features&featNodrop != 0,
		Multishot:    r.features&featRegRegRing != 0,
	}
}

// String lists the granted features, for logs and the UI.
func (f Features) String() string {
	var on []string
	for _, x := range []struct {
		name string
		ok   bool
	}{
		{"single-issuer", f.SingleIssuer}, {"defer-taskrun", f.DeferTaskrun},
		{"coop-taskrun", f.CoopTaskrun}, {"single-mmap", f.SingleMmap},
		{"ext-arg", f.ExtArg}, {"fast-poll", f.FastPoll}, {"nodrop", f.NoDrop},
		{"multishot", f.Multishot},
	} {
		if x.ok {
			on = append(on, x.name)
		}
	}
	return strings.Join(on, ",")
}

// requiredOps are the operations the engine's handler cannot do without.
var requiredOps = []struct {
	op   uint8
	name string
}{
	{opRead, "READ"}, {opAccept, "ACCEPT"}, {opRecv, "RECV"}, {opSend, "SEND"},
	{opClose, "CLOSE"}, {opAsyncCancel, "ASYNC_CANCEL"}, {opTimeout, "TIMEOUT"},
}

// probeOps asks the kernel (IORING_REGISTER_PROBE, 5.6) which opcodes it
// supports and fails naming every one the engine needs and lacks.
func (r *Ring) probeOps() error {
	var p probe
	if err := r.register(registerProbe, unsafe.Pointer(&p), uint32(len(p.ops))); err != nil {
		return fmt.Errorf("%w: cannot probe operations: %v", ErrUnavailable, err)
	}
	var missing []string
	for _, o := range requiredOps {
		if o.op > p.lastOp || p.ops[o.op].flags&opSupported == 0 {
			missing = append(missing, o.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: the kernel lacks IORING_OP_%s", ErrUnavailable, strings.Join(missing, ", IORING_OP_"))
	}
	return nil
}

// register calls io_uring_register. It never sleeps, so the call is raw.
func (r *Ring) register(op uint32, arg unsafe.Pointer, nargs uint32) error {
	_, _, e := unix.RawSyscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uintptr(op), uintptr(arg), uintptr(nargs), 0, 0)
	if e != 0 {
		return os.NewSyscallError("io_uring_register", e)
	}
	return nil
}
