//go:build !linux || nolive

package sim

import "time"

// spinClock is the wall clock where no thread CPU clock is read.
func spinClock() time.Duration { return time.Duration(time.Now().UnixNano()) }
