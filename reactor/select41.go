package reactor

import (
	"math"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// nextWakeupSelect is the select of NioEventLoop.run in Netty 4.1.44+
// (netty#9799), which EpollIoHandler.run of Netty 4.2 shares. The loop
// publishes in nextWakeupNanos the deadline it is about to block until
// (NONE with nothing scheduled), checks hasTasks() once more, blocks, and
// sets AWAKE again on return. A producer writes the eventfd only when it
// swaps AWAKE into a value that was not AWAKE, so a running loop costs
// producers no write, and a sleeping one gets exactly one.
type nextWakeupSelect struct{ l *EventLoop }

func (h nextWakeupSelect) processIO() int { return h.l.processKeys() }

// wake is NioEventLoop.wakeup(inEventLoop=false) of 4.1.44+ and
// EpollIoHandler.wakeup of 4.2.
func (h nextWakeupSelect) wake() bool {
	return h.l.nextWakeup.Swap(wakeAwake) != wakeAwake && h.l.wakeSelector()
}

// selectPhase is the SELECT case of the 4.1.44+ run(): with tasks queued
// DefaultSelectStrategy polls (selectNow); otherwise publish the deadline,
// re-check hasTasks() (a task offered before the publish saw AWAKE and did
// not write), block, and go back to AWAKE.
func (h nextWakeupSelect) selectPhase(handoff int64) int64 {
	l := h.l
	if l.hasTasks() {
		l.selectNow()
		return 0
	}
	if l.beforePublish != nil {
		l.beforePublish() // tests: a producer racing the publish
	}
	deadline := wakeNone
	if len(l.scheduled) > 0 {
		deadline = l.scheduled[0].deadline
	}
	l.nextWakeup.Store(deadline)
	var ended int64
	if !l.hasTasks() {
		ended = h.selectUntil(deadline, handoff)
	}
	l.nextWakeup.Store(wakeAwake) // nextWakeupNanos.lazySet(AWAKE)
	return ended
}

// selectTimeoutMillis is NioEventLoop.select(deadlineNanos) of 4.1.44+:
// -1 (block until woken) with nothing scheduled, otherwise the delay
// rounded up to a whole millisecond (deadline + 995 µs), so the loop never
// wakes just before its timer and selects again for nothing; 0 means poll.
func selectTimeoutMillis(deadline, now int64) int {
	if deadline == wakeNone {
		return -1
	}
	ms := max(deadline+995_000-now, 0) / 1_000_000
	return int(min(ms, math.MaxInt32))
}

// selectUntil blocks until deadline (or forever with NONE). It keeps no
// selectCnt of its own: 4.1.44+ counts in run() (design41.runTasks).
func (h nextWakeupSelect) selectUntil(deadline, now int64) int64 {
	l := h.l
	if now == 0 {
		now = l.now()
	}
	timeout := selectTimeoutMillis(deadline, now)
	if timeout == 0 {
		l.selectNow()
		return 0
	}
	l.blocking(now)
	n, interrupted, start := l.wait(timeout)
	t := l.now()
	l.blocked(now, t)
	var took int64
	if start != 0 {
		took = t - start
	}
	l.interrupted = interrupted
	// Whether this return will count as premature is only known after the
	// tasks ran; the event's flag is the prediction from what is queued.
	premature := n == 0 && !interrupted && !l.fatal() && !l.hasTasks() && !l.scheduledDue(t)
	if l.tracing() {
		l.emitAt(t, trace.Event{Kind: trace.KindSelectEnd, A: int64(n), B: took, C: l.selectCnt + 1, Flag: premature})
	}
	return t
}

// design41 is NioEventLoop.run of Netty 4.1.44+.
type design41 struct{ nextWakeupSelect }

// runTasks is the end of the 4.1.44+ run(): with nothing selected it runs
// runAllTasks(0), at most 64 tasks (the first clock check ends it); with
// keys it applies ioRatio as before. Then selectCnt: any iteration that
// selected keys or ran tasks resets it; one that did neither counts, and
// unexpectedSelectorWakeup rebuilds the selector at the threshold.
func (d *design41) runTasks(ioTime int64, keys int) {
	l := d.l
	var ran bool
	switch r := int(l.ioRatio.Load()); {
	case r == 100:
		ran = l.runAllTasksUnbounded()
	case keys > 0:
		ran = l.runAllTasks(TaskBudget(ioTime, r))
	default:
		ran = l.runAllTasks(0)
	}
	l.selectCnt++
	storeMax(&l.stats.maxSelectCnt, l.selectCnt)
	if ran || keys > 0 {
		l.selectCnt = 0
	} else {
		add(&l.stats.premature, 1)
		if l.unexpectedSelectorWakeup() {
			l.selectCnt = 0
		}
	}
	l.stats.selectCnt.Store(l.selectCnt)
}

// unexpectedSelectorWakeup is NioEventLoop.unexpectedSelectorWakeup of
// 4.1.44+: an interrupted select is no broken selector; otherwise rebuild
// once selectCnt reaches the threshold. It reports whether to reset.
func (l *EventLoop) unexpectedSelectorWakeup() bool {
	if l.interrupted {
		l.interrupted = false
		return true
	}
	if th := int64(l.cfg.RebuildThreshold); th > 0 && l.selectCnt >= th {
		l.rebuildSelector(l.selectCnt)
		return true
	}
	return false
}
