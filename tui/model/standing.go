package model

import (
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
)

// standing is where one loop stands: its place in its iteration (the
// span fold, phases.Cursor) and at its step gate (the pause fold). A loop
// has one, which the state (the phase ring, the pause column) and the
// timeline (the open phase, the parked stretch) both read; folding an
// event into it says what the timeline keeps of the event (a move).
type standing struct {
	cur phases.Cursor

	// The gate as the loop's events tell it: told to pause, at which gate
	// and why. A terminated loop is not at its gate.
	paused      bool
	pausePhase  trace.Phase
	pauseReason string

	// parked is set while the loop stands parked at its gate since
	// parkedAt, on the run's clock: from the first pause the timeline can
	// draw to the next resume.
	parked   bool
	parkedAt int64
}

// move is what one event did to where its loop stands: its step round
// the iteration, and the stretch parked that it ended, when it did.
type move struct {
	step  phases.Step
	ended bool
	park  park
}

// moves reports whether events of kind k may move a loop's standing: the
// iteration's boundaries and marks (phases.Reads), and the gate's pause
// and resume. A reader can skip the others before looking up the loop.
func moves(k trace.Kind) bool {
	return phases.Reads(k) || k == trace.KindPause || k == trace.KindResume
}

// fold folds one event of the loop named loop. ok is false when the
// event is of a kind that cannot move it (see moves).
func (s *standing) fold(e *trace.Event, loop string) (m move, ok bool) {
	switch {
	case phases.Reads(e.Kind):
		m.step = s.cur.Apply(e, loop)
		if m.step.Mark&phases.MarkStop != 0 {
			s.paused = false
		}
	case e.Kind == trace.KindPause:
		s.paused, s.pausePhase, s.pauseReason = true, trace.Phase(e.A), e.Str
		if !s.parked && onClock(e.Time) {
			s.parked, s.parkedAt = true, e.Time
		}
	case e.Kind == trace.KindResume:
		s.paused, s.pauseReason = false, ""
		if s.parked && onClock(e.Time) {
			m.ended, m.park = true, park{s.parkedAt, e.Time}
			s.parked = false
		}
	default:
		return m, false
	}
	return m, true
}
