// Package tui is reactorviz's terminal UI: a live view of a scenario run
// with step controls and breakpoints, the three Reactor models compared
// side by side, and the replay of a recorded trace, backwards as well as
// forwards (docs/architecture.md).
//
// Data flows one way. The run's collector feeds events into a model
// (tui/model) on its own goroutine; one ticker takes a snapshot of the
// model at most ~30 times a second and redraws; key handlers run on the UI
// goroutine and send commands to the loops' step gates directly. Nothing
// here reaches into the engine beyond the EventLoop control API.
package tui

import (
	"errors"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/wheel"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/model"
)

// Session is one run of a scenario as the UI drives it. *sim.Run
// implements it; tests use a fake.
type Session interface {
	// Start builds the topology, binds, and starts clients and timeline.
	Start() error
	// Done is closed when the run has ended and shut down.
	Done() <-chan struct{}
	// Stop ends the run early with a graceful shutdown. Idempotent.
	Stop()
	Elapsed() time.Duration
	Duration() time.Duration
	Scenario() *scenarios.Scenario
	// Loops lists the loops; Loops()[i] emits as trace loop index i.
	Loops() []*reactor.EventLoop
	// Wheel is the run's HashedWheelTimer, or nil.
	Wheel() *wheel.Timer
	Clients() sim.ClientStats
	// RebuildThreshold is the selectCnt that rebuilds a selector; 0 off.
	RebuildThreshold() int
	// Summary is the run's summary once Done is closed, else nil.
	Summary() *sim.Summary
}

var _ Session = (*sim.Run)(nil)

// collectorSession is what a session may offer beyond Session: the loop
// table (which names the wheel's trace index) and the drop count.
type collectorSession interface {
	Collector() *trace.Collector
}

// NewRun builds a session whose events go to sink, not yet started.
type NewRun func(sink trace.Sink) (Session, error)

// NewModelRun builds the session of one model for the compare screen.
type NewModelRun func(model string, sink trace.Sink) (Session, error)

// Options adjusts a screen. The zero value runs on the real terminal.
type Options struct {
	// Screen, if set, is used instead of the terminal (tests pass a
	// tcell.SimulationScreen). It must not be initialised yet.
	Screen tcell.Screen
	// FPS caps redraws per second; default 30.
	FPS int
	// NoTicker turns the redraw ticker off: tests draw frames themselves.
	NoTicker bool
	// NoColor forces the attribute-only theme; NO_COLOR in the
	// environment does the same.
	NoColor bool
	// Mouse enables clicking a loop row to focus it.
	Mouse bool
	// Paused opens a live run, and every restart of it, paused at its
	// start, so a learner can read the screen before anything happens.
	Paused bool
	// Serve marks a run that serves outside clients: the header names the
	// protocol and address and what the server reads, as no clients of
	// the run's own report anything.
	Serve bool
	// Final, if set, is called with the last run after the terminal is
	// restored, so serve can print the summary its headless form prints.
	Final func(Session)
	// StopTimeout bounds the wait for a run's graceful shutdown on quit or
	// restart; default 30 s.
	StopTimeout time.Duration

	// ready, for tests, is called with the shell once the app has its
	// screen and first data, just before it runs.
	ready func(sh *shell)
}

func (o Options) fps() int {
	if o.FPS <= 0 {
		return 30
	}
	return min(o.FPS, 60)
}

func (o Options) stopTimeout() time.Duration {
	if o.StopTimeout <= 0 {
		return 30 * time.Second
	}
	return o.StopTimeout
}

// liveRingSize is the per-loop event ring the UI asks for: a task flood
// emits tens of thousands of events between two drains, and every event
// lost is a gap in the log and the mirrors (drops are still counted).
const liveRingSize = 1 << 15

// Live runs a scenario in the live view: each start and restart is a fresh
// sim.Run of a copy of sc, with the UI's model added to opts.Sinks.
func Live(sc *scenarios.Scenario, opts sim.Options, o Options) error {
	if sc == nil {
		return errors.New("tui: no scenario")
	}
	return RunLive(func(sink trace.Sink) (Session, error) {
		ro := opts
		ro.Sinks = append(append([]trace.Sink(nil), opts.Sinks...), sink)
		ro.HoldWhilePaused = true
		if ro.RingSize == 0 {
			ro.RingSize = liveRingSize
		}
		r, err := sim.New(sc.Clone(), ro)
		if err != nil {
			return nil, err
		}
		return r, nil
	}, o)
}

// Compare runs sc once per model, one after another, in the compare view.
func Compare(sc *scenarios.Scenario, models []string, o Options) error {
	if sc == nil {
		return errors.New("tui: no scenario")
	}
	judge := func(sums []*sim.Summary) string { return sim.Judge(sc, sums).Verdict }
	return runCompare(models, func(model string, sink trace.Sink) (Session, error) {
		msc, err := sim.ForModel(sc, model)
		if err != nil {
			return nil, err
		}
		r, err := sim.New(msc, sim.Options{Sinks: []trace.Sink{sink}, RingSize: liveRingSize})
		if err != nil {
			return nil, err
		}
		return r, nil
	}, judge, o)
}

// loopTable returns the trace loop table of a session: the collector's
// when it offers one (it names the wheel), else its loops'.
func loopTable(s Session) []trace.LoopInfo {
	if cs, ok := s.(collectorSession); ok && cs.Collector() != nil {
		if t := cs.Collector().Loops(); len(t) > 0 {
			return t
		}
	}
	var t []trace.LoopInfo
	for _, l := range s.Loops() {
		t = append(t, trace.LoopInfo{Name: l.Name(), Group: l.Group()})
	}
	return t
}

// droppedOf returns the collector's drop count, if the session has one.
// It runs every frame, so it must not wait for the collector's drain (as
// Stats does): with a trace file that drain writes to disk.
func droppedOf(s Session) (uint64, bool) {
	cs, ok := s.(collectorSession)
	if !ok || cs.Collector() == nil {
		return 0, false
	}
	return cs.Collector().Dropped(), true
}

// runProbe reads a live run for its frames: each loop's own counters
// (atomics read without stopping it), its gate and its ioRatio, the
// wheel's slots and the clients' figures. A loop counts as started by its
// thread id, which a shut-down loop keeps.
type runProbe struct {
	loops []*reactor.EventLoop
	run   Session
}

// probeOf returns the probe of a run, or nil without one.
func probeOf(run Session) model.Probe {
	if run == nil {
		return nil
	}
	return runProbe{loops: run.Loops(), run: run}
}

// Loop implements model.Probe.
func (p runProbe) Loop(i int) (model.LoopProbe, bool) {
	if i < 0 || i >= len(p.loops) {
		return model.LoopProbe{}, false
	}
	l := p.loops[i]
	g := l.GateStatus()
	return model.LoopProbe{Started: l.TID() != 0, Stats: l.Stats(), IORatio: l.IORatio(),
		Gate:  model.Gate{Paused: g.Paused, Waiting: g.Waiting, Phase: g.Phase, Reason: g.Reason},
		Split: splitOf(p.run, i)}, true
}

// Wheel implements model.Probe: the slots' counts are not in the trace.
func (p runProbe) Wheel() (model.WheelView, bool) {
	if p.run == nil {
		return model.WheelView{}, false
	}
	w := p.run.Wheel()
	if w == nil {
		return model.WheelView{}, false
	}
	s := w.Snapshot()
	wv := model.WheelView{Present: true, Size: len(s.Slots), Cursor: s.Cursor, Slots: s.Slots,
		Tick: s.Tick, Pending: s.Pending, Queued: s.Queued, TickDur: s.TickDuration}
	if s.Tick == 0 && s.Pending == 0 {
		wv.Note = "idle"
	}
	return wv, true
}

// Clients implements model.Probe.
func (p runProbe) Clients() model.Clients {
	if p.run == nil {
		return model.Clients{}
	}
	c := p.run.Clients()
	return model.Clients{Requests: c.Requests, ThroughputRPS: c.ThroughputRPS}
}

// frameOf takes a snapshot for the focused loop, or for the default focus
// when that loop is gone, and builds its frame. It returns the focus used.
func frameOf(snapshot func(model.Query) *model.Snapshot, q model.Query, p model.Probe, set model.Settings) (*model.Frame, int) {
	s := snapshot(q)
	if q.Focus < 0 || !focusable(s, q.Focus) {
		q.Focus = defaultFocus(s)
		s = snapshot(q)
	}
	return model.NewFrame(s, p, set), q.Focus
}
