package counters

import "github.com/reactorviz/reactorviz/reactor/trace"

// Set is the one declaration of a loop's counters: each field is one
// counter, its tag gives its key in the run summary's JSON (which is also the
// key an expectation names after a loop, worker-0.rebuilds), whether it is
// beyond the summary's stable set, and what it means, for the expectation
// help and the docs. The engine keeps a Set of atomics (Atomics), a snapshot
// is a Set of int64 (Stats), and Table reads the tags; so adding a counter is
// a field here and a case in Fold.
//
// A counter tagged live is one no event records, so Fold cannot rebuild
// it: a read that found nothing (EAGAIN) emits no event, a failed write
// none, an epoll_ctl that removes a channel none. A replay of a trace
// leaves it at zero, as it leaves the clients' figures, and a frame or
// summary built from a trace compares with a live one's on Replayable.
//
// Every field is a T, and nothing else may be: Load and Counter.Get read a
// Set as an array of N values (checkLayout makes sure of it at init).
type Set[T any] struct {
	Iterations       T `json:"iterations" doc:"loop iterations (select → I/O → tasks)"`
	Selects          T `json:"selects" doc:"blocking selects (epoll_wait with a timeout)"`
	SelectNows       T `json:"select_nows" doc:"non-blocking selects (selectNow)"`
	Premature        T `json:"premature" doc:"selects that returned early with nothing selected"`
	MaxSelectCnt     T `json:"max_select_cnt" doc:"highest selectCnt reached"`
	SelectCnt        T `json:"select_cnt" extra:"true" doc:"selectCnt at the end of the run"`
	Rebuilds         T `json:"rebuilds" doc:"selector rebuilds"`
	Migrated         T `json:"migrated" doc:"channels re-registered by rebuilds"`
	WakeupsWritten   T `json:"wakeups_written" doc:"eventfd writes that woke the loop"`
	WakeupsCoalesced T `json:"wakeups_coalesced" doc:"wakeups skipped because the loop was already awake"`
	SelfWakeups      T `json:"self_wakeups" extra:"true" doc:"eventfd writes the loop made to itself after a select, so a wakeup racing with clearing wakenUp is not lost"`
	TasksSubmitted   T `json:"tasks_submitted" doc:"tasks offered to the task queue"`
	TasksRejected    T `json:"tasks_rejected" doc:"tasks refused (queue full or loop shut down)"`
	TasksRun         T `json:"tasks_run" doc:"tasks run, internal ones (register, bind) included"`
	TailTasksRun     T `json:"tail_tasks_run" doc:"tail tasks run after task batches"`
	DeadlineChecks   T `json:"deadline_checks" doc:"clock reads every 64 tasks in runAllTasks"`
	DeadlineHits     T `json:"deadline_hits" doc:"task batches stopped by the ioRatio deadline"`
	TaskPanics       T `json:"task_panics" doc:"tasks that panicked and were recovered"`
	IONanos          T `json:"io_ns" doc:"time spent processing selected keys"`
	TaskNanos        T `json:"task_ns" doc:"time spent running tasks"`
	Channels         T `json:"channels" doc:"channels registered at the end of the run"`
	Accepted         T `json:"accepted" doc:"connections accepted by this loop's server channels"`
	BytesRead        T `json:"bytes_read" doc:"bytes read from channels"`
	BytesWritten     T `json:"bytes_written" doc:"bytes written to channels"`
	Scheduled        T `json:"scheduled" extra:"true" doc:"tasks scheduled on this loop"`
	TimersDue        T `json:"timers_due" extra:"true" doc:"scheduled tasks that fell due and moved to the task queue"`
	Closed           T `json:"closed" extra:"true" doc:"channels closed on this loop over the run"`
	Exceptions       T `json:"exceptions" extra:"true" doc:"exceptionCaught calls: I/O errors, and handler panics (which handler_panics also counts)"`
	Injected         T `json:"injected" extra:"true" doc:"faults injected into this loop"`
	Registered       T `json:"registered" extra:"true" doc:"channels registered on this loop over the run (register0 tasks)"`
	Connected        T `json:"connected" extra:"true" doc:"client channels whose connect completed (OP_CONNECT → finishConnect)"`
	HandlerPanics    T `json:"handler_panics" extra:"true" doc:"handler panics caught and fired as exceptionCaught"`
	QueueDepth       T `json:"queue_depth" extra:"true" doc:"tasks waiting in the task queue at the end of the run"`
	Suspensions      T `json:"suspensions" extra:"true" doc:"times an auto-scaling group suspended this loop (Netty 4.2 trySuspend)"`
	Resumes          T `json:"resumes" extra:"true" doc:"times an auto-scaling group resumed this loop"`
	// The loop's system calls on its sockets and its selector, counted
	// where it makes them. Its epoll_wait calls are selects + select_nows
	// (on a ring loop, selects count its waits), its eventfd writes
	// wakeups_written + self_wakeups (it never reads the eventfd).
	Reads         T `json:"reads" extra:"true" live:"true" doc:"read(2) calls on channel sockets, those that found nothing (EAGAIN) included; live runs only"`
	EmptyReads    T `json:"empty_reads" extra:"true" live:"true" doc:"reads that found nothing (EAGAIN): an edge-triggered loop ends every readiness with one, a level-triggered one stops at a short read; live runs only"`
	Writes        T `json:"writes" extra:"true" live:"true" doc:"write(2) calls on channel sockets; live runs only"`
	EpollCtl      T `json:"epoll_ctl" extra:"true" live:"true" doc:"epoll_ctl calls: registrations, interest changes, removals, a rebuild's re-registrations; live runs only"`
	RingEnters    T `json:"ring_enters" extra:"true" live:"true" doc:"io_uring_enter calls (io_uring loops); live runs only"`
	RingSubmitted T `json:"ring_submitted" extra:"true" doc:"submission queue entries the kernel took from the ring (io_uring loops)"`
	RingCompleted T `json:"ring_completed" extra:"true" doc:"completions reaped from the ring (io_uring loops)"`
}

// Stats is a snapshot of one loop's counters: the one type the engine, the
// UI's model, the headless replay and the run summary share.
type Stats Set[int64]

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
	case trace.KindRingEnter:
		// Every reap of the ring is a ring_enter event, an enter or not
		// (a completion can be posted while the loop runs), so what the
		// kernel took and what the loop reaped fold; whether a system
		// call was made is not in the event, so ring_enters is live.
		s.RingSubmitted += max(e.A, 0)
		s.RingCompleted += max(e.C, 0)
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
