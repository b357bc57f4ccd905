package sim

import (
	"runtime"
	"sync"
	"time"
)

// spin does n rounds of dependent integer work and returns its result,
// which the caller must use: the compiler drops the loop of a result
// thrown away. It is the handler's CPU cost: work, not a clock wait, so a
// loop thread the kernel takes off the CPU gets no work done meanwhile, as
// a real server's would not.
func spin(n int, x uint64) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var (
	calibrateOnce sync.Once
	spinsPerUS    float64
)

// spinsFor is the number of spin rounds that take d on this machine.
func spinsFor(d time.Duration) int {
	calibrateOnce.Do(calibrate)
	return int(spinsPerUS * float64(d) / float64(time.Microsecond))
}

// calibrate times a batch of spin rounds a few times and keeps the
// fastest, on the thread's own CPU clock where the kernel has one: a
// batch the scheduler took off the CPU does not count the time it waited,
// so a busy machine does not shrink the work a request costs (a wall
// clock would read the wait as work, and every request would then do a
// fraction of its cost). Where there is no thread clock, the fastest of
// the batches by the wall clock is the least disturbed one.
func calibrate() {
	// Ten batches of about 1.5ms, once per process: long enough that one
	// of them runs undisturbed.
	const rounds = 1_000_000
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(1<<63 - 1)
	x := uint64(88172645463325252)
	for i := 0; i < 10; i++ {
		start := spinClock()
		x = spin(rounds, x)
		best = min(best, max(spinClock()-start, time.Nanosecond))
	}
	spinsPerUS = float64(rounds) / (float64(best) / float64(time.Microsecond))
	if x == 0 {
		spinsPerUS++ // never: xorshift never reaches 0; keeps x live
	}
}
