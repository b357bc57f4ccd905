package trace

// State is an event loop's lifecycle state, numbered as Netty 4.2 numbers
// SingleThreadEventExecutor's ST_* constants (4.1 has no ST_SUSPENDING and
// ST_SUSPENDED, and numbers the others 1, 2, 3, 4, 5). The order matters:
// from SHUTTING_DOWN on, a loop only moves forward.
type State int32

// The states of a loop. SUSPENDING and SUSPENDED exist only in an
// auto-scaling group of Netty 4.2 (docs/netty-versions.md): a suspended
// loop is skipped by the group's next() until the group resumes it.
const (
	StateNotStarted   State = 1 // ST_NOT_STARTED
	StateSuspending   State = 2 // ST_SUSPENDING: asked to suspend, not yet idle
	StateSuspended    State = 3 // ST_SUSPENDED
	StateStarted      State = 4 // ST_STARTED
	StateShuttingDown State = 5 // ST_SHUTTING_DOWN
	StateShutdown     State = 6 // ST_SHUTDOWN
	StateTerminated   State = 7 // ST_TERMINATED
)

var stateNames = [...]string{"", "NOT_STARTED", "SUSPENDING", "SUSPENDED", "STARTED", "SHUTTING_DOWN", "SHUTDOWN", "TERMINATED"}

// Suspended reports whether the state is SUSPENDING or SUSPENDED, as
// SingleThreadEventExecutor.isSuspended does.
func (s State) Suspended() bool { return s == StateSuspending || s == StateSuspended }

// String returns Netty's name for the state, for example "NOT_STARTED".
func (s State) String() string {
	if s < StateNotStarted || s > StateTerminated {
		return "UNKNOWN"
	}
	return stateNames[s]
}

// ParseState maps a name such as "STARTED" back to its State.
func ParseState(name string) (State, bool) {
	for s := StateNotStarted; s <= StateTerminated; s++ {
		if stateNames[s] == name {
			return s, true
		}
	}
	return 0, false
}

// Phase names a step of one loop iteration; the step gate stops at their
// boundaries, the span fold (package phases) cuts a loop's time into them
// and the TUI lights them in its phase ring. It is the one phase type.
type Phase int32

// Phases of one iteration, in order (NioEventLoop.run; docs/concepts.md C6).
// The numbers are the trace's (a pause event carries the gate's phase).
const (
	PhaseSelect Phase = iota // before select: the loop is about to wait for I/O
	PhaseIO                  // before processSelectedKeys
	PhaseTasks               // before runAllTasks
	PhaseEnd                 // end of the iteration

	// PhaseNone is no phase: a loop not started, between two spans, or
	// terminated.
	PhaseNone Phase = -1
)

var phaseNames = [...]string{"select", "io", "tasks", "end"}

// String returns the phase's short name.
func (p Phase) String() string {
	if p == PhaseNone {
		return "-"
	}
	if p < PhaseSelect || p > PhaseEnd {
		return "?"
	}
	return phaseNames[p]
}
