package trace

// Kind says what an Event records. The names are the snake_case names used in
// trace files and in docs/concepts.md.
type Kind uint8

// Event kinds. The order is part of no file format: files carry names.
const (
	KindInvalid Kind = iota
	KindState
	KindSelectBegin
	KindSelectEnd
	KindIOBegin
	KindIOEnd
	KindTasksBegin
	KindDeadlineCheck
	KindTasksEnd
	KindTailTasks
	KindWakeup
	KindRebuildBegin
	KindRebuildEnd
	KindTaskSubmit
	KindTaskRun
	KindTaskPanic
	KindTimerSchedule
	KindTimerDue
	KindTimerCancel
	KindWheelTick
	KindWheelExpire
	KindAccept
	KindRegister
	KindRead
	KindWrite
	KindInterest
	KindClose
	KindInject
	KindDrop
	KindPause
	KindResume
	KindException
	KindTaskReject
	KindConnect
	KindIORatio
	KindUtilisation
	KindLoopSuspend
	KindLoopResume
	KindRingEnter
	KindRingSubmit
	KindRingComplete
	numKinds
)

// NumKinds is one more than the largest valid Kind, for tables indexed by Kind.
const NumKinds = int(numKinds)

// Field names an Event slot. Each kind maps its slots to names in schema.
type fieldSpec struct {
	a, b, c, d, e string // int64 slots
	flag          string // bool slot
	str           string // string slot
	states        bool   // a and b hold State values, written as their names
}

// schema is the one place that says which slot of Event holds which field of
// which kind. The JSONL writer and reader, the Chrome exporter and the TUI all
// read it, so a new kind is added here and nowhere else.
var schema = [numKinds]struct {
	name string
	fieldSpec
}{
	// The move to SHUTTING_DOWN carries the graceful shutdown's quiet
	// period and timeout; other moves, and traces from before the two
	// fields, read 0.
	KindState:         {"state", fieldSpec{a: "from", b: "to", c: "tid", d: "quiet_ns", e: "timeout_ns", states: true}},
	KindSelectBegin:   {"select_begin", fieldSpec{a: "timeout_ns", str: "mode", flag: "iteration"}},
	KindSelectEnd:     {"select_end", fieldSpec{a: "ready", b: "took_ns", c: "select_cnt", flag: "premature"}},
	KindIOBegin:       {"io_begin", fieldSpec{}},
	KindIOEnd:         {"io_end", fieldSpec{a: "keys", b: "took_ns"}},
	KindTasksBegin:    {"tasks_begin", fieldSpec{a: "queued", b: "budget_ns", flag: "iteration"}},
	KindDeadlineCheck: {"deadline_check", fieldSpec{a: "ran", flag: "hit"}},
	KindTasksEnd:      {"tasks_end", fieldSpec{a: "ran", b: "took_ns", c: "queued", flag: "deadline_hit"}},
	KindTailTasks:     {"tail_tasks", fieldSpec{a: "ran"}},
	KindWakeup:        {"wakeup", fieldSpec{flag: "written", str: "from"}},
	KindRebuildBegin:  {"rebuild_begin", fieldSpec{a: "select_cnt"}},
	// A failed rebuild keeps the old instance: new_fd is -1, and error says
	// why. Traces from before the two fields read them as false and "".
	KindRebuildEnd: {"rebuild_end", fieldSpec{a: "select_cnt", b: "migrated", c: "closed", d: "old_fd", e: "new_fd", flag: "failed", str: "error"}},
	// producer is 1 + the trace index of the loop that submitted the task,
	// 0 when the submitter is not another loop (the loop itself, a client
	// goroutine, the script) or the trace predates the field.
	KindTaskSubmit:    {"task_submit", fieldSpec{a: "id", b: "queued", c: "producer", flag: "external", str: "name"}},
	KindTaskRun:       {"task_run", fieldSpec{a: "id", b: "took_ns", str: "name"}},
	KindTaskPanic:     {"task_panic", fieldSpec{a: "id", str: "name"}},
	KindTimerSchedule: {"timer_schedule", fieldSpec{a: "id", b: "deadline_ns", c: "period_ns", str: "name"}},
	KindTimerDue:      {"timer_due", fieldSpec{a: "id", b: "deadline_ns", c: "task", str: "name"}},
	KindTimerCancel:   {"timer_cancel", fieldSpec{a: "id", b: "deadline_ns"}},
	KindWheelTick:     {"wheel_tick", fieldSpec{a: "tick", b: "slot", c: "expired", d: "pending"}},
	KindWheelExpire:   {"wheel_expire", fieldSpec{a: "tick", b: "slot", c: "id", d: "deadline_ns"}},
	// worker is the trace index of the loop the group's chooser dealt the
	// channel to and pick the chooser's counter for it, when chosen says
	// the pick is the group's arithmetic on it (not an auto-scaling
	// group's); traces from before the three fields read 0, 0 and false.
	KindAccept:      {"accept", fieldSpec{a: "channel", b: "fd", c: "port", d: "worker", e: "pick", flag: "chosen"}},
	KindRegister:    {"register", fieldSpec{a: "channel", b: "fd", c: "ops"}},
	KindRead:        {"read", fieldSpec{a: "channel", b: "fd", c: "bytes"}},
	KindWrite:       {"write", fieldSpec{a: "channel", b: "fd", c: "bytes", flag: "partial"}},
	KindInterest:    {"interest", fieldSpec{a: "channel", b: "fd", c: "ops", d: "old_ops"}},
	KindClose:       {"close", fieldSpec{a: "channel", b: "fd", str: "reason"}},
	KindInject:      {"inject", fieldSpec{a: "fd", str: "fault"}},
	KindDrop:        {"drop", fieldSpec{a: "count"}},
	KindPause:       {"pause", fieldSpec{a: "phase", str: "reason"}},
	KindResume:      {"resume", fieldSpec{a: "phase"}},
	KindException:   {"exception", fieldSpec{a: "channel", b: "fd", str: "error"}},
	KindTaskReject:  {"task_reject", fieldSpec{str: "reason"}},
	KindConnect:     {"connect", fieldSpec{a: "channel", b: "fd"}},
	KindIORatio:     {"io_ratio", fieldSpec{a: "io_ratio", b: "old"}},
	KindUtilisation: {"utilisation", fieldSpec{a: "permille", b: "active_ns", c: "window_ns", d: "idle_cycles", e: "channels"}},
	KindLoopSuspend: {"loop_suspend", fieldSpec{a: "idle_cycles", b: "active"}},
	KindLoopResume:  {"loop_resume", fieldSpec{a: "active", str: "reason"}},
	// An io_uring loop's one system call per iteration: SQEs submitted,
	// completions waited for, completions reaped after it, and the SQ and
	// CQ fill the enter found and left.
	KindRingEnter:    {"ring_enter", fieldSpec{a: "submitted", b: "wait", c: "completions", d: "sq_depth", e: "cq_depth"}},
	KindRingSubmit:   {"ring_submit", fieldSpec{a: "fd", b: "bytes", c: "in_flight", str: "op"}},
	KindRingComplete: {"ring_complete", fieldSpec{a: "fd", b: "result", c: "batch", flag: "more", str: "op"}},
}

// String returns the kind's snake_case name, or "invalid".
func (k Kind) String() string {
	if k == KindInvalid || k >= numKinds {
		return "invalid"
	}
	return schema[k].name
}

// ParseKind maps a snake_case name back to its Kind.
func ParseKind(name string) (Kind, bool) {
	for k := KindInvalid + 1; k < numKinds; k++ {
		if schema[k].name == name {
			return k, true
		}
	}
	return KindInvalid, false
}

// Kinds lists every valid kind in order.
func Kinds() []Kind {
	ks := make([]Kind, 0, numKinds-1)
	for k := KindInvalid + 1; k < numKinds; k++ {
		ks = append(ks, k)
	}
	return ks
}
