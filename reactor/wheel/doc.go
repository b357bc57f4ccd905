// Package wheel is Netty's HashedWheelTimer: a ring of slots swept by one
// thread, one slot per tick, that fires timeouts at the end of the tick whose
// interval contains their deadline (docs/concepts.md C17).
//
// # How the wheel works
//
// Time is cut into ticks of Config.Tick (100 ms by default). The wheel has
// Config.TicksPerWheel slots (512 by default, rounded up to a power of two so
// the slot of tick n is n & mask). A timeout due at deadline d belongs to tick
// calc = d / Tick; it goes into slot max(calc, tick) & mask with
// remainingRounds = (calc − tick) / wheelLength, the number of full
// revolutions the cursor must make before it is due. Each pass of the cursor
// over a slot either expires an entry whose rounds reached zero or decrements
// its rounds. A deadline already in the past lands in the current slot and
// fires at the end of this tick.
//
// The wheel thread starts lazily on the first NewTimeout. NewTimeout never
// touches the slots: it appends the timeout to a pending queue, and the wheel
// thread moves at most 100 000 queued timeouts into slots per tick, so a burst
// of scheduling cannot stall a tick indefinitely. Netty uses a lock-free MPSC
// queue here; this package uses a mutex-guarded slice, which is enough
// because the wheel is not on an event loop's hot path and the lock is held
// only to append or to take one tick's batch.
//
// Each tick, in the order of Netty 4.1's worker:
//
//  1. sleep until Tick × (tick+1) since start, rounding the sleep up to whole ms;
//  2. unlink the timeouts cancelled since the last tick;
//  3. move up to 100 000 pending timeouts into their slots;
//  4. expire the current slot, running each due task inline;
//  5. tick++.
//
// Cancel only flips a timeout from INIT to CANCELLED; the wheel thread
// unlinks it (and drops the pending count) at its next tick, as Netty does.
// A slow task delays every timeout behind it: precision is 0 to 1 tick late
// plus sleep granularity, never early.
//
// # Not the event loop's timer
//
// Netty's event loops do not use this wheel for schedule(): each loop keeps
// its scheduled tasks in a binary min-heap ordered by deadline, then id, and
// bounds its select timeout by the heap's head (docs/concepts.md C7). The
// wheel is a separate thread for large numbers of coarse timeouts (idle and
// connect timeouts, say), where O(1) insertion and cancellation matter more
// than precision.
//
// # Differences from Netty
//
// Tasks are func() and always run inline on the wheel thread (Netty's default
// ImmediateExecutor). A panicking task is recovered, counted and reported as a
// *TaskPanicError where Netty logs a warning. Bad input returns an error where
// Netty throws. Stop called from a timer task returns ErrStopFromTask instead
// of throwing IllegalStateException; NewTimeout racing Stop is rejected with
// ErrStopped rather than leaving an orphaned timeout in the queue.
package wheel
