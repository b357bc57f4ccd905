// Package phases folds a loop's events into the spans of its iterations
// and the marks between them: the one place where phase boundaries are
// derived. A span is one step of NioEventLoop.run (select,
// processSelectedKeys, runAllTasks) with its start and end; a mark is a
// moment worth drawing (a cut batch, a task over budget, a wakeup, a
// premature select return, a rebuild, a panic, a stop, lost events).
//
// A Cursor follows one loop round its iteration and reports, per event,
// what it closed, opened and marked (a Step); the UI's state, the timeline
// and the Chrome exporter all read those steps. A Track keeps the latest
// spans and marks of a loop in fixed rings with an index by time, as a
// trace viewer's slice table does: folding an event allocates nothing and
// costs the same however long the run.
package phases

import "github.com/reactorviz/reactorviz/reactor/trace"

// Mark is a set of things that happened on a loop at one moment.
type Mark uint16

// Marks, from the least to the most urgent (MarkStop aside): a screen
// column that holds several draws the most urgent.
const (
	MarkWakeup     Mark = 1 << iota // another thread wrote the loop's eventfd (C11)
	MarkPremature                   // select returned with nothing ready (C9)
	MarkOverBudget                  // one task ran longer than the batch's ioRatio budget (C16)
	MarkCut                         // the 64-task deadline check stopped a batch (C15)
	MarkRebuild                     // the selector was rebuilt (C10)
	MarkPanic                       // a task panicked, and the loop went on (C6)
	MarkDrop                        // the loop's ring dropped events here
	MarkStop                        // the loop terminated
)

// Span is one phase of one iteration, from its begin event to its end.
type Span struct {
	Start, End int64
	Phase      trace.Phase
	// Cut is set when the span's end event was lost: the next begin, or
	// the loop's termination, closed it.
	Cut bool
}

// Step is what one event did to its loop's iteration.
type Step struct {
	Closed bool        // Span ended at this event
	Span   Span        // the span it closed, when Closed
	Opened trace.Phase // the phase it began; PhaseNone when none
	Mark   Mark
	// Read is set when the event is one of those the fold reads (the
	// iteration's boundaries and the marked kinds).
	Read bool
}

// Cursor is where one loop stands in its iteration. Its zero value is a
// loop that has not started. It is small and flat, so a replay's
// checkpoints copy it for free.
type Cursor struct {
	open   slot // the span open now; none between spans
	since  int64
	at     slot  // the phase the ring lights (see At)
	budget int64 // budget_ns of the current runAllTasks; <=0 none
}

// slot holds a trace.Phase plus one, so that a zero Cursor has none.
type slot int8

func slotOf(p trace.Phase) slot   { return slot(p + 1) }
func (s slot) phase() trace.Phase { return trace.Phase(s) - 1 }

// Open returns the phase open now and since when; PhaseNone between spans.
func (c *Cursor) Open() (trace.Phase, int64) { return c.open.phase(), c.since }

// At returns the phase the loop is in or about to run, as the phase ring
// lights it: the phase begun last, except that the end of
// processSelectedKeys already means runAllTasks (NioEventLoop.run runs the
// tasks right after the keys). PhaseNone before the first select and
// after the loop terminated.
func (c *Cursor) At() trace.Phase { return c.at.phase() }

// Apply folds one event of the loop and reports what it did. Every field
// is taken as untrusted: a replayed file may hold any values.
//
// The rule: a begin opens its phase, first closing the one still open
// (its end was lost: the span is Cut); an end closes the open span only
// when it is that phase's end (an end whose begin was lost is skipped);
// the loop's termination closes the open span, Cut. loop is the loop's
// name, which tells a wakeup written by another thread (a mark) from the
// loop's own (4.1.43's selectNow re-waking its selector, which a task
// flood does at every batch), as counters.Loop.Fold tells them apart.
func (c *Cursor) Apply(e *trace.Event, loop string) Step {
	s := Step{Opened: trace.PhaseNone, Read: true}
	switch e.Kind {
	case trace.KindSelectBegin:
		c.begin(&s, trace.PhaseSelect, e.Time)
	case trace.KindIOBegin:
		c.begin(&s, trace.PhaseIO, e.Time)
	case trace.KindTasksBegin:
		c.begin(&s, trace.PhaseTasks, e.Time)
		c.budget = e.B
	case trace.KindSelectEnd:
		c.end(&s, trace.PhaseSelect, e.Time)
		s.Mark = flagged(e, MarkPremature)
	case trace.KindIOEnd:
		c.end(&s, trace.PhaseIO, e.Time)
		c.at = slotOf(trace.PhaseTasks)
	case trace.KindTasksEnd:
		c.end(&s, trace.PhaseTasks, e.Time)
	case trace.KindDeadlineCheck:
		s.Mark = flagged(e, MarkCut)
	case trace.KindTaskRun:
		if c.budget > 0 && e.B > c.budget {
			s.Mark = MarkOverBudget
		}
	case trace.KindWakeup:
		if e.Str != loop {
			s.Mark = flagged(e, MarkWakeup)
		}
	case trace.KindRebuildBegin, trace.KindRebuildEnd:
		s.Mark = MarkRebuild
	case trace.KindTaskPanic:
		s.Mark = MarkPanic
	case trace.KindDrop:
		s.Mark = MarkDrop
	case trace.KindState:
		if trace.State(e.B) < trace.StateTerminated {
			return Step{Opened: trace.PhaseNone}
		}
		c.close(&s, e.Time, true)
		c.at = 0
		s.Mark = MarkStop
	default:
		return Step{Opened: trace.PhaseNone}
	}
	return s
}

func flagged(e *trace.Event, m Mark) Mark {
	if e.Flag {
		return m
	}
	return 0
}

func (c *Cursor) begin(s *Step, p trace.Phase, t int64) {
	c.close(s, t, true)
	c.open, c.since, c.at = slotOf(p), t, slotOf(p)
	s.Opened = p
}

func (c *Cursor) end(s *Step, p trace.Phase, t int64) {
	if c.open == slotOf(p) {
		c.close(s, t, false)
	}
}

func (c *Cursor) close(s *Step, t int64, cut bool) {
	if c.open == 0 {
		return
	}
	s.Closed, s.Span = true, Span{Start: c.since, End: t, Phase: c.open.phase(), Cut: cut}
	c.open = 0
}

// AtGate maps a step-gate phase (where a paused loop waits) to the phase
// it is about to run: the gate at PhaseEnd is followed by the next select.
func AtGate(p trace.Phase) trace.Phase {
	switch p {
	case trace.PhaseIO, trace.PhaseTasks:
		return p
	}
	return trace.PhaseSelect
}

// reads lists the kinds Cursor.Apply reads.
var reads = func() (r [trace.NumKinds]bool) {
	for _, k := range []trace.Kind{
		trace.KindSelectBegin, trace.KindIOBegin, trace.KindTasksBegin,
		trace.KindSelectEnd, trace.KindIOEnd, trace.KindTasksEnd,
		trace.KindDeadlineCheck, trace.KindTaskRun, trace.KindWakeup,
		trace.KindRebuildBegin, trace.KindRebuildEnd, trace.KindTaskPanic,
		trace.KindDrop, trace.KindState,
	} {
		r[k] = true
	}
	return r
}()

// Reads reports whether Cursor.Apply may read events of kind k: a reader
// can skip the others before looking up the loop.
func Reads(k trace.Kind) bool { return int(k) < len(reads) && reads[k] }
