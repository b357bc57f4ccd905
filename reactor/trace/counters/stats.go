package counters

import "github.com/reactorviz/reactorviz/reactor/trace"

// Stats is a snapshot of one loop's counters. The JSON keys are the run
// summary's, and Table lists each with its meaning; a test keeps the two in
// step.
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
	Suspensions      int64 `json:"suspensions"`
	Resumes          int64 `json:"resumes"`
}

// Fold adds one of loop's events to s: the counters a live loop keeps,
// rebuilt from its trace. The headless replay and the UI both count with
// it, so a trace read either way gives the same figures, and with no
// dropped events they equal the live run's. A hostile trace cannot drive a
// counter below zero. Queue depth and the current selectCnt depend on
// more than one event: Loop.Fold keeps them.
func (s *Stats) Fold(e *trace.Event, loop string) {
	switch e.Kind {
	case trace.KindSelectBegin:
		if e.Str == "select_now" {
			s.SelectNows++
		} else {
			s.Selects++
		}
	case trace.KindSelectEnd:
		s.MaxSelectCnt = max(s.MaxSelectCnt, e.C)
		if e.Flag {
			s.Premature++
		}
	case trace.KindIOBegin:
		s.Iterations++
	case trace.KindIOEnd:
		s.IONanos += max(e.B, 0)
	case trace.KindDeadlineCheck:
		s.DeadlineChecks++
		if e.Flag {
			s.DeadlineHits++
		}
	case trace.KindTasksEnd:
		s.TaskNanos += max(e.B, 0)
	case trace.KindTailTasks:
		s.TailTasksRun += max(e.A, 0)
	case trace.KindWakeup:
		s.foldWakeup(e, loop)
	case trace.KindRebuildBegin:
		s.MaxSelectCnt = max(s.MaxSelectCnt, e.A)
	case trace.KindRebuildEnd:
		s.Rebuilds++
		s.Migrated += max(e.B, 0)
	default:
		s.foldTaskOrChannel(e)
	}
}

// foldWakeup tells the loop's own wakeup from another thread's, and a
// written eventfd from a coalesced one.
func (s *Stats) foldWakeup(e *trace.Event, loop string) {
	switch {
	case e.Str == loop:
		s.SelfWakeups++
	case e.Flag:
		s.WakeupsWritten++
	default:
		s.WakeupsCoalesced++
	}
}

func (s *Stats) foldTaskOrChannel(e *trace.Event) {
	switch e.Kind {
	case trace.KindTaskSubmit:
		s.TasksSubmitted++
	case trace.KindTaskReject:
		s.TasksRejected++
	case trace.KindTaskRun:
		s.TasksRun++
	case trace.KindTaskPanic:
		// A task's panic names the task; a handler's has no task id.
		if e.A == 0 {
			s.HandlerPanics++
		} else {
			s.TaskPanics++
		}
	case trace.KindTimerSchedule:
		s.Scheduled++
	case trace.KindTimerDue:
		s.TimersDue++
	case trace.KindAccept:
		s.Accepted++
	case trace.KindConnect:
		s.Connected++
	case trace.KindLoopSuspend:
		s.Suspensions++
	case trace.KindLoopResume:
		s.Resumes++
	case trace.KindRegister:
		s.Registered++
		s.Channels++
	case trace.KindRead:
		s.BytesRead += max(e.C, 0)
	case trace.KindWrite:
		s.BytesWritten += max(e.C, 0)
	case trace.KindClose:
		s.Closed++
		s.Channels = max(s.Channels-1, 0)
	case trace.KindException:
		s.Exceptions++
	case trace.KindInject:
		s.Injected++
	}
}
