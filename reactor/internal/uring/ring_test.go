//go:build linux

package uring

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"golang.org/x/sys/unix"
)

// openRing opens a ring for a test on the test's goroutine, locked to its
// thread for the ring's life (SINGLE_ISSUER), skipping where io_uring is
// unavailable and saying why.
func openRing(t *testing.T, o Options) *Ring {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	r, err := New(o)
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

func newEventFD(t *testing.T) int {
	t.Helper()
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fd) })
	return fd
}

// reapOne waits for and returns exactly one completion.
func reapOne(t *testing.T, r *Ring) CQE {
	t.Helper()
	var c [1]CQE
	for range 1000 {
		if r.Reap(c[:]) == 1 {
			return c[0]
		}
		if _, err := r.SubmitAndWait(1, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no completion")
	return CQE{}
}

func TestNewTakesTheBestSetupFlags(t *testing.T) {
	leaktest.Check(t)
	r := openRing(t, Options{Entries: 8})
	f := r.Features()
	t.Logf("granted: %v; SQ %d, CQ %d", f, r.SQEntries(), r.CQEntries())
	if !f.SingleIssuer || !f.DeferTaskrun {
		t.Logf("kernel refused SINGLE_ISSUER|DEFER_TASKRUN; fell back to %v", f)
	}
	if r.SQEntries() != 8 || r.CQEntries() != 16 {
		t.Errorf("queues %d/%d, want 8/16", r.SQEntries(), r.CQEntries())
	}
}

func TestOptionsChooseTheTaskrunMode(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         Options
		singleIssuer bool
	}{
		{name: "shared", opts: Options{Entries: 4, Shared: true}},
		{name: "coop", opts: Options{Entries: 4, CoopTaskrun: true}, singleIssuer: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaktest.Check(t)
			r := openRing(t, tc.opts)
			f := r.Features()
			if f.DeferTaskrun || f.SingleIssuer != tc.singleIssuer || !f.CoopTaskrun {
				t.Errorf("granted %v", f)
			}
		})
	}
}

// The sysctl that switches io_uring off is named in the error, and the
// error is one callers can recognise (and tests skip on).
func TestDisabledSysctlIsAClearError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "io_uring_disabled")
	if err := os.WriteFile(path, []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := disabledSysctl
	disabledSysctl = path
	defer func() { disabledSysctl = old }()
	_, err := New(Options{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), path+" = 2") {
		t.Fatalf("New with io_uring disabled: %v", err)
	}
}

// The wakeup lesson on a ring: the loop keeps a read armed on its eventfd
// and sleeps in io_uring_enter; a write from another thread completes the
// read, and that completion is what wakes the loop.
func TestEventFDReadWakesTheWaiter(t *testing.T) {
	leaktest.Check(t)
	r := openRing(t, Options{Entries: 4})
	efd := newEventFD(t)
	buf := make([]byte, 8)
	sqe := r.GetSQE()
	sqe.PrepRead(efd, buf)
	sqe.UserData = 42
	if n, err := r.Submit(); err != nil || n != 1 {
		t.Fatalf("submit: %d, %v", n, err)
	}
	go func() { _, _ = unix.Write(efd, []byte{3, 0, 0, 0, 0, 0, 0, 0}) }()
	c := reapOne(t, r)
	if c.UserData != 42 || c.Res != 8 || buf[0] != 3 {
		t.Fatalf("completion %+v, buffer %v", c, buf)
	}
	if r.InFlight() != 0 {
		t.Errorf("%d in flight after the read completed", r.InFlight())
	}
}

// A wait with nothing to complete returns when the timeout passes, without
// an error, both with IORING_ENTER_EXT_ARG and with the timeout SQE used
// where the kernel lacks it; the timeout SQE's completion never reaches
// the caller.
func TestWaitTimesOut(t *testing.T) {
	for _, extArg := range []bool{true, false} {
		t.Run(map[bool]string{true: "ext-arg", false: "timeout-sqe"}[extArg], func(t *testing.T) {
			leaktest.Check(t)
			r := openRing(t, Options{Entries: 4})
			if !extArg {
				r.features &^= featExtArg
			}
			efd := newEventFD(t)
			buf := make([]byte, 8)
			sqe := r.GetSQE()
			sqe.PrepRead(efd, buf)
			sqe.UserData = 1
			const d = 20 * time.Millisecond
			start := time.Now()
			if _, err := r.SubmitAndWait(1, d); err != nil {
				t.Fatal(err)
			}
			for r.timeouts > 0 { // the timeout SQE completes on its own
				_, _ = r.SubmitAndWait(1, -1)
				r.Reap(make([]CQE, 4))
			}
			if el := time.Since(start); el < d {
				t.Errorf("returned after %v, before the %v timeout", el, d)
			}
			var c [4]CQE
			if n := r.Reap(c[:]); n != 0 {
				t.Errorf("%d completions surfaced: %+v", n, c[:n])
			}
			cancelAndReap(t, r, 1)
		})
	}
}

// cancelAndReap cancels the operation with userData and reaps until nothing
// is in flight.
func cancelAndReap(t *testing.T, r *Ring, userData uint64) {
	t.Helper()
	sqe := r.GetSQE()
	sqe.PrepCancel(userData)
	sqe.UserData = 99
	var seen []CQE
	for r.InFlight() > 0 {
		seen = append(seen, reapOne(t, r))
	}
	for _, c := range seen {
		if c.UserData == userData && c.Res != -int32(unix.ECANCELED) {
			t.Errorf("cancelled op completed %d", c.Res)
		}
	}
}

func TestTimeoutOpExpires(t *testing.T) {
	leaktest.Check(t)
	r := openRing(t, Options{Entries: 4})
	ts := Timespec{Nsec: int64(time.Millisecond)}
	sqe := r.GetSQE()
	sqe.PrepTimeout(&ts, 0, 0)
	sqe.UserData = 5
	c := reapOne(t, r)
	if c.UserData != 5 || c.Res != -int32(unix.ETIME) {
		t.Fatalf("timeout completed %+v, want -ETIME", c)
	}
}

// GetSQE refuses an entry only when the kernel has not consumed the
// queue; a submit frees every slot.
func TestSubmissionQueueFull(t *testing.T) {
	leaktest.Check(t)
	r := openRing(t, Options{Entries: 4})
	for i := range 4 {
		sqe := r.GetSQE()
		if sqe == nil {
			t.Fatalf("no entry %d of 4", i)
		}
		sqe.PrepNop()
		sqe.UserData = uint64(i)
	}
	if r.GetSQE() != nil {
		t.Fatal("a fifth entry from a full 4-entry queue")
	}
	if n, err := r.Submit(); err != nil || n != 4 {
		t.Fatalf("submit: %d, %v", n, err)
	}
	for i := range 4 {
		if c := reapOne(t, r); c.UserData != uint64(i) || c.Res != 0 {
			t.Errorf("nop %d completed %+v", i, c)
		}
	}
	if r.GetSQE() == nil {
		t.Fatal("queue still full after submitting")
	}
	st := r.Stats()
	if st.Submitted != 4 || st.Completed != 4 || r.InFlight() != 0 {
		t.Errorf("stats %+v", st)
	}
}

// With SINGLE_ISSUER the kernel refuses submissions from any thread but
// the creator's: the reason the loop's goroutine locks its thread and
// other threads reach it through the eventfd.
func TestSingleIssuerRefusesOtherThreads(t *testing.T) {
	leaktest.Check(t)
	r := openRing(t, Options{Entries: 4})
	if !r.Features().SingleIssuer {
		t.Skip("kernel did not grant SINGLE_ISSUER")
	}
	r.GetSQE().PrepNop()
	errc := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		_, err := r.Submit()
		errc <- err
	}()
	if err := <-errc; !errors.Is(err, unix.EEXIST) {
		t.Fatalf("submit from another thread: %v, want EEXIST", err)
	}
	reapOne(t, r) // the owner submits the NOP itself
}

func TestBufRingRejectsBadSizes(t *testing.T) {
	leaktest.Check(t)
	r := openRing(t, Options{Entries: 4})
	for _, tc := range []struct {
		name        string
		count, size int
	}{
		{name: "not a power of two", count: 3, size: 64},
		{name: "zero count", count: 0, size: 64},
		{name: "too many", count: 1 << 16, size: 64},
		{name: "zero size", count: 4, size: 0},
	} {
		if _, err := r.NewBufRing(1, tc.count, tc.size); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	b, err := r.NewBufRing(1, 4, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// A kernel that refuses a flag set with EINVAL gets the next candidate;
// bit 31 is a setup flag no kernel knows. The ring also works with its
// two queues in separate mappings, as before IORING_FEAT_SINGLE_MMAP.
func TestSetupFallsBackOnEINVALAndMapsSeparately(t *testing.T) {
	leaktest.Check(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := newRing(Options{Entries: 4}, []uint32{1 << 31, setupSubmitAll | setupSingleIssuer}, false)
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f := r.Features(); !f.SingleIssuer || f.DeferTaskrun || f.SingleMmap {
		t.Fatalf("granted %v, want single-issuer in separate mappings", f)
	}
	if r.flags&(1<<31) != 0 {
		t.Fatal("the refused flag stuck")
	}
	sqe := r.GetSQE()
	sqe.PrepNop()
	sqe.UserData = 11
	if c := reapOne(t, r); c.UserData != 11 {
		t.Fatalf("nop completed %+v", c)
	}
}

// More completions than the CQ holds: the kernel (IORING_FEAT_NODROP)
// keeps the excess and flags the SQ ring; the next enter flushes it, so
// reaping in a loop sees every completion once and none is dropped.
func TestCQOverflowLosesNothing(t *testing.T) {
	leaktest.Check(t)
	r := openRing(t, Options{Entries: 16, CQEntries: 16})
	if !r.Features().NoDrop {
		t.Skip("kernel drops completions on overflow (no IORING_FEAT_NODROP)")
	}
	const total = 48
	for batch := range total / 16 {
		for i := range 16 {
			sqe := r.GetSQE()
			sqe.PrepNop()
			sqe.UserData = uint64(batch*16 + i)
		}
		if _, err := r.Submit(); err != nil {
			t.Fatal(err)
		}
	}
	if r.sqFlagsNow()&sqCQOverflow == 0 || r.CQReady() != 16 {
		t.Fatalf("%d completions ready and SQ flags %#x: the CQ did not overflow", r.CQReady(), r.sqFlagsNow())
	}
	seen := make([]bool, total)
	cqes := make([]CQE, 8)
	for count := 0; count < total; {
		n := r.Reap(cqes)
		for _, c := range cqes[:n] {
			if c.UserData >= total || seen[c.UserData] {
				t.Fatalf("unexpected completion %+v", c)
			}
			seen[c.UserData] = true
		}
		count += n
		if n == 0 {
			if _, err := r.SubmitAndWait(1, time.Second); err != nil {
				t.Fatal(err)
			}
		}
	}
	if r.Overflowed() != 0 || r.InFlight() != 0 {
		t.Errorf("overflowed %d, in flight %d", r.Overflowed(), r.InFlight())
	}
}

func (r *Ring) sqFlagsNow() uint32 { return atomic.LoadUint32(r.sqFlags) }

// A ring made disabled is set up on one thread and enabled on another,
// which becomes its single issuer: an event loop opens its ring when it is
// created, on its creator's thread, and starts it on its own thread later.
// Before Enable nothing can be submitted; after it, only the enabling
// thread submits.
func TestDisabledRingIsEnabledByItsIssuer(t *testing.T) {
	leaktest.Check(t)
	r, err := New(Options{Entries: 4, Disabled: true})
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	}()
	r.GetSQE().PrepNop()
	if _, err := r.Submit(); !errors.Is(err, unix.EBADFD) {
		t.Fatalf("submit to a disabled ring: %v, want EBADFD", err)
	}
	errc := make(chan error)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := r.Enable(); err != nil {
			errc <- err
			return
		}
		var c [1]CQE
		_, err := r.SubmitAndWait(1, time.Second)
		if err == nil && r.Reap(c[:]) != 1 {
			err = errors.New("the NOP did not complete")
		}
		errc <- err
		<-release // the issuer's thread stays this goroutine's while the owner checks
		errc <- nil
	}()
	if err := <-errc; err != nil {
		t.Fatalf("on the enabling thread: %v", err)
	}
	if r.Features().SingleIssuer {
		r.GetSQE().PrepNop()
		if _, err := r.Submit(); !errors.Is(err, unix.EEXIST) {
			t.Errorf("submit from the creating thread after Enable: %v, want EEXIST", err)
		}
	}
	close(release)
	<-errc
}
