package reactor

import "math"

// nextWakeupSelect is the select of NioEventLoop.run in Netty 4.1.44+
// (netty#9799), which EpollIoHandler.run of Netty 4.2 shares. The loop
// publishes in nextWakeupNanos the deadline it is about to block until
// (NONE with nothing scheduled), checks hasTasks() once more, blocks, and
// sets AWAKE again on return. A producer writes the eventfd only when it
// swaps AWAKE into a value that was not AWAKE, so a running loop costs
// producers no write, and a sleeping one gets exactly one.
//
// idleCap is 4.2's: EpollIoHandler reads the deadline from its
// IoHandlerContext, whose deadlineNanos() is
// SingleThreadEventExecutor.deadlineNanos(), now + SCHEDULE_PURGE_INTERVAL
// (1 s) with nothing scheduled and never -1. Its "nothing on the calendar
// → NONE" branch is therefore never taken, and an idle 4.2 epoll loop
// wakes once a second, as 4.1.43's did before 4.1.44 removed the cap.
type nextWakeupSelect struct {
	l       *EventLoop
	idleCap bool
}

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
		l.selectNowBeforeTasks()
		return 0
	}
	if l.beforePublish != nil {
		l.beforePublish() // tests: a producer racing the publish
	}
	if handoff == 0 && h.idleCap {
		handoff = l.now() // the idle deadline is read from the clock
	}
	deadline := l.nextDeadline(handoff, h.idleCap)
	l.nextWakeup.Store(deadline)
	var ended int64
	if !l.hasTasks() {
		ended = h.selectUntil(deadline, handoff)
	}
	l.nextWakeup.Store(wakeAwake) // nextWakeupNanos.lazySet(AWAKE)
	return ended
}

// nextDeadline is the deadline a loop about to block waits until: the
// head of the scheduled heap, or with none NONE (4.1.44+'s NioEventLoop)
// or, with idleCap (every 4.2 handler: SingleThreadEventExecutor.
// deadlineNanos()), now + 1 s.
func (l *EventLoop) nextDeadline(now int64, idleCap bool) int64 {
	switch {
	case len(l.scheduled) > 0:
		return l.scheduled[0].deadline
	case idleCap:
		return now + schedulePurgeInterval
	}
	return wakeNone
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
		l.selectNowBeforeTasks()
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
	// Under 4.1.44+ whether this return will count as premature is only
	// known after the tasks ran; the event's flag is the prediction from
	// what is queued. EpollIoHandler.run of 4.2 (idleCap) counts nothing:
	// it has no selectCnt and no unexpectedSelectorWakeup, so its return
	// after the idle second, or after anything else, is never premature.
	premature := !h.idleCap && n == 0 && !interrupted && !l.fatal() && !l.hasTasks() && !l.scheduledDue(t)
	// The count this iteration will leave, by the same prediction, is
	// shown at once: a loop stopped at its I/O or tasks gate shows what
	// its trace says. The counter, the highest count and the gauge follow
	// the event (selectEnded, as under 4.1.43), so a replay of the trace
	// counts what the run counted; design41.runTasks keeps Netty's own
	// count, for the rebuild.
	cnt := int64(0)
	if premature {
		cnt = l.selectCnt + 1
	}
	l.selectEnded(t, n, took, cnt, premature)
	return t
}

// selectNowBeforeTasks is the poll of an iteration with tasks to run,
// which will reset selectCnt: the count is shown as 0 from here on, as
// the poll's select_end reports it.
func (l *EventLoop) selectNowBeforeTasks() { l.selectNow(0) }

// design41 is NioEventLoop.run of Netty 4.1.44+.
type design41 struct{ nextWakeupSelect }

// ioPhase: the 4.1.44+ run() calls processSelectedKeys only when
// strategy > 0, the number of keys the select returned; an iteration that
// selected nothing (woken by a task, or timed out) goes straight to
// runAllTasks(0).
func (*design41) ioPhase(keys int) bool { return keys > 0 }

// closesBeforeTasks: NioEventLoop.run calls closeAll after runAllTasks,
// before confirmShutdown.
func (*design41) closesBeforeTasks() bool { return false }

// runTasks is the end of the 4.1.44+ run(): with nothing selected it runs
// runAllTasks(0), at most 64 tasks (the first clock check ends it); with
// keys it applies ioRatio as before. Then selectCnt: any iteration that
// selected keys or ran tasks resets it; one that did neither counts, and
// unexpectedSelectorWakeup rebuilds the selector at the threshold.
//
// The premature counter, the highest count and the selectCnt gauge are
// not kept here but at the select's return (selectUntil), from what the
// select_end event says, so the run and a replay of its trace agree. The
// two differ only where Netty's selectCnt counts an iteration that had no
// blocking select to return early, or had a queue holding nothing but a
// WAKEUP_TASK (pollTask skips it, so runAllTasks ran nothing: the
// iterations of a graceful shutdown); docs/netty-differences.md.
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
	if ran || keys > 0 || l.unexpectedSelectorWakeup() {
		l.selectCnt = 0
	}
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
		// The count the rebuild reports is the highest reached; after it
		// the gauge reads 1, as a trace's reader takes it from rebuild_end.
		storeMax(&l.stats.MaxSelectCnt, l.selectCnt)
		l.rebuildSelector(l.selectCnt)
		l.stats.SelectCnt.Store(1)
		return true
	}
	return false
}
