package model

import (
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// Pause is where a loop stands with its step gate.
type Pause uint8

// A loop runs, is told to pause but still sleeps in select (a sleeping loop
// is not woken to pause), or is parked at a gate.
const (
	PauseRunning Pause = iota
	PausePausing
	PausePaused
)

// Gate is a loop's step gate as a live run reports it.
type Gate struct {
	Paused  bool // told to pause
	Waiting bool // parked at the gate
	Phase   trace.Phase
	Reason  string
}

// LoopProbe is what a live run reads from one loop without stopping it:
// its own counters (which only a started loop has moved), its gate and its
// ioRatio.
type LoopProbe struct {
	Started bool
	Stats   counters.Stats
	Gate    Gate
	IORatio int
	Split   TimeSplit // from the loop's own clocks; Known false when not measured
}

// Probe reads a live run: its loops, its wheel and its clients. A replay
// has none: its frame comes from the events alone.
type Probe interface {
	// Loop reports trace loop i; ok is false when the run has no such
	// loop.
	Loop(i int) (p LoopProbe, ok bool)
	// Wheel reads the HashedWheelTimer's slots, which the trace does not
	// carry; ok is false when the run has no wheel.
	Wheel() (w WheelView, ok bool)
	// Clients reads what the run's clients saw so far.
	Clients() Clients
}

// WheelView is the HashedWheelTimer as a screen draws it.
type WheelView struct {
	Present bool
	Size    int   // slots in the wheel
	Cursor  int   // the slot the next tick expires
	Slots   []int // timeouts per slot; nil when unknown (replay)
	Marks   []int // slots to mark, such as recent expirations
	Tick    int64
	Pending int64
	Queued  int
	TickDur time.Duration
	Note    string // a line under the numbers, such as "idle: no thread"
}

// Clients is what a live run's clients saw; a replay has none.
type Clients struct {
	Requests      int64
	ThroughputRPS float64
}

// FrameLoop is one loop as every screen draws it.
type FrameLoop struct {
	Loop
	Pause       Pause
	PausePhase  trace.Phase // the gate it waits at, when PausePaused
	PauseReason string      // why it was told to pause
	IORatio     int         // -1 when unknown
	Threshold   int         // the rebuild threshold; 0 when unknown or off
	// Flash marks a loop something just happened to: it is parked at a
	// breakpoint, or a timeline action reached it a moment ago.
	Flash bool
}

// Frame is everything a screen draws at one moment: the fold's snapshot,
// and per loop (in Snapshot.Loops order) the merged counters and pause
// state.
type Frame struct {
	*Snapshot
	Rows     []FrameLoop
	Wheel    WheelView
	Clients  Clients
	Settings Settings
	// Now is the moment the frame shows, against which deadlines count
	// down: the latest event's time; a replay sets its current event's.
	Now int64
}

// Settings are the run's configuration a frame reports with each loop.
type Settings struct {
	IORatio   int // the scenario's ioRatio; -1 when unknown
	Threshold int
	// Netty is the loop design when it is not the default 4.1.43 (see
	// docs/netty-versions.md); "" for the default or when unknown.
	Netty string
}

// NewFrame builds the frame of a snapshot. With a probe (a live run), each
// started loop's own counters replace the folded ones, since a ring that
// overflows drops events and a fold of the rest falls short; the queue
// depth stays the fold's, as the queue head and the sparkline are drawn
// from it. The pause state is merged here and nowhere else.
func NewFrame(s *Snapshot, p Probe, set Settings) *Frame {
	f := &Frame{Snapshot: s, Rows: make([]FrameLoop, len(s.Loops)), Settings: set, Now: s.Time}
	for i, l := range s.Loops {
		r := FrameLoop{Loop: l, IORatio: set.IORatio, Threshold: set.Threshold}
		if p == nil {
			r.Pause, r.PausePhase, r.PauseReason = recordedPause(&l)
			if l.IORatio > 0 {
				r.IORatio = l.IORatio // changed during the run: the settings have the start
			}
		} else if lp, ok := p.Loop(l.Index); ok {
			if lp.Started {
				depth := r.QueueDepth
				r.Stats, r.QueueDepth = lp.Stats, depth
			}
			r.IORatio = lp.IORatio
			r.Pause, r.PausePhase, r.PauseReason = livePause(&l, lp.Gate)
			if lp.Split.Known {
				r.Split = lp.Split // the loop's clocks miss nothing a full ring drops
			}
		}
		r.Flash = AtBreakpoint(r)
		f.Rows[i] = r
	}
	if p == nil {
		f.Wheel = recordedWheel(&s.Wheel)
		return f
	}
	f.Wheel, _ = p.Wheel()
	f.Clients = p.Clients()
	return f
}

// recordedWheel is the wheel as its events show it: no slot counts, the
// recent expiries marked.
func recordedWheel(w *Wheel) WheelView {
	if !w.Present {
		return WheelView{}
	}
	wv := WheelView{Present: true, Size: w.Size, Cursor: int(w.Slot), Tick: w.Tick, Pending: w.Pending}
	for _, e := range w.Recent {
		if w.Tick-e.Tick < int64(w.Size) {
			wv.Marks = append(wv.Marks, int(e.Slot))
		}
	}
	wv.Note = Count(w.Expired) + " expired"
	return wv
}

// recordedPause is a replay's pause state: the loop's latest gate event.
func recordedPause(l *Loop) (Pause, trace.Phase, string) {
	if l.Paused {
		return PausePaused, l.PausePhase, l.PauseReason
	}
	return PauseRunning, 0, ""
}

// livePause merges the gate with the events. The gate says whether the
// loop is told to pause; it is parked when the gate says so, or when its
// latest gate event is a pause (the gate's own status can lag it).
func livePause(l *Loop, g Gate) (Pause, trace.Phase, string) {
	switch {
	case !g.Paused:
		return PauseRunning, 0, ""
	case g.Waiting:
		return PausePaused, g.Phase, g.Reason
	case l.Paused:
		return PausePaused, l.PausePhase, l.PauseReason
	}
	return PausePausing, 0, g.Reason
}

// AtBreakpoint reports whether a loop is parked by a breakpoint: its gate
// reason is the one a breakpoint gives.
func AtBreakpoint(r FrameLoop) bool {
	return r.Pause == PausePaused && strings.HasPrefix(r.PauseReason, "breakpoint")
}

// Row returns the frame row of trace loop index i.
func (f *Frame) Row(i int) (FrameLoop, bool) {
	for _, r := range f.Rows {
		if r.Index == i {
			return r, true
		}
	}
	return FrameLoop{}, false
}
