package reactor

import "sync/atomic"

// counters are the loop's running totals. The loop thread is their only
// writer; readers on other goroutines load them atomically, so a summary or
// the UI never stops the loop to read them.
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
}

// Stats is a snapshot of one loop's counters. The JSON keys are the run
// summary's (DESIGN.md §6).
type Stats struct {
	Iterations       int64 `json:"iterations"`
	Selects          int64 `json:"selects"`
	SelectNows       int64 `json:"select_nows"`
	Premature        int64 `json:"premature"`
	MaxSelectCnt     int64 `json:"max_select_cnt"`
	SelectCnt        int64 `json:"select_cnt"`
	Rebuilds         int64 `json:"rebuilds"`
	Migrated         int64 `json:"migrated"`
	WakeupsWritten   int64 `json:"wakeups_written"`
	WakeupsCoalesced int64 `json:"wakeups_coalesced"`
	SelfWakeups      int64 `json:"self_wakeups"`
	TasksSubmitted   int64 `json:"tasks_submitted"`
	TasksRejected    int64 `json:"tasks_rejected"`
	TasksRun         int64 `json:"tasks_run"`
	TailTasksRun     int64 `json:"tail_tasks_run"`
	DeadlineChecks   int64 `json:"deadline_checks"`
	DeadlineHits     int64 `json:"deadline_hits"`
	TaskPanics       int64 `json:"task_panics"`
	IONanos          int64 `json:"io_ns"`
	TaskNanos        int64 `json:"task_ns"`
	Channels         int64 `json:"channels"`
	Accepted         int64 `json:"accepted"`
	BytesRead        int64 `json:"bytes_read"`
	BytesWritten     int64 `json:"bytes_written"`
	Scheduled        int64 `json:"scheduled"`
	TimersDue        int64 `json:"timers_due"`
	Closed           int64 `json:"closed"`
	Exceptions       int64 `json:"exceptions"`
	Injected         int64 `json:"injected"`
	Registered       int64 `json:"registered"`
	Connected        int64 `json:"connected"`
	HandlerPanics    int64 `json:"handler_panics"`
	QueueDepth       int64 `json:"queue_depth"`
}

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
	}
}

// add bumps a counter from the loop thread. A plain load and store would do
// for a single writer, but Add keeps the race detector's view simple and
// costs the same on x86 for an uncontended line.
func add(c *atomic.Int64, n int64) { c.Add(n) }

func storeMax(c *atomic.Int64, v int64) {
	if v > c.Load() {
		c.Store(v)
	}
}
