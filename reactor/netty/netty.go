// Package netty holds the few constants and rules of Netty that more than
// one package needs: the engine applies them, the scenario format offers
// them as defaults, and the UI and the headless replay report them. Each is
// defined here once, tied to the Netty class it comes from. It imports
// nothing, so any package may use it.
package netty

import "time"

// NioEventLoop's defaults.
const (
	// IORatio is NioEventLoop.ioRatio: the share of an iteration meant for
	// I/O, the rest going to runAllTasks.
	IORatio = 50
	// RebuildThreshold is io.netty.selectorAutoRebuildThreshold: premature
	// select returns in a row before the selector is rebuilt.
	RebuildThreshold = 512
	// MinPrematureReturns is NioEventLoop.MIN_PREMATURE_SELECTOR_RETURNS: a
	// threshold below it turns rebuilding off.
	MinPrematureReturns = 3
	// ReadBuffer is the size of a loop's shared read buffer, in bytes.
	ReadBuffer = 64 << 10
)

// HashedWheelTimer's defaults (its constructor without arguments).
const (
	// WheelTick is tickDuration: the time one slot covers.
	WheelTick = 100 * time.Millisecond
	// MinWheelTick is the smallest tickDuration; Netty raises a shorter one.
	MinWheelTick = time.Millisecond
	// TicksPerWheel is the number of slots.
	TicksPerWheel = 512
)

// Chooser names, as DefaultEventExecutorChooserFactory picks them (C4).
const (
	ChooserPowerOfTwo = "power-of-two" // PowerOfTwoEventExecutorChooser: idx & (n-1)
	ChooserGeneric    = "generic"      // GenericEventExecutorChooser: idx % n
)

// IsPowerOfTwo is DefaultEventExecutorChooserFactory.isPowerOfTwo: the test
// that picks the mask over the modulo.
func IsPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// Chooser names the chooser DefaultEventExecutorChooserFactory.newChooser
// picks for a group of n loops.
func Chooser(n int) string {
	if IsPowerOfTwo(n) {
		return ChooserPowerOfTwo
	}
	return ChooserGeneric
}
