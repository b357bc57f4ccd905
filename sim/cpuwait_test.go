package sim

import (
	"math"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The run-queue wait is the kernel's own figure for a live thread of this
// process, and none for a thread that is not ours.
func TestCPUWaitReadsTheKernel(t *testing.T) {
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("this kernel keeps no schedstat")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if w := cpuWait(syscall.Gettid()); w < 0 {
		t.Errorf("no run-queue wait for a live thread of ours: %d", w)
	}
	if w := cpuWait(0); w != -1 {
		t.Errorf("tid 0: %d, want -1", w)
	}
	if w := cpuWait(1 << 30); w != -1 {
		t.Errorf("a tid that does not exist: %d, want -1", w)
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
