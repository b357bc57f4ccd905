package counters

// Breakpoints say when a loop should stop. They are one rule over two
// readings of a loop's counters, so the live step gate (which reads the
// engine's counters at each phase boundary) and a replay's break search
// (which folds the recorded events one by one) stop for the same reasons.
type Breakpoints struct {
	Rebuild     bool // the selector was rebuilt
	Premature   bool // a select returned prematurely
	DeadlineHit bool // runAllTasks stopped at a 64-task deadline check
	Wakeup      bool // another thread wrote the loop's eventfd (not the loop's own wakeup)
	TaskPanic   bool // a task or handler panicked (a channel exception is not a panic)
	QueueAbove  int  // the task queue grew from at most this to deeper (0: off)
}

// Any reports whether any breakpoint is on.
func (b Breakpoints) Any() bool {
	return b.Rebuild || b.Premature || b.DeadlineHit || b.Wakeup || b.TaskPanic || b.QueueAbove > 0
}

// Break names one breakpoint: which of them stopped a loop, carried from
// the step gate to the screens as a value, not as text to parse.
type Break uint8

// The breakpoints, in the menu's order. NoBreak is a loop that no
// breakpoint stopped.
const (
	NoBreak Break = iota
	BreakRebuild
	BreakPremature
	BreakDeadlineHit
	BreakWakeup
	BreakTaskPanic
	BreakQueueAbove
	numBreaks
)

// Breakpoint reasons, as the pause event and the header show them.
const (
	ReasonRebuild     = "breakpoint: selector rebuilt"
	ReasonPremature   = "breakpoint: premature select return"
	ReasonDeadlineHit = "breakpoint: task deadline hit"
	ReasonWakeup      = "breakpoint: wakeup written"
	ReasonTaskPanic   = "breakpoint: task or handler panic"
	ReasonQueueAbove  = "breakpoint: task queue above threshold"
)

// BreakSpec is one row of the breakpoint table: what the menu offers, the
// word a replay's status bar lists, and the reason a loop it stops gives.
type BreakSpec struct {
	Break   Break
	Label   string // the breakpoint menu's line
	Word    string // its short name
	Reason  string // the gate's reason and the pause event's text
	Numeric bool   // set with a threshold rather than on or off
}

// breakTable is the one table of breakpoints, indexed by Break.
var breakTable = [numBreaks]BreakSpec{
	BreakRebuild:     {BreakRebuild, "selector rebuilt (C10)", "rebuild", ReasonRebuild, false},
	BreakPremature:   {BreakPremature, "premature select return (C9)", "premature", ReasonPremature, false},
	BreakDeadlineHit: {BreakDeadlineHit, "64-task deadline hit (C15)", "deadline", ReasonDeadlineHit, false},
	BreakWakeup:      {BreakWakeup, "wakeup written (C11)", "wakeup", ReasonWakeup, false},
	BreakTaskPanic:   {BreakTaskPanic, "task or handler panic", "panic", ReasonTaskPanic, false},
	BreakQueueAbove:  {BreakQueueAbove, "task queue above", "queue>", ReasonQueueAbove, true},
}

// BreakTable lists the breakpoints in the menu's order.
func BreakTable() []BreakSpec { return breakTable[1:] }

// Reason is the text a loop the breakpoint stopped gives; "" for NoBreak.
func (k Break) Reason() string {
	if k >= numBreaks {
		return ""
	}
	return breakTable[k].Reason
}

// BreakOf reads a recorded pause reason back: the breakpoint whose reason
// it is, or NoBreak for a pause of another kind (the user's, a step).
func BreakOf(reason string) Break {
	for _, s := range BreakTable() {
		if s.Reason == reason {
			return s.Break
		}
	}
	return NoBreak
}

// Get is how breakpoint k is set: 1 or 0, or the threshold of a numeric one.
func (b *Breakpoints) Get(k Break) int {
	if p := b.flag(k); p != nil {
		if *p {
			return 1
		}
		return 0
	}
	if k == BreakQueueAbove {
		return b.QueueAbove
	}
	return 0
}

// Set sets breakpoint k: on for v > 0, or to the threshold v.
func (b *Breakpoints) Set(k Break, v int) {
	if p := b.flag(k); p != nil {
		*p = v > 0
	} else if k == BreakQueueAbove {
		b.QueueAbove = max(v, 0)
	}
}

func (b *Breakpoints) flag(k Break) *bool {
	switch k {
	case BreakRebuild:
		return &b.Rebuild
	case BreakPremature:
		return &b.Premature
	case BreakDeadlineHit:
		return &b.DeadlineHit
	case BreakWakeup:
		return &b.Wakeup
	case BreakTaskPanic:
		return &b.TaskPanic
	}
	return nil
}

// Reason returns why a loop whose counters went from prev to now should
// stop, or "" when no breakpoint fires.
func (b *Breakpoints) Reason(prev, now *Stats) string { return b.Fired(prev, now).Reason() }

// Fired returns the breakpoint that fires for a loop whose counters went
// from prev to now, or NoBreak. Counters fire on an increase. The queue
// fires on the crossing only: a queue that stays deep would otherwise stop
// the loop at every boundary, and resuming would act as a step. It
// allocates nothing, for the step gate runs it on the loop thread.
func (b *Breakpoints) Fired(prev, now *Stats) Break {
	switch {
	case b.Rebuild && now.Rebuilds > prev.Rebuilds:
		return BreakRebuild
	case b.Premature && now.Premature > prev.Premature:
		return BreakPremature
	case b.DeadlineHit && now.DeadlineHits > prev.DeadlineHits:
		return BreakDeadlineHit
	case b.Wakeup && now.WakeupsWritten > prev.WakeupsWritten:
		return BreakWakeup
	case b.TaskPanic && now.TaskPanics+now.HandlerPanics > prev.TaskPanics+prev.HandlerPanics:
		return BreakTaskPanic
	case b.QueueAbove > 0 && prev.QueueDepth <= int64(b.QueueAbove) && now.QueueDepth > int64(b.QueueAbove):
		return BreakQueueAbove
	}
	return NoBreak
}

// Watch applies breakpoints to successive readings of one loop's counters:
// each Check compares a reading with the one before.
type Watch struct {
	Breakpoints
	last Stats
}

// Reset sets the breakpoints and the reading later ones are compared with.
func (w *Watch) Reset(bp Breakpoints, now *Stats) {
	w.Breakpoints, w.last = bp, *now
}

// Check returns the reason a breakpoint fires between the previous reading
// and now, or "", and keeps now for the next call.
func (w *Watch) Check(now *Stats) string { return w.Next(now).Reason() }

// Next returns the breakpoint that fires between the previous reading and
// now, or NoBreak, and keeps now for the next call.
func (w *Watch) Next(now *Stats) Break {
	if !w.Any() {
		return NoBreak
	}
	k := w.Fired(&w.last, now)
	w.last = *now
	return k
}
