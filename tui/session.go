// Package tui is reactorviz's terminal UI: a live view of a scenario run
// with step controls and breakpoints, the three Reactor models compared
// side by side, and the replay of a recorded trace, backwards as well as
// forwards (docs/architecture.md).
//
// Data flows one way. The run's collector feeds events into a model
// (tui/model) on its own goroutine; one ticker takes a snapshot of the
// model at most ~30 times a second and redraws; key handlers run on the UI
// goroutine and send commands to the loops' step gates directly. Nothing
// here reaches into the engine beyond the Loop control API, which a loop of
// this process and a loop of a run in another (a page's live run, see
// sim/remote) both offer.
package tui

import (
	"errors"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
)

// Session is one run of a scenario as every screen sees it, in full:
// *sim.Run implements it through LocalRun, a run in another process through
// RemoteRun (sim/remote), and so does the tests' fake. What a screen shows never
// depends on which it reads.
type Session interface {
	// Its life, which the runner drives (runner.go).

	// Start builds the topology, binds, and starts clients and timeline.
	Start() error
	// Done is closed when the run has ended and shut down.
	Done() <-chan struct{}
	// Stop ends the run early with a graceful shutdown. Idempotent.
	Stop()
	// Summary is the run's summary once Done is closed, else nil.
	Summary() *sim.Summary
	Scenario() *scenarios.Scenario

	// The controls. What a screen draws comes from the run's stream, not
	// from here (model.NewFrame).

	// Loops lists the loops; Loops()[i] emits as trace loop index i. They
	// are the controls of each loop's step gate (pause, step, step an
	// iteration, breakpoints, slow motion).
	Loops() []Loop
	// LoopTable is the trace loop table: the loops, then the wheel's
	// thread when the run has one.
	LoopTable() []trace.LoopInfo
	// RebuildThreshold is the selectCnt that rebuilds a selector; 0 off.
	RebuildThreshold() int
	// Addrs are where a serving run listens; Answered counts the requests
	// its protocol handlers answered.
	Addrs() []string
	Answered() int64

	// The clock.

	Elapsed() time.Duration
	Duration() time.Duration
	// TraceNow reads the clock the events are stamped with.
	TraceNow() int64
	// HoldClock stops (or lets go) the run clock: the whole run is paused
	// (space, or a run opened paused). The loops are paused by the caller;
	// the clock stops the timeline, the clients and the wheel. A loop
	// stopped on its own does not hold it.
	HoldClock(hold bool)
	// ClockHeld reports whether the run clock is held.
	ClockHeld() bool
	// Sample asks the run for a sample soon: its loops' gates changed
	// (a pause, a step), and its stream should say so. It never waits.
	Sample()
	// Step runs step, a step of loop i's gate; while the run clock is held
	// it runs for the step only, until the loop parks again.
	Step(i int, step func())
	// ClockMap puts an event's time on the run clock, which stands still
	// while the run is held.
	ClockMap() func(eventTime int64) time.Duration
}

// Loop is the controls of one event loop's step gate and what they act on
// (its life and its gate's state), the part of *reactor.EventLoop's API a
// screen uses: a loop of this process is one, and so is a loop of a run in
// another process, whose controls are sent to it (sim/remote). Its figures
// come from the run's stream.
type Loop interface {
	Name() string
	State() trace.State
	// TID is the loop's thread id; 0 before it started.
	TID() int
	GateStatus() reactor.GateStatus
	// Pause stops this loop at its next phase boundary; PauseRun does so
	// for a pause of the whole run, waking the loop from its select.
	Pause(reason string)
	PauseRun(reason string)
	Resume()
	// Step lets a paused loop run to its next phase boundary;
	// StepIteration to the start of its next iteration.
	Step()
	StepIteration()
	SetBreakpoints(b reactor.Breakpoints)
	SetSlowMotion(d time.Duration)
}

var _ Loop = (*reactor.EventLoop)(nil)

// LocalRun is a run of this process as a Session: *sim.Run, whose loops
// are the engine's own.
type LocalRun struct {
	*sim.Run
	loops []Loop
}

var _ Session = (*LocalRun)(nil)

// NewLocalRun wraps r.
func NewLocalRun(r *sim.Run) *LocalRun { return &LocalRun{Run: r, loops: asLoops(r.Loops())} }

// asLoops is a run's loops as the Session's Loop.
func asLoops[T Loop](ls []T) []Loop {
	out := make([]Loop, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}

// Loops implements Session.
func (r *LocalRun) Loops() []Loop { return r.loops }

// Step implements Session.
func (r *LocalRun) Step(i int, step func()) {
	loops := r.Run.Loops()
	if i < 0 || i >= len(loops) {
		return
	}
	r.Run.Step(loops[i], step)
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
	// Recorded, if set, opens the built-in recording of one variant of a
	// comparison (a model's run of the same workload), made on a quiet
	// machine; ok is false when there is none. The compare screen offers
	// them when its verdict finds this machine too busy.
	Recorded func(variant string) (tr *jsonl.Trace, ok bool)

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
// lost is a gap in the log, the mirrors and the timeline. At 1 << 15 the
// floods of task-deadline-64 and io-ratio dropped a fifth to two fifths of
// their events (TestE2EFloodsKeepEveryEvent).
const liveRingSize = 1 << 16

// liveExternalRingSize is the ring of events raised off the loops, which
// all the loops share: io-ratio submits 20 000 tasks to each of three
// workers from outside, a task_submit and a wakeup each, 120 000 events
// in a burst that a collector slowed by a busy machine may not drain in
// time. 1 << 18 holds the largest burst of any built-in whole (24 MiB,
// its slots' sequence numbers written when it is made).
const liveExternalRingSize = 1 << 18

// Live runs a scenario in the live view: each start and restart is a fresh
// sim.Run of a copy of sc, with the UI's model added to opts.Sinks.
func Live(sc *scenarios.Scenario, opts sim.Options, o Options) error {
	if sc == nil {
		return errors.New("tui: no scenario")
	}
	return RunLive(func(sink trace.Sink) (Session, error) {
		return simRun(LiveRun(sc, opts, sink))
	}, o)
}

// LiveRun builds a run of a copy of sc as the live screen runs it, not yet
// started: its events go to sinks besides opts.Sinks, and unless opts says
// otherwise its rings are the live screen's, which a flood does not
// overrun. A page's live run (sim/remote) is built here too, so the page
// sees what the terminal would.
func LiveRun(sc *scenarios.Scenario, opts sim.Options, sinks ...trace.Sink) (*sim.Run, error) {
	ro := opts
	ro.Sinks = append(append([]trace.Sink(nil), opts.Sinks...), sinks...)
	if ro.RingSize == 0 {
		ro.RingSize, ro.ExternalRingSize = liveRingSize, liveExternalRingSize
	}
	return sim.New(sc.Clone(), ro)
}

// Compare runs sc once per model, one after another, in the compare view.
func Compare(sc *scenarios.Scenario, models []string, o Options) error {
	return compareOn(sc, AxisModel, models, compare.ForModel, func(sums []*sim.Summary) compare.Judgement {
		return compare.Judge(sc, sums).Judgement()
	}, o)
}

// CompareFlavours runs sc once per Netty loop design, one after another,
// in the same compare view as the models.
func CompareFlavours(sc *scenarios.Scenario, flavours []string, o Options) error {
	return compareOn(sc, AxisNetty, flavours, compare.ForNetty, func(sums []*sim.Summary) compare.Judgement {
		return compare.JudgeFlavours(sc, sums).Judgement()
	}, o)
}

// CompareTransports runs sc once per transport (compare.TransportsFor), one after
// another, in the same compare view as the models.
func CompareTransports(sc *scenarios.Scenario, transports []string, o Options) error {
	return compareOn(sc, AxisTransport, transports, compare.TransportsFor(transports), func(sums []*sim.Summary) compare.Judgement {
		return compare.JudgeTransports(sc, transports, sums).Judgement()
	}, o)
}

// Axis names what a compare screen varies: it titles the columns and the
// header ("one model after another").
type Axis string

// The axes a comparison runs along.
const (
	AxisModel     Axis = "model"
	AxisNetty     Axis = "flavour"
	AxisTransport Axis = "transport"
)

// compareOn runs sc once per variant, derived by derive, in the compare
// view, and judges the finished runs with judge.
func compareOn(sc *scenarios.Scenario, axis Axis, variants []string,
	derive func(*scenarios.Scenario, string) (*scenarios.Scenario, error), judge func([]*sim.Summary) compare.Judgement, o Options) error {
	if sc == nil {
		return errors.New("tui: no scenario")
	}
	return runCompare(axis, variants, func(v string, sink trace.Sink) (Session, error) {
		vsc, err := derive(sc, v)
		if err != nil {
			return nil, err
		}
		r, err := sim.New(vsc, sim.Options{Sinks: []trace.Sink{sink}, RingSize: liveRingSize, ExternalRingSize: liveExternalRingSize})
		if err == nil && axis != AxisModel {
			r.CountDesign() // the causes' design figures
		}
		return simRun(r, err)
	}, judge, o)
}

// simRun is sim.New's run as a Session: no run, a nil Session.
func simRun(r *sim.Run, err error) (Session, error) {
	if err != nil {
		return nil, err
	}
	return NewLocalRun(r), nil
}

// moment is one instant of a run, live or replayed. Both screens build
// their frame, caption and flashing rows from one, by this one path: the
// fold of the run's stream up to here (live, the model's; a replay, the
// fold of its trace), whose samples say which script actions fired, and
// the run clock.
type moment struct {
	snapshot func(model.Query) *model.Snapshot
	set      model.Settings
	sc       *scenarios.Scenario
	now      time.Duration // on the run clock
	// clock, live, puts the log's times on the run clock the header
	// shows (onRunClock); nil in a replay, whose trace is on it already.
	clock func(int64) time.Duration
}

// liveMoment is where a live run stands now.
func liveMoment(run Session, mdl *model.Model) moment {
	m := moment{snapshot: mdl.Snapshot, set: model.Settings{IORatio: -1}}
	if run == nil {
		return m
	}
	m.sc, m.now, m.clock = run.Scenario(), run.Elapsed(), run.ClockMap()
	m.set.Threshold = run.RebuildThreshold()
	if sc := m.sc; sc != nil && sc.Netty != "" && sc.Netty != scenarios.Netty4143 {
		m.set.Netty = string(sc.Netty) // the header names the design; the pane flags a non-default one
	}
	return m
}

// frame takes a snapshot for the focused loop, or for the default focus
// when that loop is gone, builds its frame and the caption for the
// moment, and flashes the rows of the loops a script action just
// reached. It returns the focus used.
func (m moment) frame(q model.Query) (*model.Frame, int, captionView) {
	s := m.snapshot(q)
	if q.Focus < 0 || !focusable(s, q.Focus) {
		q.Focus = defaultFocus(s)
		s = m.snapshot(q)
	}
	if sc := m.sc; sc != nil && s.Wheel.Present && sc.Wheel.Length() > s.Wheel.Size {
		// A trace tells the wheel's length only by the slots it has
		// reached; the scenario says it from the start.
		s.Wheel.Size = sc.Wheel.Length()
	}
	if q.Follow.Field != "" {
		// The log shows the followed item's path; live, a copy, as
		// FollowLog stays in trace time for the timeline's marks.
		s.Log = s.FollowLog
		if m.clock != nil {
			s.Log = append([]model.LogLine(nil), s.FollowLog...)
		}
	}
	if m.clock != nil {
		onRunClock(m.clock, s.Log)
		onRunClock(m.clock, s.SliceLog)
	}
	f := model.NewFrame(s, m.set)
	fired := firedOf(m.sc, s.Fired)
	flashLoops(f, fired, m.now)
	c := captionAt(m.sc, f, fired, m.now)
	markWatched(f, c)
	return f, q.Focus, c
}

// onRunClock rewrites the times of log lines, taken from a snapshot that
// owns them, to the run clock the header shows, which stands still while
// the run is paused: an event that happens during a pause (the wheel's
// thread ticks on) is stamped with the moment the pause began.
func onRunClock(at func(int64) time.Duration, lines []model.LogLine) {
	for i := range lines {
		e := &lines[i].Event
		t := int64(at(e.Time))
		// A deadline keeps its distance from its event: timers run on real
		// time, so mapping it through the holds would move a timer that
		// fell due during a pause to the pause's start.
		switch e.Kind {
		case trace.KindTimerSchedule, trace.KindTimerDue, trace.KindTimerCancel:
			e.B = t + (e.B - e.Time)
		case trace.KindWheelExpire:
			e.D = t + (e.D - e.Time)
		}
		e.Time = t
	}
}

// firedOf is the script actions a run's samples say fired, as the caption
// and the flashing rows read them: each with its action of sc's timeline.
func firedOf(sc *scenarios.Scenario, fs []sample.Fired) []sim.Fired {
	if sc == nil {
		return nil
	}
	out := make([]sim.Fired, 0, len(fs))
	for _, f := range fs {
		if f.Action < 0 || f.Action >= len(sc.Timeline) {
			continue // a trace of another version of the scenario
		}
		out = append(out, sim.Fired{At: time.Duration(f.At), Action: sc.Timeline[f.Action], Loops: f.Loops})
	}
	return out
}
