package model

import "github.com/reactorviz/reactorviz/reactor/trace"

// Shutdown is a graceful shutdown as a loop's events tell it (C23). From
// SHUTTING_DOWN the loop runs what comes until no task has run for the
// quiet period, or until the timeout from the start, whichever is first
// (SingleThreadEventExecutor.confirmShutdown); then SHUTDOWN, and from
// there a submission is rejected.
type Shutdown struct {
	Start    int64 // when the loop reported SHUTTING_DOWN; 0: no shutdown
	Quiet    int64 // the quiet period, ns; 0 when the trace does not say
	Timeout  int64 // the timeout, ns
	LastTask int64 // its latest task batch's end, or its thread's start (lastExecutionTime)
	End      int64 // when it reported SHUTDOWN, 0 before
}

// QuietLeft is the quiet period still to pass at now, and whether one is
// counting. It counts from the loop's last task batch, not from the
// shutdown (confirmShutdown compares lastExecutionTime, which the thread's
// start sets too), so a loop idle for longer than the quiet period stops
// at its next look; a batch that runs starts the count again.
func (s Shutdown) QuietLeft(now int64) (int64, bool) {
	if s.Start == 0 || s.End != 0 || s.Quiet <= 0 {
		return 0, false
	}
	return max(s.Quiet-(now-s.LastTask), 0), true
}

// TimeoutLeft is the time until the timeout ends the wait regardless.
func (s Shutdown) TimeoutLeft(now int64) int64 {
	return max(s.Timeout-(now-s.Start), 0)
}

// apply folds one event of the loop.
func (s *Shutdown) apply(e *trace.Event) {
	switch e.Kind {
	case trace.KindState:
		switch trace.State(e.B) {
		case trace.StateStarted:
			s.LastTask = e.Time // the thread's start: updateLastExecutionTime
		case trace.StateShuttingDown:
			*s = Shutdown{Start: e.Time, Quiet: max(e.D, 0), Timeout: max(e.E, 0), LastTask: s.LastTask}
		case trace.StateShutdown:
			if s.Start != 0 && s.End == 0 {
				s.End = e.Time
			}
		}
	case trace.KindTasksEnd:
		if s.End == 0 {
			s.LastTask = e.Time
		}
	}
}
