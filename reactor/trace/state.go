package trace

// State is an event loop's lifecycle state, numbered as Netty numbers
// SingleThreadEventExecutor's ST_* constants.
type State int32

// The five states of a loop. A loop only moves forward through them.
const (
	StateNotStarted   State = 1
	StateStarted      State = 2
	StateShuttingDown State = 3
	StateShutdown     State = 4
	StateTerminated   State = 5
)

var stateNames = [...]string{"", "NOT_STARTED", "STARTED", "SHUTTING_DOWN", "SHUTDOWN", "TERMINATED"}

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
// boundaries and the TUI lights them in its phase ring.
type Phase int32

// Phases of one iteration, in order (NioEventLoop.run; docs/concepts.md C6).
const (
	PhaseSelect Phase = iota // before select: the loop is about to wait for I/O
	PhaseIO                  // before processSelectedKeys
	PhaseTasks               // before runAllTasks
	PhaseEnd                 // end of the iteration
)

var phaseNames = [...]string{"select", "io", "tasks", "end"}

// String returns the phase's short name.
func (p Phase) String() string {
	if p < PhaseSelect || p > PhaseEnd {
		return "?"
	}
	return phaseNames[p]
}
