package counters

// Counter names one field of Stats: its key in the run summary's JSON, which
// is also the key an expectation names after a loop (worker-0.rebuilds), and
// what it means, for the expectation help and the docs.
type Counter struct {
	Name  string
	Doc   string
	Extra bool // beyond the summary's stable set
	field func(*Stats) *int64
}

// Get returns the counter's value in s.
func (c Counter) Get(s *Stats) int64 { return *c.field(s) }

// table lists every counter of Stats once, in the order the expectation help
// lists them.
var table = []Counter{
	{Name: "iterations", Doc: "loop iterations (select → I/O → tasks)", field: func(s *Stats) *int64 { return &s.Iterations }},
	{Name: "selects", Doc: "blocking selects (epoll_wait with a timeout)", field: func(s *Stats) *int64 { return &s.Selects }},
	{Name: "select_nows", Doc: "non-blocking selects (selectNow)", field: func(s *Stats) *int64 { return &s.SelectNows }},
	{Name: "premature", Doc: "selects that returned early with nothing selected", field: func(s *Stats) *int64 { return &s.Premature }},
	{Name: "max_select_cnt", Doc: "highest selectCnt reached", field: func(s *Stats) *int64 { return &s.MaxSelectCnt }},
	{Name: "rebuilds", Doc: "selector rebuilds", field: func(s *Stats) *int64 { return &s.Rebuilds }},
	{Name: "migrated", Doc: "channels re-registered by rebuilds", field: func(s *Stats) *int64 { return &s.Migrated }},
	{Name: "wakeups_written", Doc: "eventfd writes that woke the loop", field: func(s *Stats) *int64 { return &s.WakeupsWritten }},
	{Name: "wakeups_coalesced", Doc: "wakeups skipped because the loop was already awake", field: func(s *Stats) *int64 { return &s.WakeupsCoalesced }},
	{Name: "tasks_submitted", Doc: "tasks offered to the task queue", field: func(s *Stats) *int64 { return &s.TasksSubmitted }},
	{Name: "tasks_rejected", Doc: "tasks refused (queue full or loop shut down)", field: func(s *Stats) *int64 { return &s.TasksRejected }},
	{Name: "tasks_run", Doc: "tasks run, internal ones (register, bind) included", field: func(s *Stats) *int64 { return &s.TasksRun }},
	{Name: "tail_tasks_run", Doc: "tail tasks run after task batches", field: func(s *Stats) *int64 { return &s.TailTasksRun }},
	{Name: "deadline_checks", Doc: "clock reads every 64 tasks in runAllTasks", field: func(s *Stats) *int64 { return &s.DeadlineChecks }},
	{Name: "deadline_hits", Doc: "task batches stopped by the ioRatio deadline", field: func(s *Stats) *int64 { return &s.DeadlineHits }},
	{Name: "task_panics", Doc: "tasks that panicked and were recovered", field: func(s *Stats) *int64 { return &s.TaskPanics }},
	{Name: "io_ns", Doc: "time spent processing selected keys", field: func(s *Stats) *int64 { return &s.IONanos }},
	{Name: "task_ns", Doc: "time spent running tasks", field: func(s *Stats) *int64 { return &s.TaskNanos }},
	{Name: "channels", Doc: "channels registered at the end of the run", field: func(s *Stats) *int64 { return &s.Channels }},
	{Name: "accepted", Doc: "connections accepted by this loop's server channels", field: func(s *Stats) *int64 { return &s.Accepted }},
	{Name: "bytes_read", Doc: "bytes read from channels", field: func(s *Stats) *int64 { return &s.BytesRead }},
	{Name: "bytes_written", Doc: "bytes written to channels", field: func(s *Stats) *int64 { return &s.BytesWritten }},
	{Name: "registered", Extra: true, Doc: "channels registered on this loop over the run (register0 tasks)", field: func(s *Stats) *int64 { return &s.Registered }},
	{Name: "closed", Extra: true, Doc: "channels closed on this loop over the run", field: func(s *Stats) *int64 { return &s.Closed }},
	{Name: "connected", Extra: true, Doc: "client channels whose connect completed (OP_CONNECT → finishConnect)", field: func(s *Stats) *int64 { return &s.Connected }},
	{Name: "handler_panics", Extra: true, Doc: "handler panics caught and fired as exceptionCaught", field: func(s *Stats) *int64 { return &s.HandlerPanics }},
	{Name: "injected", Extra: true, Doc: "faults injected into this loop", field: func(s *Stats) *int64 { return &s.Injected }},
	{Name: "select_cnt", Extra: true, Doc: "selectCnt at the end of the run", field: func(s *Stats) *int64 { return &s.SelectCnt }},
	{Name: "self_wakeups", Extra: true, Doc: "eventfd writes the loop made to itself after a select, so a wakeup racing with clearing wakenUp is not lost", field: func(s *Stats) *int64 { return &s.SelfWakeups }},
	{Name: "scheduled", Extra: true, Doc: "tasks scheduled on this loop", field: func(s *Stats) *int64 { return &s.Scheduled }},
	{Name: "timers_due", Extra: true, Doc: "scheduled tasks that fell due and moved to the task queue", field: func(s *Stats) *int64 { return &s.TimersDue }},
	{Name: "exceptions", Extra: true, Doc: "exceptionCaught calls: I/O errors, and handler panics (which handler_panics also counts)", field: func(s *Stats) *int64 { return &s.Exceptions }},
	{Name: "suspensions", Extra: true, Doc: "times an auto-scaling group suspended this loop (Netty 4.2 trySuspend)", field: func(s *Stats) *int64 { return &s.Suspensions }},
	{Name: "resumes", Extra: true, Doc: "times an auto-scaling group resumed this loop", field: func(s *Stats) *int64 { return &s.Resumes }},
	{Name: "queue_depth", Extra: true, Doc: "tasks waiting in the task queue at the end of the run", field: func(s *Stats) *int64 { return &s.QueueDepth }},
}

// Table returns every counter, in the order the expectation help lists
// them.
func Table() []Counter { return append([]Counter(nil), table...) }

// Lookup returns the counter with a summary key.
func Lookup(name string) (Counter, bool) {
	for _, c := range table {
		if c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}
