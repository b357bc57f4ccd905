package counters

// Breakpoints say when a loop should stop. They are one rule over two
// readings of a loop's counters, so the live step gate (which reads the
// engine's counters at each phase boundary) and a replay's break search
// (which folds the recorded events one by one) stop for the same reasons.
type Breakpoints struct {
	Rebuild     bool // the selector was rebuilt
	Premature   bool // a select returned prematurely
	DeadlineHit bool // runAllTasks stopped at a 64-task deadline check
	Wakeup      bool // another thread wrote the loop's eventfd (not the loop's own wakeup)
	TaskPanic   bool // a task or handler panicked (a channel exception is not a panic)
	QueueAbove  int  // the task queue grew from at most this to deeper (0: off)
}

// Any reports whether any breakpoint is on.
func (b Breakpoints) Any() bool {
	return b.Rebuild || b.Premature || b.DeadlineHit || b.Wakeup || b.TaskPanic || b.QueueAbove > 0
}

// Breakpoint reasons, as the pause event and the header show them.
const (
	ReasonRebuild     = "breakpoint: selector rebuilt"
	ReasonPremature   = "breakpoint: premature select return"
	ReasonDeadlineHit = "breakpoint: task deadline hit"
	ReasonWakeup      = "breakpoint: wakeup written"
	ReasonTaskPanic   = "breakpoint: task or handler panic"
	ReasonQueueAbove  = "breakpoint: task queue above threshold"
)

// Reason returns why a loop whose counters went from prev to now should
// stop, or "" when no breakpoint fires. Counters fire on an increase. The
// queue fires on the crossing only: a queue that stays deep would otherwise
// stop the loop at every boundary, and resuming would act as a step. It
// allocates nothing, for the step gate runs it on the loop thread.
func (b *Breakpoints) Reason(prev, now *Stats) string {
	switch {
	case b.Rebuild && now.Rebuilds > prev.Rebuilds:
		return ReasonRebuild
	case b.Premature && now.Premature > prev.Premature:
		return ReasonPremature
	case b.DeadlineHit && now.DeadlineHits > prev.DeadlineHits:
		return ReasonDeadlineHit
	case b.Wakeup && now.WakeupsWritten > prev.WakeupsWritten:
		return ReasonWakeup
	case b.TaskPanic && now.TaskPanics+now.HandlerPanics > prev.TaskPanics+prev.HandlerPanics:
		return ReasonTaskPanic
	case b.QueueAbove > 0 && prev.QueueDepth <= int64(b.QueueAbove) && now.QueueDepth > int64(b.QueueAbove):
		return ReasonQueueAbove
	}
	return ""
}

// Watch applies breakpoints to successive readings of one loop's counters:
// each Check compares a reading with the one before.
type Watch struct {
	Breakpoints
	last Stats
}

// Reset sets the breakpoints and the reading later ones are compared with.
func (w *Watch) Reset(bp Breakpoints, now *Stats) {
	w.Breakpoints, w.last = bp, *now
}

// Check returns the reason a breakpoint fires between the previous reading
// and now, or "", and keeps now for the next call.
func (w *Watch) Check(now *Stats) string {
	if !w.Any() {
		return ""
	}
	r := w.Reason(&w.last, now)
	w.last = *now
	return r
}
