package model

import (
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
	Break   counters.Break // the breakpoint behind Reason, if one
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
	PausePhase  trace.Phase    // the gate it waits at, when PausePaused
	PauseReason string         // why it was told to pause
	Break       counters.Break // the breakpoint that stopped it, if one did
	IORatio     int            // -1 when unknown
	Threshold   int            // the rebuild threshold; 0 when unknown or off
	// Flash marks a loop something just happened to: it is parked at a
	// breakpoint, or a timeline action reached it a moment ago.
	Flash bool
	// Watched marks a loop the caption on screen talks about (its
	// placeholders read its counters): the screen points at it.
	Watched bool
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
	// Recorded says the frame is a trace's, not a live run's: the system
	// call counters no event records (counters' live tag) are not known.
	Recorded bool
}

// Settings are the run's configuration a frame reports with each loop.
type Settings struct {
	IORatio   int // the scenario's ioRatio; -1 when unknown
	Threshold int
	// Netty is the loop design when it is not the default 4.1.43 (see
	// docs/netty-versions.md); "" for the default or when unknown.
	Netty string
}

// NewFrame builds the frame of a snapshot, live or replayed by one path:
// every loop's counters, gate, ioRatio and last second, and the wheel, come
// from the probe. A live run's probe reads the engine: each started loop's
// own counters replace the folded ones, since a ring that overflows drops
// events and a fold of the rest falls short (the queue depth stays the
// fold's, as the queue head and the sparkline are drawn from it), and its
// clocks measure the last second. A replay passes nil, and reads the
// recording. The pause state is merged here and nowhere else.
func NewFrame(s *Snapshot, p Probe, set Settings) *Frame {
	f := &Frame{Snapshot: s, Rows: make([]FrameLoop, len(s.Loops)), Settings: set, Now: s.Time, Recorded: p == nil}
	if p == nil {
		p = recorded{s}
	}
	for i, l := range s.Loops {
		r := FrameLoop{Loop: l, IORatio: set.IORatio, Threshold: set.Threshold}
		if lp, ok := p.Loop(l.Index); ok {
			if lp.Started {
				depth := r.QueueDepth
				r.Stats, r.QueueDepth = lp.Stats, depth
			}
			if lp.IORatio > 0 {
				r.IORatio = lp.IORatio // changed during the run: the settings have the start
			}
			r.Pause, r.PausePhase, r.PauseReason, r.Break = mergePause(&l, lp.Gate)
			if lp.Split.Known {
				r.Split = lp.Split
			}
		}
		r.Flash = AtBreakpoint(r)
		f.Rows[i] = r
	}
	f.Wheel, _ = p.Wheel()
	f.Clients = p.Clients()
	return f
}

// recorded is the probe of a replay: what the recording shows of each
// loop, its gate as its latest gate event left it, the last second from
// its phase events, and the wheel without slot counts.
type recorded struct{ s *Snapshot }

// Loop implements Probe.
func (r recorded) Loop(i int) (LoopProbe, bool) {
	for _, l := range r.s.Loops {
		if l.Index == i {
			lp := LoopProbe{Started: l.TID != 0, Stats: l.Stats, IORatio: l.IORatio, Split: l.Split}
			lp.Gate = Gate{Paused: l.Paused, Waiting: l.Paused, Phase: l.PausePhase, Reason: l.PauseReason,
				Break: counters.BreakOf(l.PauseReason)}
			return lp, true
		}
	}
	return LoopProbe{}, false
}

// Wheel implements Probe.
func (r recorded) Wheel() (WheelView, bool) {
	w := recordedWheel(&r.s.Wheel)
	return w, w.Present
}

// Clients implements Probe: a recording has no client figures.
func (r recorded) Clients() Clients { return Clients{} }

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

// mergePause merges the gate with the events. The gate says whether the
// loop is told to pause; it is parked when the gate says so, or when its
// latest gate event is a pause (a live gate's own status can lag it).
func mergePause(l *Loop, g Gate) (Pause, trace.Phase, string, counters.Break) {
	switch {
	case !g.Paused:
		return PauseRunning, 0, "", counters.NoBreak
	case g.Waiting:
		return PausePaused, g.Phase, g.Reason, g.Break
	case l.Paused:
		return PausePaused, l.PausePhase, l.PauseReason, counters.BreakOf(l.PauseReason)
	}
	return PausePausing, 0, g.Reason, g.Break
}

// AtBreakpoint reports whether a loop is parked by a breakpoint.
func AtBreakpoint(r FrameLoop) bool {
	return r.Pause == PausePaused && r.Break != counters.NoBreak
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
