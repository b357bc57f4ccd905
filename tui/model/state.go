package model

import (
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// Phase is where a loop stands in its iteration, for the phase ring.
type Phase uint8

// Phases of one NioEventLoop iteration as the UI lights them (C6).
const (
	PhaseNone   Phase = iota // not started, or terminated
	PhaseSelect              // waiting in (or about to enter) select
	PhaseIO                  // processSelectedKeys
	PhaseTasks               // runAllTasks, tail tasks included
)

var phaseNames = [...]string{"-", "select", "io", "tasks"}

func (p Phase) String() string {
	if int(p) >= len(phaseNames) {
		return "?"
	}
	return phaseNames[p]
}

// FromGate maps a step-gate phase (where a paused loop waits) to the phase
// it is about to run: the gate at PhaseEnd is followed by the next select.
func FromGate(p trace.Phase) Phase {
	switch p {
	case trace.PhaseIO:
		return PhaseIO
	case trace.PhaseTasks:
		return PhaseTasks
	default:
		return PhaseSelect
	}
}

// Counters are one loop's running totals as seen in its events. Names
// follow the run summary (DESIGN.md §6).
type Counters struct {
	Iterations       int64 // io_begin events: one per loop iteration
	Selects          int64 // blocking selects begun
	SelectNows       int64 // non-blocking selects begun
	Premature        int64 // select returns counted as premature (C9)
	SelectCnt        int64 // the current selectCnt
	MaxSelectCnt     int64
	Rebuilds         int64 // selector rebuilds (C10)
	Migrated         int64 // channels moved to new selectors
	WakeupsWritten   int64 // eventfd writes by other threads (C11)
	WakeupsCoalesced int64 // wakeups that found the flag already set
	SelfWakeups      int64 // the loop's own wakeup after select
	TasksSubmitted   int64
	TasksRun         int64
	TasksRejected    int64
	TailTasksRun     int64 // C25
	TaskPanics       int64
	Exceptions       int64
	DeadlineChecks   int64 // 64-task clock reads (C15)
	DeadlineHits     int64
	QueueDepth       int64 // tasks waiting in the MPSC queue (C13)
	MaxQueueDepth    int64
	TimersScheduled  int64
	TimersDue        int64
	TimersCancelled  int64
	Channels         int64 // registered minus closed
	Accepted         int64
	Closed           int64
	BytesRead        int64
	BytesWritten     int64
	IONanos          int64 // time in processSelectedKeys
	TaskNanos        int64 // time in runAllTasks
	Injected         int64 // faults injected into the loop
}

// loopState is the fold of one loop's events.
type loopState struct {
	info    trace.LoopInfo
	named   bool // the name came from a loop table, not a placeholder
	isLoop  bool // it emitted event-loop events (select, io, tasks)
	isWheel bool // it emitted wheel events
	tid     int64
	state   trace.State
	phase   Phase
	mode    string // select or select_now, of the latest select
	timeout int64  // timeout_ns of the latest blocking select
	budget  int64  // budget_ns of the latest runAllTasks (-1: unlimited)

	paused      bool
	pausePhase  trace.Phase
	pauseReason string

	ctr    Counters
	queue  taskQueue
	timers timerSet
	hist   history
	last   int64 // time of its latest event
	fault  string
}

func (l *loopState) clone() *loopState {
	c := *l
	c.queue = l.queue.clone()
	c.timers = l.timers.clone()
	return &c
}

func (l *loopState) setDepth(t, d int64) {
	d = max(d, 0)
	l.ctr.QueueDepth = d
	l.ctr.MaxQueueDepth = max(l.ctr.MaxQueueDepth, d)
	l.hist.note(t, d)
}

// wheelState is the fold of wheel_tick and wheel_expire events.
type wheelState struct {
	present  bool
	loop     int
	state    trace.State
	tick     int64
	slot     int64
	maxSlot  int64
	pending  int64
	expired  int64 // timeouts expired in all
	lastExp  int64 // expired at the latest tick
	recent   [8]WheelExpire
	nrecent  int
	lastTick int64 // event time of the latest tick
}

// State is the fold of a trace up to some event. It is not safe for
// concurrent use: Model guards one with a mutex, Replay owns its own.
type State struct {
	loops   []*loopState // by trace loop index; nil until named or seen
	wheel   wheelState
	events  uint64
	time    int64
	dropped uint64 // from drop events
	extDrop uint64 // reported from elsewhere (collector, trace end line)
}

// NewState returns an empty fold that names loops by the given table.
func NewState(loops []trace.LoopInfo) *State {
	s := &State{}
	s.SetLoops(loops)
	return s
}

// SetLoops names loops by trace index. Loops already seen keep their state.
func (s *State) SetLoops(loops []trace.LoopInfo) {
	for i, info := range loops {
		if i > int(^uint16(0)) {
			break
		}
		l := s.loop(uint16(i))
		l.info, l.named = info, true
		if info.Group == "wheel" || info.Name == "wheel" {
			l.isWheel = true
		}
	}
}

// Events returns how many events have been folded.
func (s *State) Events() uint64 { return s.events }

// Time returns the time of the latest event folded.
func (s *State) Time() int64 { return s.time }

// NoteDropped records a drop count known outside the event stream, such as
// the collector's or a trace file's end line. The larger of it and the sum
// of drop events is shown.
func (s *State) NoteDropped(n uint64) { s.extDrop = max(s.extDrop, n) }

// Dropped returns the number of events the run lost.
func (s *State) Dropped() uint64 { return max(s.dropped, s.extDrop) }

func (s *State) loop(i uint16) *loopState {
	for int(i) >= len(s.loops) {
		s.loops = append(s.loops, nil)
	}
	l := s.loops[i]
	if l == nil {
		l = &loopState{info: trace.LoopInfo{Name: placeholderName(int(i))}, state: trace.StateNotStarted}
		s.loops[i] = l
	}
	return l
}

func placeholderName(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return "loop-" + digits[i:i+1]
	}
	b := []byte("loop-")
	var d [5]byte
	n := len(d)
	for i > 0 {
		n--
		d[n] = digits[i%10]
		i /= 10
	}
	return string(append(b, d[n:]...))
}

// Clone returns an independent copy, for replay checkpoints.
func (s *State) Clone() *State {
	c := *s
	c.loops = make([]*loopState, len(s.loops))
	for i, l := range s.loops {
		if l != nil {
			c.loops[i] = l.clone()
		}
	}
	return &c
}

// Apply folds a batch of events in order.
func (s *State) Apply(batch []trace.Event) {
	for i := range batch {
		s.apply(&batch[i])
	}
}

// apply folds one event. Every field is taken as untrusted: a replayed file
// may hold any values, and nothing here may panic or grow without bound.
func (s *State) apply(e *trace.Event) {
	s.events++
	s.time = max(s.time, e.Time)
	l := s.loop(e.Loop)
	l.last = max(l.last, e.Time)
	c := &l.ctr
	switch e.Kind {
	case trace.KindState:
		l.state = trace.State(e.B)
		if e.C != 0 {
			l.tid = e.C
		}
		if l.state >= trace.StateTerminated {
			l.phase, l.paused = PhaseNone, false
		}
		if l.isWheel {
			s.wheel.state = l.state
		}
	case trace.KindSelectBegin:
		l.isLoop, l.phase, l.mode = true, PhaseSelect, e.Str
		if e.Str == "select_now" {
			c.SelectNows++
		} else {
			c.Selects++
			l.timeout = e.A
		}
	case trace.KindSelectEnd:
		l.isLoop = true
		// selectNow reports the counter of the last blocking select, which
		// after a rebuild is stale: Netty has already reset it to 1.
		if l.mode != "select_now" {
			c.SelectCnt = e.C
			c.MaxSelectCnt = max(c.MaxSelectCnt, e.C)
		}
		if e.Flag {
			c.Premature++
		}
	case trace.KindIOBegin:
		l.isLoop, l.phase = true, PhaseIO
		c.Iterations++
	case trace.KindIOEnd:
		l.isLoop, l.phase = true, PhaseTasks
		c.IONanos += max(e.B, 0)
	case trace.KindTasksBegin:
		l.isLoop, l.phase, l.budget = true, PhaseTasks, e.B
		// queued counts the task already polled: it is the queue's depth
		// as runAllTasks starts, from the engine itself.
		l.queue.resync(max(e.A, 0))
		l.setDepth(e.Time, e.A)
	case trace.KindDeadlineCheck:
		c.DeadlineChecks++
		if e.Flag {
			c.DeadlineHits++
		}
	case trace.KindTasksEnd:
		c.TaskNanos += max(e.B, 0)
	case trace.KindTailTasks:
		c.TailTasksRun += max(e.A, 0)
	case trace.KindWakeup:
		switch {
		case e.Str == l.info.Name:
			c.SelfWakeups++
		case e.Flag:
			c.WakeupsWritten++
		default:
			c.WakeupsCoalesced++
		}
	case trace.KindRebuildBegin:
		c.MaxSelectCnt = max(c.MaxSelectCnt, e.A)
	case trace.KindRebuildEnd:
		c.Rebuilds++
		c.Migrated += max(e.B, 0)
		c.SelectCnt = 1
	case trace.KindTaskSubmit:
		c.TasksSubmitted++
		l.queue.push(TaskRef{ID: e.A, Name: e.Str})
		l.setDepth(e.Time, e.B)
	case trace.KindTaskRun:
		c.TasksRun++
		if l.queue.run(e.A, e.Str, false) {
			l.setDepth(e.Time, c.QueueDepth-1)
		}
	case trace.KindTaskPanic:
		c.TaskPanics++
		// A panicking task emits task_panic instead of task_run.
		if e.A != 0 && l.queue.run(e.A, "", true) {
			l.setDepth(e.Time, c.QueueDepth-1)
		}
	case trace.KindTaskReject:
		c.TasksRejected++
	case trace.KindTimerSchedule:
		c.TimersScheduled++
		l.timers.add(TimerRef{ID: e.A, Name: e.Str, Deadline: e.B, Period: e.C})
	case trace.KindTimerDue:
		c.TimersDue++
		l.timers.remove(e.A)
		l.queue.push(TaskRef{ID: e.A, Name: e.Str, Timer: true})
		l.setDepth(e.Time, c.QueueDepth+1)
	case trace.KindTimerCancel:
		c.TimersCancelled++
		l.timers.remove(e.A)
	case trace.KindWheelTick:
		l.isWheel = true
		s.wheelTick(int(e.Loop), e)
	case trace.KindWheelExpire:
		l.isWheel = true
		s.wheelExpire(int(e.Loop), e)
	case trace.KindAccept:
		c.Accepted++
	case trace.KindRegister:
		c.Channels++
	case trace.KindRead:
		c.BytesRead += max(e.C, 0)
	case trace.KindWrite:
		c.BytesWritten += max(e.C, 0)
	case trace.KindClose:
		c.Closed++
		c.Channels = max(c.Channels-1, 0)
	case trace.KindException:
		c.Exceptions++
	case trace.KindInject:
		c.Injected++
		l.fault = e.Str
	case trace.KindDrop:
		if e.A > 0 {
			s.dropped += uint64(e.A)
		}
	case trace.KindPause:
		l.paused, l.pausePhase, l.pauseReason = true, trace.Phase(e.A), e.Str
	case trace.KindResume:
		l.paused, l.pauseReason = false, ""
	}
}

func (s *State) wheelTick(loop int, e *trace.Event) {
	w := &s.wheel
	w.present, w.loop = true, loop
	w.tick, w.slot, w.pending = e.A, e.B, e.D
	w.lastExp = max(e.C, 0)
	w.expired += w.lastExp
	w.lastTick = e.Time
	// The wheel's length is not in the trace; the largest slot seen bounds
	// it from below and is exact once the cursor has gone round.
	if e.B >= 0 && e.B < 1<<20 {
		w.maxSlot = max(w.maxSlot, e.B)
	}
}

func (s *State) wheelExpire(loop int, e *trace.Event) {
	w := &s.wheel
	w.present, w.loop = true, loop
	w.recent[w.nrecent%len(w.recent)] = WheelExpire{Tick: e.A, Slot: e.B, ID: e.C, Deadline: e.D}
	w.nrecent++
	if w.nrecent >= 2*len(w.recent) {
		w.nrecent -= len(w.recent)
	}
}
