package model

import (
	"strconv"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// Counters are one loop's running totals as seen in its events: the run
// summary's counters (docs/scenarios.md, "Summary keys"), folded by the same code as a headless
// replay, plus what only the UI tracks.
type Counters struct {
	counters.Stats
	MaxQueueDepth int64
}

// loopState is the fold of one loop's events.
type loopState struct {
	info    trace.LoopInfo
	named   bool     // the name came from a loop table, not a placeholder
	isLoop  bool     // it emitted event-loop events (select, io, tasks)
	isWheel bool     // it emitted wheel events
	stand   standing // where it stands in its iteration and at its gate
	mode    string   // select or select_now, of the latest select
	timeout int64    // timeout_ns of the latest blocking select
	budget  int64    // budget_ns of the latest runAllTasks (-1: unlimited)
	ioTime  int64    // took_ns of the latest io_end (NioEventLoop.run's ioTime)
	ioKeys  int64    // keys of the latest io_end
	ring    Ring     // an io_uring loop's figures, from its ring events

	// fold holds the counters, the thread id and the state, folded as the
	// headless replay folds them; the rest is what only the UI tracks.
	fold counters.Loop

	maxDepth  int64 // deepest the task queue got
	queue     taskQueue
	producers producerTally
	keys      keyLog
	shutdown  Shutdown
	timers    timerSet
	hist      history
	last      int64 // time of its latest event
	fault     string
}

func (l *loopState) clone() *loopState {
	c := *l
	c.queue = l.queue.clone()
	c.timers = l.timers.clone()
	return &c
}

// noteDepth records the task queue's depth as the counters fold holds it
// now, for the maximum and the sparkline. The counters fold takes the
// engine's own count from task_submit, tasks_begin and tasks_end; the
// mirror refines it in between (refineDepth).
func (l *loopState) noteDepth(t int64) {
	d := l.fold.QueueDepth
	l.maxDepth = max(l.maxDepth, d)
	l.hist.note(t, d)
}

// refineDepth moves the depth by delta for a task that left or joined the
// queue between two of the engine's counts.
func (l *loopState) refineDepth(t, delta int64) {
	l.fold.QueueDepth = max(l.fold.QueueDepth+delta, 0)
	l.noteDepth(t)
}

// wheelState is the fold of wheel_tick and wheel_expire events.
type wheelState struct {
	present bool
	loop    int
	state   trace.State
	fold    counters.Wheel // ticks, expiries: the headless replay's fold
	maxSlot int64
	recent  [8]WheelExpire
	nrecent int
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

// NoteDropped records a drop count known outside the event stream, such as
// the collector's or a trace file's end line. The larger of it and the sum
// of drop events is shown.
func (s *State) NoteDropped(n uint64) { s.extDrop = max(s.extDrop, n) }

func (s *State) loop(i uint16) *loopState {
	for int(i) >= len(s.loops) {
		s.loops = append(s.loops, nil)
	}
	l := s.loops[i]
	if l == nil {
		l = &loopState{info: trace.LoopInfo{Name: placeholderName(int(i))}, fold: counters.NewLoop()}
		s.loops[i] = l
	}
	return l
}

func placeholderName(i int) string { return "loop-" + strconv.Itoa(i) }

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

// apply folds one event, and returns what it did to where its loop stands
// (moved is false when it cannot have), for the live timeline to keep.
// Every field is taken as untrusted: a replayed file may hold any values,
// and nothing here may panic or grow without bound.
func (s *State) apply(e *trace.Event) (m move, moved bool) {
	s.events++
	s.time = max(s.time, e.Time)
	l := s.loop(e.Loop)
	l.last = max(l.last, e.Time)
	l.fold.Fold(e, l.info.Name)
	m, moved = l.stand.fold(e, l.info.Name)
	l.keys.apply(e)
	l.shutdown.apply(e)
	switch e.Kind {
	case trace.KindState:
		if l.isWheel {
			s.wheel.state = l.fold.State
		}
	case trace.KindSelectBegin, trace.KindSelectEnd, trace.KindIOBegin, trace.KindIOEnd,
		trace.KindTasksBegin, trace.KindTasksEnd, trace.KindRebuildEnd:
		l.applyPhase(e)
	case trace.KindTaskSubmit, trace.KindTaskRun, trace.KindTaskPanic,
		trace.KindTimerSchedule, trace.KindTimerDue, trace.KindTimerCancel:
		l.applyMirror(e)
	case trace.KindWheelTick, trace.KindWheelExpire:
		l.isWheel = true
		s.wheel.apply(int(e.Loop), e)
	case trace.KindInject:
		l.fault = e.Str
	case trace.KindRingEnter:
		l.ring.Enters++
		l.ring.SQ, l.ring.CQ = e.D, e.E
	case trace.KindRingSubmit:
		l.ring.InFlight = e.C
	case trace.KindDrop:
		if e.A > 0 {
			s.dropped += uint64(e.A)
		}
	}
	return m, moved
}

// standing returns where trace loop i stands, for the timeline; the zero
// standing for a loop not seen.
func (s *State) standing(i int) standing {
	if i < 0 || i >= len(s.loops) || s.loops[i] == nil {
		return standing{}
	}
	return s.loops[i].stand
}

// applyPhase keeps what the iteration's events say beyond its phase,
// which the span fold (l.stand) follows. The counters fold has already taken
// the current selectCnt and the engine's queue depth from these events.
func (l *loopState) applyPhase(e *trace.Event) {
	l.isLoop = true
	switch e.Kind {
	case trace.KindSelectBegin:
		l.mode = e.Str
		if e.Str != "select_now" {
			l.timeout = e.A
		}
	case trace.KindIOEnd:
		l.ioTime, l.ioKeys = e.B, e.A
	case trace.KindTasksBegin:
		l.budget = e.B
		// queued counts the task already polled: it is the queue's depth
		// as runAllTasks starts, from the engine itself.
		l.queue.resync(l.fold.QueueDepth)
		l.noteDepth(e.Time)
	case trace.KindTasksEnd:
		// And what the batch left behind. Without this, a depth counted
		// from task events could stay too high once the loop idles: the
		// engine's length counts a shutdown's WAKEUP_TASK marker, which
		// never runs as a task.
		l.queue.resync(l.fold.QueueDepth)
		l.noteDepth(e.Time)
	}
}

// applyMirror keeps the mirrors of the task queue and the scheduled heap.
func (l *loopState) applyMirror(e *trace.Event) {
	switch e.Kind {
	case trace.KindTaskSubmit:
		l.queue.push(TaskRef{ID: e.A, Name: e.Str, External: e.Flag, Producer: e.C})
		l.producers.add(e.Flag, e.C)
		l.noteDepth(e.Time)
	case trace.KindTaskRun:
		if l.queue.run(e.A, e.Str, false) {
			l.refineDepth(e.Time, -1)
		}
	case trace.KindTaskPanic:
		// A panicking task emits task_panic instead of task_run.
		if e.A != 0 && l.queue.run(e.A, "", true) {
			l.refineDepth(e.Time, -1)
		}
	case trace.KindTimerSchedule:
		l.timers.add(TimerRef{ID: e.A, Name: e.Str, Deadline: e.B, Period: e.C})
	case trace.KindTimerDue:
		l.timers.remove(e.A)
		// In the queue the timer runs under a task id of its own (task),
		// which its task_run reports.
		l.queue.push(TaskRef{ID: e.C, Name: e.Str, Timer: true})
		l.refineDepth(e.Time, +1)
	case trace.KindTimerCancel:
		l.timers.remove(e.A)
	}
}

// apply folds a wheel_tick or wheel_expire event of trace loop loop.
func (w *wheelState) apply(loop int, e *trace.Event) {
	w.present, w.loop = true, loop
	w.fold.Fold(e)
	switch {
	case e.Kind == trace.KindWheelExpire:
		w.recent[w.nrecent%len(w.recent)] = WheelExpire{Tick: e.A, Slot: e.B, ID: e.C, Deadline: e.D}
		w.nrecent++
		if w.nrecent >= 2*len(w.recent) {
			w.nrecent -= len(w.recent)
		}
	case e.B >= 0 && e.B < 1<<20:
		// The wheel's length is not in the trace; the largest slot seen
		// bounds it from below and is exact once the cursor has gone round.
		w.maxSlot = max(w.maxSlot, e.B)
	}
}
