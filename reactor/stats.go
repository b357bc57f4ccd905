package reactor

import (
	"sync/atomic"

	ctr "github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// counters are the loop's running totals. The loop thread writes most of
// them; the submit and wakeup counters are written by whichever thread
// submits. Readers on other goroutines load them atomically, so a summary or
// the UI never stops the loop to read them. (Padding the submitters'
// counters onto lines of their own was measured and changed nothing: a
// contended submit costs what the scheduler costs.)
type counters struct {
	iterations, selects, selectNows, premature, maxSelectCnt atomic.Int64
	rebuilds, migrated                                       atomic.Int64
	wakeupsWritten, wakeupsCoalesced, selfWakeups            atomic.Int64
	tasksSubmitted, tasksRejected, tasksRun, tailTasksRun    atomic.Int64
	deadlineChecks, deadlineHits, taskPanics                 atomic.Int64
	ioNanos, taskNanos                                       atomic.Int64
	channels, accepted, bytesRead, bytesWritten              atomic.Int64
	scheduled, timersDue, closed, exceptions, injected       atomic.Int64
	registered, connected, handlerPanics                     atomic.Int64
	selectCnt                                                atomic.Int64
	suspensions, resumes                                     atomic.Int64 // auto-scaling (autoscale.go)
}

// Stats is a snapshot of one loop's counters: the one type the engine, the
// UI's model, the headless replay and the run summary share, defined with
// its fold from events and its table of names in reactor/trace/counters.
type Stats = ctr.Stats

func (c *counters) snapshot() Stats {
	return Stats{
		Iterations: c.iterations.Load(), Selects: c.selects.Load(), SelectNows: c.selectNows.Load(),
		Premature: c.premature.Load(), MaxSelectCnt: c.maxSelectCnt.Load(), SelectCnt: c.selectCnt.Load(),
		Rebuilds: c.rebuilds.Load(), Migrated: c.migrated.Load(),
		WakeupsWritten: c.wakeupsWritten.Load(), WakeupsCoalesced: c.wakeupsCoalesced.Load(),
		SelfWakeups:    c.selfWakeups.Load(),
		TasksSubmitted: c.tasksSubmitted.Load(), TasksRejected: c.tasksRejected.Load(),
		TasksRun: c.tasksRun.Load(), TailTasksRun: c.tailTasksRun.Load(),
		DeadlineChecks: c.deadlineChecks.Load(), DeadlineHits: c.deadlineHits.Load(),
		TaskPanics: c.taskPanics.Load(), IONanos: c.ioNanos.Load(), TaskNanos: c.taskNanos.Load(),
		Channels: c.channels.Load(), Accepted: c.accepted.Load(),
		BytesRead: c.bytesRead.Load(), BytesWritten: c.bytesWritten.Load(),
		Scheduled: c.scheduled.Load(), TimersDue: c.timersDue.Load(), Closed: c.closed.Load(),
		Exceptions: c.exceptions.Load(), Injected: c.injected.Load(),
		Registered: c.registered.Load(), Connected: c.connected.Load(), HandlerPanics: c.handlerPanics.Load(),
		Suspensions: c.suspensions.Load(), Resumes: c.resumes.Load(),
	}
}

// add bumps a counter. For the counters only the loop thread writes, a plain
// load and store would do, but Add keeps the race detector's view simple and
// costs the same on x86 for an uncontended line.
func add(c *atomic.Int64, n int64) { c.Add(n) }

func storeMax(c *atomic.Int64, v int64) {
	if v > c.Load() {
		c.Store(v)
	}
}
