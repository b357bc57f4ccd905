package sim

import (
	"math"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// A thread's CPU time and run-queue wait are the kernel's own figures for
// a live thread of this process, and there are none for a thread that is
// not ours.
func TestSchedStatReadsTheKernel(t *testing.T) {
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("this kernel keeps no schedstat")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if c, ok := schedStat(syscall.Gettid()); !ok || c.RunNS <= 0 || c.WaitNS < 0 {
		t.Errorf("a live thread of ours: %+v, %v; want its CPU time", c, ok)
	}
	if _, ok := schedStat(0); ok {
		t.Error("tid 0 has scheduler statistics")
	}
	if _, ok := schedStat(1 << 30); ok {
		t.Error("a tid that does not exist has scheduler statistics")
	}
}

// The machine's and this process's CPU ticks are the kernel's, and what
// other processes used is a share between 0 and 100.
func TestOtherCPUReadsTheKernel(t *testing.T) {
	from := readCPUTicks()
	if !from.ok {
		t.Skip("no /proc/stat")
	}
	to := from
	to.machine += 100 // a second of one CPU, of which this process used half
	to.self += 50
	if got, want := otherShare(from, to, time.Second), 50/float64(runtime.NumCPU()); got != math.Round(want) {
		t.Errorf("other share %v, want %v", got, math.Round(want))
	}
	if got := otherShare(cpuTicks{}, to, time.Second); got != -1 {
		t.Errorf("unknown start: %v", got)
	}
	now := readCPUTicks()
	if now.machine < from.machine || now.self < from.self {
		t.Errorf("ticks went back: %+v then %+v", from, now)
	}
}
