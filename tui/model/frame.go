package model

import (
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
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

// WheelView is the HashedWheelTimer as a screen draws it.
type WheelView struct {
	Present bool
	Size    int   // slots in the wheel
	Cursor  int   // the slot the next tick expires
	Slots   []int // timeouts per slot; nil when unknown (a trace without samples)
	Marks   []int // slots to mark, such as recent expirations
	Tick    int64
	Pending int64
	Queued  int
	TickDur time.Duration
	Note    string // a line under the numbers, such as "idle: no thread"
}

// Clients is what the run's clients saw so far, from its latest sample;
// Known is false for a trace without samples.
type Clients struct {
	Known         bool
	Requests      int64
	Errors        int64
	ThroughputRPS float64
	P50US, P99US  float64
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

// NewFrame builds the frame of a snapshot: the fold of a run's stream up to
// one event, live or replayed, by one path. The events give each loop's
// counters, phase and pause; the latest sample gives what no event
// carries (the system calls, the gate's pending pause, ioRatio, the
// wheel's slots, the clients) and the counters a ring that overflowed made
// the fold miss. The pause state is merged here and nowhere else.
func NewFrame(s *Snapshot, set Settings) *Frame {
	f := &Frame{Snapshot: s, Rows: make([]FrameLoop, len(s.Loops)), Settings: set, Now: s.Time, Recorded: s.Sample == nil}
	for i, l := range s.Loops {
		r := FrameLoop{Loop: l, IORatio: set.IORatio, Threshold: set.Threshold}
		if l.IORatio > 0 {
			r.IORatio = l.IORatio // changed during the run: the settings have the start
		}
		var g sample.Gate // as the latest sample reports it
		if sl, ok := s.Sample.Loop(l.Index); ok {
			r.Stats = mergeStats(l.Stats, sl.Stats)
			if sl.IORatio > 0 {
				r.IORatio = sl.IORatio
			}
			g = sl.Gate
		}
		r.Pause, r.PausePhase, r.PauseReason, r.Break = mergePause(&l, g)
		r.Flash = AtBreakpoint(r)
		f.Rows[i] = r
	}
	f.Wheel = wheelOf(&s.Wheel, s.Sample)
	f.Clients = clientsOf(s.Sample)
	return f
}

// gauges are the counters that go down as well as up: the fold's value,
// from the latest events, is the current one.
var gauges = map[string]bool{"select_cnt": true, "channels": true, "queue_depth": true}

// mergeStats takes the counters no event records from a sample, and any
// other the sample counted higher than the fold (events the rings dropped).
func mergeStats(folded, sampled counters.Stats) counters.Stats {
	out := folded
	for _, c := range counters.Table() {
		sv := c.Get(&sampled)
		if c.Live || (!gauges[c.Name] && sv > c.Get(&folded)) {
			c.Set(&out, sv)
		}
	}
	return out
}

// wheelOf is the wheel as its events show it (the cursor, the recent
// expiries marked) with the slot counts of the latest sample.
func wheelOf(w *Wheel, s *sample.Sample) WheelView {
	var wv WheelView
	if w.Present {
		wv = WheelView{Present: true, Size: w.Size, Cursor: int(w.Slot), Tick: w.Tick, Pending: w.Pending, Note: Count(w.Expired) + " expired"}
		for _, e := range w.Recent {
			if w.Tick-e.Tick < int64(w.Size) {
				wv.Marks = append(wv.Marks, int(e.Slot))
			}
		}
	}
	if s == nil || s.Wheel == nil {
		return wv
	}
	sw := s.Wheel
	if !wv.Present {
		wv = WheelView{Present: true, Size: len(sw.Slots), Cursor: sw.Cursor, Tick: sw.Tick, Note: Count(sw.Expired) + " expired"}
	}
	wv.Slots = append([]int(nil), sw.Slots...)
	wv.Pending, wv.Queued, wv.TickDur = sw.Pending, sw.Queued, time.Duration(sw.TickNS)
	if len(wv.Slots) != wv.Size {
		wv.Slots = nil // the trace's wheel grew past the sample's: unknown
	}
	return wv
}

// clientsOf is what the clients saw by the latest sample.
func clientsOf(s *sample.Sample) Clients {
	if s == nil {
		return Clients{}
	}
	c := Clients{Known: true, Requests: s.Clients.Requests, Errors: s.Clients.Errors, P50US: s.Clients.Latency.Quantile(0.5),
		P99US: s.Clients.Latency.Quantile(0.99)}
	if s.Active > 0 {
		c.ThroughputRPS = float64(c.Requests) / time.Duration(s.Active).Seconds()
	}
	return c
}

// mergePause merges the gate with the events. A loop is parked when its
// latest gate event is a pause; told to pause but still running (asleep in
// select: a sleeping loop is not woken to pause) when the latest sample's
// gate says so.
func mergePause(l *Loop, g sample.Gate) (Pause, trace.Phase, string, counters.Break) {
	switch {
	case l.Paused:
		return PausePaused, l.PausePhase, l.PauseReason, counters.BreakOf(l.PauseReason)
	case g.Paused:
		return PausePausing, 0, g.Reason, g.Break
	}
	return PauseRunning, 0, "", counters.NoBreak
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
