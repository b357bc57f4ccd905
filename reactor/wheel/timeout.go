package wheel

import (
	"sync/atomic"
	"time"
)

// Timeout states, numbered as Netty's HashedWheelTimeout ST_* constants. A
// timeout leaves INIT once, by one CAS: whoever wins decides whether it runs.
const (
	stInit      int32 = 0
	stCancelled int32 = 1
	stExpired   int32 = 2
)

// Timeout is one task scheduled on a Timer. Its methods are safe from any
// goroutine.
type Timeout struct {
	timer    *Timer
	id       uint64
	name     string
	task     func()
	deadline time.Duration // since the wheel started, as in Netty
	state    atomic.Int32

	// Owned by the wheel thread: the slot's doubly linked list, as Netty's
	// HashedWheelBucket, so unlinking a cancelled timeout is O(1).
	remainingRounds int64
	bucket          *bucket
	next, prev      *Timeout
}

// ID returns the timeout's id, unique within its timer and counted from 1.
func (to *Timeout) ID() uint64 { return to.id }

// Name returns the name given to NewTimeout.
func (to *Timeout) Name() string { return to.name }

// Cancel stops the task from running. It reports false when the timeout has
// already expired or been cancelled. The wheel unlinks it at its next tick;
// until then it still counts as pending, as in Netty.
func (to *Timeout) Cancel() bool {
	if !to.state.CompareAndSwap(stInit, stCancelled) {
		return false
	}
	to.timer.cancelledN.Add(1)
	// After Stop the queue is closed and the push is dropped: nothing is
	// left to unlink.
	to.timer.cancelled.push(to)
	return true
}

// Cancelled reports whether Cancel succeeded.
func (to *Timeout) Cancelled() bool { return to.state.Load() == stCancelled }

// Expired reports whether the wheel has fired the timeout (its task has
// started or finished running).
func (to *Timeout) Expired() bool { return to.state.Load() == stExpired }
