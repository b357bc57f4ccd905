package sim

import (
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
// fastest: the rounds that were least disturbed by other threads sharing
// the CPU measure the work itself.
func calibrate() {
	// Ten batches of about 1.5ms, once per process: long enough that one
	// of them runs undisturbed.
	const rounds = 1_000_000
	best := time.Duration(1<<63 - 1)
	x := uint64(88172645463325252)
	for i := 0; i < 10; i++ {
		start := time.Now()
		x = spin(rounds, x)
		best = min(best, max(time.Since(start), time.Nanosecond))
	}
	spinsPerUS = float64(rounds) / (float64(best) / float64(time.Microsecond))
	if x == 0 {
		spinsPerUS++ // never: xorshift never reaches 0; keeps x live
	}
}
