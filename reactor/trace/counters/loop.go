package counters

import "github.com/reactorviz/reactorviz/reactor/trace"

// Loop is what a trace says about one loop that the engine also keeps: its
// counters, its thread id, its lifecycle state and its ioRatio. The UI's
// model and the headless replay both fold a loop's events with Loop.Fold.
type Loop struct {
	Stats
	TID     int64
	State   trace.State
	IORatio int64 // as its latest io_ratio event set it (1..100); 0 before one
	// marked is set once a select_begin or tasks_begin has carried the
	// iteration mark.
	// Traces of engine version 2 and before have none: there every
	// iteration had an I/O phase, so io_begin counts them.
	marked bool
}

// NewLoop returns the fold of a loop that has emitted nothing yet.
func NewLoop() Loop { return Loop{State: trace.StateNotStarted} }

// Fold adds one of the loop's events; name is the loop's name, which tells
// its own wakeups from other threads'.
func (l *Loop) Fold(e *trace.Event, name string) {
	l.Stats.Fold(e, name)
	switch e.Kind {
	case trace.KindState:
		l.State = trace.State(e.B)
		if e.C != 0 {
			l.TID = e.C
		}
	case trace.KindSelectBegin:
		l.markIteration(e)
	case trace.KindIOBegin:
		if !l.marked {
			l.Iterations++
		}
	case trace.KindSelectEnd:
		// Every select_end, a selectNow's too, carries the count the
		// engine holds from then on (since engine version 3).
		l.SelectCnt = e.C
	case trace.KindRebuildEnd:
		l.SelectCnt = 1
	case trace.KindIORatio:
		// A hostile trace's out-of-range value is not an ioRatio.
		if e.A >= 1 && e.A <= 100 {
			l.IORatio = e.A
		}
	default:
		if e.Kind == trace.KindTasksBegin {
			l.markIteration(e)
		}
		l.foldDepth(e)
	}
}

// markIteration counts the iteration whose first phase event e is, when
// it carries the mark.
func (l *Loop) markIteration(e *trace.Event) {
	if e.Flag {
		l.Iterations++
		l.marked = true
	}
}

// foldDepth keeps the task queue's depth from the events that carry the
// engine's own count of it: a submission, and the start and end of
// runAllTasks. Between them a fold that mirrors the queue may refine it.
func (l *Loop) foldDepth(e *trace.Event) {
	switch e.Kind {
	case trace.KindTaskSubmit:
		l.QueueDepth = max(e.B, 0)
	case trace.KindTasksBegin:
		// queued counts the task already polled: the queue's depth as
		// runAllTasks starts.
		l.QueueDepth = max(e.A, 0)
	case trace.KindTasksEnd:
		l.QueueDepth = max(e.C, 0)
	}
}

// Wheel is the HashedWheelTimer as its events show it.
type Wheel struct {
	Ticks       int64 // wheel_tick events: ticks done
	Expired     int64 // timeouts expired and run, as the ticks count them
	Tick        int64 // number of the latest tick
	Slot        int64 // slot of the latest tick
	Pending     int64 // timeouts pending after the latest tick
	LastExpired int64 // timeouts expired at the latest tick
	LastTime    int64 // time of the latest tick
}

// Fold adds a wheel_tick or wheel_expire event; it reports whether the
// event was one.
func (w *Wheel) Fold(e *trace.Event) bool {
	switch e.Kind {
	case trace.KindWheelTick:
		w.Ticks++
		w.Tick, w.Slot, w.Pending = e.A, e.B, e.D
		w.LastExpired = max(e.C, 0)
		w.Expired += w.LastExpired
		w.LastTime = e.Time
		return true
	case trace.KindWheelExpire:
		// Each expiry has its own event too, but the tick that follows
		// counts them: one event fewer to lose to a full ring.
		return true
	}
	return false
}
