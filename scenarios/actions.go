package scenarios

import "time"

// Action is one timeline entry. The concrete types are Inject, Submit,
// Schedule, WheelTimeouts, SetIORatio, Offload, Shutdown and Pause; the
// simulation switches on them.
type Action interface {
	// Time is when the action happens, from the start of the run.
	Time() time.Duration
	isAction()
}

// Step carries what every action has: its time.
type Step struct {
	At time.Duration
}

// Time implements Action.
func (s Step) Time() time.Duration { return s.At }

func (Step) isAction() {}

// Fault names a fault that can be injected into a loop (docs/scenarios.md,
// "Faults").
type Fault string

// Faults.
const (
	// FaultSpuriousWakeups adds an always-readable fd to the loop's current
	// epoll instance only, so select keeps returning with no selected key
	// until the premature-return count reaches the rebuild threshold and the
	// rebuilt selector leaves the fd behind.
	FaultSpuriousWakeups Fault = "spurious-wakeups"
	// FaultJDKEpollBug opens a connection on the loop, sets its interest to
	// 0 and has the peer reset it: under nio semantics HUP/ERR is masked
	// away and select spins; under epoll the channel is closed.
	FaultJDKEpollBug Fault = "jdk-epoll-bug"
	// FaultSlowTask submits one task that keeps the loop busy for Duration.
	FaultSlowTask Fault = "slow-task"
	// FaultBlockingHandler makes the handler of every channel on the loop
	// block for Duration on each read, until an offload: on moves handler
	// work to the business pool.
	FaultBlockingHandler Fault = "blocking-handler"
	// FaultPanicHandler makes the next Count reads on the loop panic inside
	// the handler; the pipeline reports exceptionCaught and goes on.
	FaultPanicHandler Fault = "panic-handler"
	// FaultPanicTask submits Count tasks that panic; the loop recovers,
	// reports task_panic and goes on.
	FaultPanicTask Fault = "panic-task"
)

// faults lists every fault in documentation order.
var faults = []string{
	string(FaultSpuriousWakeups), string(FaultJDKEpollBug), string(FaultSlowTask),
	string(FaultBlockingHandler), string(FaultPanicHandler), string(FaultPanicTask),
}

// Faults returns the names of the injectable faults.
func Faults() []Fault {
	out := make([]Fault, len(faults))
	for i, f := range faults {
		out[i] = Fault(f)
	}
	return out
}

// needsChannels reports whether a fault acts on the loop's connected
// channels, which boss loops do not have.
func (f Fault) needsChannels() bool {
	return f == FaultJDKEpollBug || f == FaultBlockingHandler || f == FaultPanicHandler
}

// Inject injects a fault into every loop matching Loop.
type Inject struct {
	Step
	Fault    Fault
	Loop     string        // loop name or pattern
	Duration time.Duration // slow-task: run time; blocking-handler: block per read
	Count    int           // panic-handler, panic-task: how many panics
}

// Origin says which goroutine submits tasks.
type Origin string

// Task origins.
const (
	// FromExternal submits from a goroutine outside the loop: the task
	// travels through the MPSC queue and may wake the loop.
	FromExternal Origin = "external"
	// FromLoop submits from a task already running on the loop: no wakeup
	// is ever needed (inEventLoop is true).
	FromLoop Origin = "loop"
)

// Submit submits Count tasks to every loop matching Loop.
type Submit struct {
	Step
	Loop  string
	Count int
	Cost  time.Duration // CPU time each task burns
	From  Origin
	Tail  bool // tail tasks (run after each task batch) instead of tasks
}

// ScheduleMode is how a scheduled task repeats.
type ScheduleMode string

// Schedule modes.
const (
	ScheduleOnce       ScheduleMode = "once"
	ScheduleFixedRate  ScheduleMode = "fixed-rate"  // deadline += period
	ScheduleFixedDelay ScheduleMode = "fixed-delay" // deadline = end of the last run + period
)

// Schedule schedules Count tasks on the scheduled-task heap of every loop
// matching Loop. All Count tasks share one deadline, so they leave the heap
// in submission order (the heap orders by deadline, then sequence).
type Schedule struct {
	Step
	Loop   string
	Count  int
	Delay  time.Duration // delay before the first run
	Period time.Duration // 0 for one-shot tasks
	Mode   ScheduleMode
	Cost   time.Duration
	From   Origin
}

// WheelTimeouts adds Count timeouts to the HashedWheelTimer, all due after
// Delay, and cancels the first Cancel of them straight away.
type WheelTimeouts struct {
	Step
	Count  int
	Delay  time.Duration
	Cancel int
}

// SetIORatio changes ioRatio at run time on every loop matching Loop, as
// NioEventLoop.setIoRatio does.
type SetIORatio struct {
	Step
	Loop    string
	IORatio int
}

// Offload switches the business pool on or off: while on, handlers hand
// their work to a pool of Pool goroutines instead of running it on the loop.
type Offload struct {
	Step
	On   bool
	Pool int
}

// Shutdown starts a graceful shutdown of every group before the run ends.
type Shutdown struct {
	Step
	Quiet   time.Duration
	Timeout time.Duration
}

// Pause stops the loops matching Loop at their step gate for For, then lets
// them run again; their clients' bytes wait in the kernel meanwhile.
type Pause struct {
	Step
	Loop string
	For  time.Duration
}
