package reactor

import (
	"sync"
	"sync/atomic"
	"time"

	unix "github.com/reactorviz/reactorviz/reactor/internal/sys"
	"github.com/reactorviz/reactorviz/reactor/trace"
	ctr "github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// Breakpoints say when a loop pauses itself at its next phase boundary, or
// right after a premature select return. The rule is defined once, in
// reactor/trace/counters, over two readings of the loop's counters: the gate
// applies it here, and a replay's break search applies it to the recorded
// events, so both stop for the same reasons. Emission sites pay nothing.
type Breakpoints = ctr.Breakpoints

// gate is the loop's step gate. Disabled, a phase boundary costs one atomic
// load. Enabled, the loop may sleep (slow motion), and while paused it really
// stops: its clients' bytes wait in the kernel and its timers fall due.
type gate struct {
	enabled atomic.Bool
	mu      sync.Mutex
	cond    *sync.Cond
	paused  bool
	steps   int         // phase boundaries still allowed to pass while paused
	untilAt trace.Phase // with stepIter, pause again at this phase
	iter    bool
	delay   time.Duration
	reason  string
	brk     ctr.Break   // the breakpoint that paused the loop, if one did
	phase   trace.Phase // where the loop stands (or waits)
	waiting bool
	watch   ctr.Watch // breakpoints and the counters at the previous boundary
	onPark  func()    // called as the loop parks; see SetOnPark
}

func (g *gate) init() { g.cond = sync.NewCond(&g.mu) }

// GateStatus reports where a loop's gate stands.
type GateStatus struct {
	Paused  bool
	Waiting bool // the loop thread is parked at the gate
	Phase   trace.Phase
	Reason  string
	Break   ctr.Break // the breakpoint behind Reason; NoBreak for another pause
	Delay   time.Duration
}

// gateAt is the phase boundary check on the loop thread. It reports
// whether the gate is on: the loop may have waited in it.
func (l *EventLoop) gateAt(p trace.Phase) bool {
	if !l.gate.enabled.Load() {
		return false
	}
	l.gateWait(p)
	return true
}

func (l *EventLoop) gateWait(p trace.Phase) {
	g := &l.gate
	g.mu.Lock()
	g.phase = p
	delay := g.delay
	if brk := l.breakReason(); brk != ctr.NoBreak && !g.paused {
		g.paused, g.steps, g.iter, g.reason, g.brk = true, 0, false, brk.Reason(), brk
	}
	if g.iter && p == g.untilAt && g.steps == 0 {
		g.paused, g.iter = true, false
	}
	announced := false
	for g.paused && g.steps == 0 && l.State() < trace.StateShuttingDown && !g.iter {
		if !announced && g.onPark != nil {
			g.onPark()
		}
		if !announced && l.tracing() {
			l.emit(trace.Event{Kind: trace.KindPause, A: int64(p), Str: g.reason})
		}
		announced = true
		g.waiting = true
		g.cond.Wait()
		g.waiting = false
	}
	if g.steps > 0 {
		g.steps--
	}
	g.mu.Unlock()
	if announced && l.tracing() {
		l.emit(trace.Event{Kind: trace.KindResume, A: int64(p)})
	}
	if delay > 0 {
		time.Sleep(delay)
	}
}

// breakReason compares the counters with those at the previous boundary.
// Called with the gate's lock held.
func (l *EventLoop) breakReason() ctr.Break {
	g := &l.gate
	if !g.watch.Any() {
		return ctr.NoBreak
	}
	now := l.Stats()
	return g.watch.Next(&now)
}

func (g *gate) refresh() {
	g.enabled.Store(g.paused || g.delay > 0 || g.watch.Any() || g.iter || g.steps > 0)
	g.cond.Broadcast()
}

// Pause stops the loop at its next phase boundary. Any goroutine. A loop
// asleep in select is not woken for it: it is already still, and waking it
// would add a wakeup the learner did not cause.
func (l *EventLoop) Pause(reason string) {
	g := &l.gate
	g.mu.Lock()
	g.paused, g.steps, g.iter, g.reason, g.brk = true, 0, false, reason, ctr.NoBreak
	g.refresh()
	g.mu.Unlock()
}

// PauseRun pauses the loop as part of a whole-run pause, with the run's
// clock held. A loop asleep in select is interrupted to park at once:
// left asleep, it would wake on a timeout the held clock says has not
// come and count a premature return the selector never made. The
// interrupt is Netty's Thread.interrupt() in select: the select returns,
// selectCnt goes back to 1 and no wakeup is written. Any goroutine.
func (l *EventLoop) PauseRun(reason string) {
	l.Pause(reason)
	if tid := l.TID(); tid != 0 && l.split.blockedAt.Load() != 0 {
		_ = unix.Interrupt(tid)
	}
}

// Resume lets a paused loop run on. Any goroutine.
func (l *EventLoop) Resume() {
	g := &l.gate
	g.mu.Lock()
	g.paused, g.steps, g.iter, g.reason, g.brk = false, 0, false, "", ctr.NoBreak
	g.refresh()
	g.mu.Unlock()
}

// Step lets a paused loop pass one phase boundary and pause at the next.
func (l *EventLoop) Step() {
	g := &l.gate
	g.mu.Lock()
	if g.paused {
		g.steps++
		g.reason, g.brk = "step", ctr.NoBreak
	}
	g.refresh()
	g.mu.Unlock()
}

// StepIteration lets a paused loop run until it is back where it paused,
// one full iteration later.
func (l *EventLoop) StepIteration() {
	g := &l.gate
	g.mu.Lock()
	if g.paused {
		g.untilAt, g.iter, g.steps, g.reason, g.brk = g.phase, true, 1, "step iteration", ctr.NoBreak
	}
	g.refresh()
	g.mu.Unlock()
}

// SetSlowMotion makes the loop sleep d at every phase boundary (0: off).
func (l *EventLoop) SetSlowMotion(d time.Duration) {
	g := &l.gate
	g.mu.Lock()
	g.delay = max(d, 0)
	g.refresh()
	g.mu.Unlock()
}

// SetBreakpoints replaces the loop's breakpoints.
func (l *EventLoop) SetBreakpoints(bp Breakpoints) {
	g := &l.gate
	g.mu.Lock()
	now := l.Stats()
	g.watch.Reset(bp, &now)
	g.refresh()
	g.mu.Unlock()
}

// SetOnPark sets fn to be called on the loop thread, with the gate's lock
// held, each time the loop parks at its gate (nil: none). A run whose
// clock is held lets it run while one loop steps, and holds it again from
// here, as soon as the step is over. fn must not call the gate.
func (l *EventLoop) SetOnPark(fn func()) {
	g := &l.gate
	g.mu.Lock()
	g.onPark = fn
	g.mu.Unlock()
}

// GateStatus returns the gate's state. Any goroutine.
func (l *EventLoop) GateStatus() GateStatus {
	g := &l.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	return GateStatus{Paused: g.paused, Waiting: g.waiting, Phase: g.phase, Reason: g.reason, Break: g.brk, Delay: g.delay}
}

// releaseGate lets a paused loop go for shutdown.
func (l *EventLoop) releaseGate() {
	g := &l.gate
	g.mu.Lock()
	g.paused, g.steps, g.iter, g.delay = false, 0, false, 0
	g.watch = ctr.Watch{}
	g.refresh()
	g.mu.Unlock()
}
