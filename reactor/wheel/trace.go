package wheel

import "github.com/reactorviz/reactorviz/reactor/trace"

// tracer is the wheel thread's emission path. The wheel thread is the only
// producer of ring, which keeps trace.Ring's single-producer rule.
type tracer struct {
	ring  *trace.Ring
	sw    *trace.Switch
	clock *trace.Clock
}

// tracing costs one atomic load when tracing is configured and off.
func (t *Timer) tracing() bool { return t.tr != nil && t.tr.sw.On() }

func (t *Timer) emit(e trace.Event) {
	e.Time = t.tr.clock.Now()
	t.tr.ring.Put(e)
}

func (t *Timer) emitTick(tick int64, slot int64, expired int) {
	if !t.tracing() {
		return
	}
	t.emit(trace.Event{Kind: trace.KindWheelTick, A: tick, B: slot, C: int64(expired), D: t.pending.Load()})
}

// emitExpire reports the deadline on the wheel's clock (start + deadline),
// which is the run's time base unless WithClock replaced it.
func (t *Timer) emitExpire(tick int64, slot int64, to *Timeout) {
	if !t.tracing() {
		return
	}
	t.emit(trace.Event{Kind: trace.KindWheelExpire, A: tick, B: slot, C: int64(to.id), D: int64(t.startTime + to.deadline)})
}

func (t *Timer) emitPanic(to *Timeout) {
	if !t.tracing() {
		return
	}
	t.emit(trace.Event{Kind: trace.KindTaskPanic, A: int64(to.id), Str: to.name})
}

// emitState reports the wheel thread starting and terminating, so a trace
// shows when the lazily started thread came to life.
func (t *Timer) emitState(from, to trace.State) {
	if !t.tracing() {
		return
	}
	t.emit(trace.Event{Kind: trace.KindState, A: int64(from), B: int64(to), C: t.tid.Load()})
}
