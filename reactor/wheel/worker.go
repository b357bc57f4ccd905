package wheel

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// run is the wheel thread, Netty's HashedWheelTimer.Worker.
func (t *Timer) run() {
	// Locked for life and never unlocked: the OS thread ends with the
	// goroutine, so the tid shown for the wheel never runs anything else.
	runtime.LockOSThread()
	t.tid.Store(int64(gettid()))
	t.startTime = t.clock.Now()
	close(t.started)
	// Deferred so that even a task calling runtime.Goexit leaves the timer
	// stopped cleanly rather than with Stop waiting forever.
	defer t.exit()
	t.emitState(trace.StateNotStarted, trace.StateStarted)
	for {
		now, ok := t.waitForNextTick()
		if !ok {
			return
		}
		t.processTick(now)
	}
}

// waitForNextTick sleeps until the end of the current tick, Tick × (tick+1)
// after start, and returns the time since start. Like Netty it rounds each
// sleep up to whole milliseconds and re-reads the clock after waking, so a
// tick that ran late is followed at once by the ticks it missed. It reports
// false once Stop has been called.
func (t *Timer) waitForNextTick() (time.Duration, bool) {
	end := t.tickDur * time.Duration(t.tick+1)
	for {
		if t.state.Load() != workerStarted {
			return 0, false
		}
		now := t.clock.Now() - t.startTime
		sleep := (end - now + time.Millisecond - 1) / time.Millisecond * time.Millisecond
		if sleep <= 0 {
			return now, true
		}
		t.clock.Sleep(sleep, t.wake)
	}
}

// processTick is one tick in Netty 4.1's order: unlink cancellations, move
// queued timeouts into slots, expire the current slot, advance. (Netty 4.2,
// #15760, moves the cancellations after the expiry.)
func (t *Timer) processTick(now time.Duration) {
	tick, slot := t.tick, t.tick&t.mask
	t.processCancelledTasks()
	t.transferTimeoutsToBuckets()
	expired := t.expireTimeouts(&t.wheel[slot], now, tick, slot)
	t.tick++
	t.ticks.Store(t.tick)
	t.emitTick(tick, slot, expired)
}

// processCancelledTasks unlinks every timeout cancelled since the last tick
// and only now drops it from the pending count, as Netty does; one still in
// the queue has no slot and is skipped later by the transfer.
func (t *Timer) processCancelledTasks() {
	t.batch = t.cancelled.take(t.batch[:0], math.MaxInt)
	for _, to := range t.batch {
		if to.bucket != nil {
			to.bucket.remove(to)
		}
		t.pending.Add(-1)
	}
	t.releaseBatch()
}

// transferTimeoutsToBuckets moves at most MaxTransferPerTick queued
// timeouts into their slots; the rest wait for the next tick.
func (t *Timer) transferTimeoutsToBuckets() {
	t.batch = t.timeouts.take(t.batch[:0], MaxTransferPerTick)
	for _, to := range t.batch {
		if to.state.Load() == stCancelled {
			continue
		}
		slot, rounds := t.place(to.deadline, t.tick)
		to.remainingRounds = rounds
		t.wheel[slot].add(to)
	}
	t.releaseBatch()
}

// place is Netty's slot arithmetic. calc is the tick whose interval holds
// the deadline; rounds counts the full revolutions before that tick comes
// round; a deadline before the current tick goes into the current slot
// (its rounds are ≤ 0) so it fires at the end of this tick.
func (t *Timer) place(deadline time.Duration, tick int64) (slot, rounds int64) {
	calc := int64(deadline / t.tickDur)
	rounds = (calc - tick) / int64(len(t.wheel))
	return max(calc, tick) & t.mask, rounds
}

// releaseBatch drops the batch's references, and its array after a burst.
func (t *Timer) releaseBatch() {
	clear(t.batch)
	t.batch = t.batch[:0]
	if cap(t.batch) > shrinkAbove {
		t.batch = nil
	}
}

// expireTimeouts sweeps the current slot: an entry whose rounds reached zero
// fires, any other has its rounds decremented. A cancelled entry is left for
// processCancelledTasks to unlink at the next tick. It returns how many
// timeouts fired.
func (t *Timer) expireTimeouts(b *bucket, now time.Duration, tick, slot int64) int {
	expired := 0
	for to := b.head; to != nil; {
		next := to.next // expire unlinks to; tasks never unlink anything
		switch {
		case to.remainingRounds > 0:
			if to.state.Load() != stCancelled {
				to.remainingRounds--
			}
		case to.deadline > now:
			t.report(fmt.Errorf("%w: %s: timeout %d due at %v found at %v", ErrMisplaced, t.name, to.id, to.deadline, now))
		case t.expire(b, to, tick, slot):
			expired++
		}
		to = next
	}
	return expired
}

// expire fires one timeout if Cancel has not won the race for its state.
func (t *Timer) expire(b *bucket, to *Timeout, tick, slot int64) bool {
	if !to.state.CompareAndSwap(stInit, stExpired) {
		return false
	}
	b.remove(to)
	t.pending.Add(-1)
	t.expiredN.Add(1)
	t.emitExpire(tick, slot, to)
	t.runTask(to)
	return true
}

// runTask runs the task inline, as Netty's default ImmediateExecutor does:
// a slow task delays the rest of the wheel. A panic is recovered and
// reported, and the wheel keeps ticking.
func (t *Timer) runTask(to *Timeout) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		t.panics.Add(1)
		t.emitPanic(to)
		if t.onError != nil {
			t.onError(&TaskPanicError{Timer: t.name, ID: to.id, Name: to.name, Value: v, Stack: debug.Stack()})
		}
	}()
	to.task()
}

func (t *Timer) report(err error) {
	if t.onError != nil {
		t.onError(err)
	}
}

// exit empties the wheel and the queue into the unprocessed list Stop
// returns, skipping what has expired or been cancelled, then closes done.
func (t *Timer) exit() {
	var left []*Timeout
	for i := range t.wheel {
		for to := t.wheel[i].poll(); to != nil; to = t.wheel[i].poll() {
			if to.state.Load() == stInit {
				left = append(left, to)
			}
		}
	}
	for _, to := range t.timeouts.close() {
		if to.state.Load() == stInit {
			left = append(left, to)
		}
	}
	t.cancelled.close()
	// Every timeout is now expired, cancelled or about to be returned, and
	// the closed queue admits no more: nothing is pending. Only this thread
	// ever decrements, and no one can increment any longer.
	t.pending.Store(0)
	sortByID(left)
	t.unprocessed = left
	t.emitState(trace.StateStarted, trace.StateTerminated)
	close(t.done)
}
