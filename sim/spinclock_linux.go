//go:build linux && !nolive

package sim

import (
	"time"

	"golang.org/x/sys/unix"
)

// spinClock reads the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID):
// the time the thread ran, not the time it waited for a CPU. The caller
// is locked to its thread.
func spinClock() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
