package tui

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tui/model"
)

// The runners own the life of the runs the screens show: they start them,
// stop them, restart them and quit, on goroutines of their own, so the UI
// goroutine keeps drawing through a graceful shutdown that can take
// seconds. A screen reads what its runner holds and sends it commands; no
// screen starts a goroutine.

// runState is where the live screen's run stands.
type runState int

const (
	runRunning runState = iota
	runFinished
	runRestarting
	runStopping
	runFailed
)

// runner drives the runs of the live screen (run and serve): the first,
// one per restart, and the shutdown of the last on quit. Every new run
// starts with the breakpoints and the speed the keys have set.
type runner struct {
	newRun  NewRun
	paused  bool          // open every run paused at its start
	timeout time.Duration // bounds a graceful shutdown
	changed func()        // asks for a redraw; any goroutine
	stopApp func()        // ends the app once quit has stopped the run

	mu        sync.Mutex
	run       Session
	mdl       *model.Model
	state     runState
	err       error
	busy      bool // a restart or quit is under way
	quitAfter bool // quit once the restart is done
	breaks    model.Breaks
	slow      time.Duration // the slow-motion delay

	work     sync.WaitGroup // restarts and quits
	watchers sync.WaitGroup // one per run, until it ends
}

// startRunner builds and starts the first run before the terminal is
// taken over, so that its error is the caller's.
func startRunner(newRun NewRun, o Options) (*runner, error) {
	r := &runner{newRun: newRun, paused: o.Paused, timeout: o.stopTimeout(), changed: func() {}, stopApp: func() {}}
	var err error
	r.run, r.mdl, err = r.startOne()
	return r, err
}

// attach ties the runner to the app that shows it and starts watching the
// first run.
func (r *runner) attach(changed, stopApp func()) {
	r.changed, r.stopApp = changed, stopApp
	r.watch(r.run)
}

// startOne builds a run feeding a fresh model, starts it, and opens it
// paused when asked to.
func (r *runner) startOne() (Session, *model.Model, error) {
	mdl := model.New(nil)
	run, err := startRun(r.newRun, mdl)
	if err == nil && r.paused {
		pauseAtStart(run)
	}
	return run, mdl, err
}

// startRun builds and starts a session feeding mdl.
func startRun(newRun NewRun, mdl *model.Model) (Session, error) {
	run, err := newRun(mdl)
	switch {
	case err != nil:
		return nil, err
	case run == nil:
		return nil, errors.New("tui: newRun returned no session")
	}
	mdl.SetLoops(run.LoopTable())
	return run, run.Start()
}

// startPause is the gate reason of a run opened paused; the header shows
// it, so it says what to do.
const startPause = "at the start: space runs, n steps"

// pauseAtStart parks every loop at its next step gate as soon as the run
// has started, and holds the run clock there, so the timeline and the
// captions wait too. A loop that has no thread yet parks at its first
// boundary once it starts. space lets the loops and the clock go.
func pauseAtStart(run Session) {
	run.HoldClock(true)
	for _, l := range run.Loops() {
		l.PauseRun(startPause)
	}
	run.Sample()
}

// runStart is the zero of a run's clock on its events' clock: its start,
// moved on by the time the run was held.
func runStart(run Session) int64 {
	now := run.TraceNow()
	return now - int64(run.ClockMap()(now))
}

// stopSession ends a run gracefully and waits for it, up to timeout.
func stopSession(run Session, timeout time.Duration) bool {
	run.Stop()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-run.Done():
		return true
	case <-t.C:
		return false
	}
}

// watch marks the run finished when it ends on its own.
func (r *runner) watch(run Session) {
	r.watchers.Add(1)
	go func() {
		defer r.watchers.Done()
		<-run.Done()
		r.mu.Lock()
		if r.run == run && r.state == runRunning {
			r.state = runFinished
		}
		r.mu.Unlock()
		r.changed()
	}()
}

// current is the run the screen shows, its model and where it stands.
func (r *runner) current() (Session, *model.Model, runState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run, r.mdl, r.state, r.err
}

// setBreaks keeps breakpoints for every later run and gives them to the
// current one. Under the lock, so a restart under way gives its new run
// either these or, if it got there first, has its run given them here.
func (r *runner) setBreaks(b model.Breaks) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.breaks = b
	if r.run != nil {
		applyBreaks(r.run, b)
	}
}

// setSlowMotion keeps the slow-motion delay for every later run and sets
// it on the current one.
func (r *runner) setSlowMotion(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.slow = d
	if r.run != nil {
		setSlowMotion(r.run, d)
	}
}

// settings are the breakpoints and the speed the keys have set.
func (r *runner) settings() (model.Breaks, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.breaks, r.slow
}

// The run control the keys ask for: pause and resume, step, speed. Each
// acts on the run the runner holds now; none needs a screen.

// userPause is the gate reason of a pause of the whole run (space); the
// live screen's header does not repeat it.
const userPause = "paused by user"

// slowSteps are the slow-motion delays changeSpeed steps through: how long
// every loop sleeps at each phase boundary.
var slowSteps = []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, time.Second}

// pauseAll pauses the whole run, or lets it all run on. Paused, every loop
// stops at its next phase boundary and the run clock stands still, which
// stops the timeline, the clients and the wheel too.
func (r *runner) pauseAll() {
	run, _, _, _ := r.current()
	if run == nil {
		return
	}
	loops := run.Loops()
	// A held clock is a paused run even when no loop is parked: a loop
	// shutting down never parks, it waits on the clock.
	paused := run.ClockHeld()
	for _, l := range loops {
		if l.GateStatus().Paused && l.State() < trace.StateShuttingDown {
			paused = true
		}
	}
	// One press always does the obvious thing: if anything is stopped (a
	// breakpoint stops one loop), everything runs again; else all pause.
	// The clock stops first: the picture stands still at once, and a loop
	// asleep in select is woken to park (PauseRun). It runs again after
	// the loops are let go.
	if !paused {
		run.HoldClock(true)
	}
	for _, l := range loops {
		if paused {
			l.Resume()
		} else {
			l.PauseRun(userPause)
		}
	}
	if paused {
		run.HoldClock(false)
	}
	run.Sample()
}

// stepOrPause steps loop i of the run to its next phase boundary, or with
// iteration to the start of its next iteration, when it is paused; a
// running loop is paused instead, so a step key always leaves the loop
// parked where it can be looked at. The step goes through the run, which
// lets a held clock run for just the stepped phase; a loop paused on its
// own does not hold it.
func (r *runner) stepOrPause(i int, iteration bool) {
	run, _, _, _ := r.current()
	if run == nil {
		return
	}
	stepOrPause(run, i, iteration)
}

// stepAll steps, or pauses, every loop of the run, as stepOrPause does one.
func (r *runner) stepAll() {
	run, _, _, _ := r.current()
	if run == nil {
		return
	}
	for i := range run.Loops() {
		stepOrPause(run, i, false)
	}
}

func stepOrPause(run Session, i int, iteration bool) {
	loops := run.Loops()
	if i < 0 || i >= len(loops) {
		return
	}
	l := loops[i]
	if !l.GateStatus().Paused {
		l.Pause("step")
		run.Sample()
		return
	}
	step := l.Step
	if iteration {
		step = l.StepIteration
	}
	run.Step(i, step)
}

// changeSpeed moves the slow-motion delay one step of slowSteps down
// (faster) or up; a delay between two steps goes to the nearest one that
// way.
func (r *runner) changeSpeed(faster bool) {
	_, cur := r.settings()
	i := 0
	for i < len(slowSteps)-1 && slowSteps[i] < cur {
		i++
	}
	switch {
	case faster && i > 0:
		i--
	case !faster && slowSteps[i] == cur && i < len(slowSteps)-1:
		i++
	}
	r.setSlowMotion(slowSteps[i])
}

func applyBreaks(run Session, b model.Breaks) {
	for _, l := range run.Loops() {
		l.SetBreakpoints(b)
	}
}

func setSlowMotion(run Session, d time.Duration) {
	for _, l := range run.Loops() {
		l.SetSlowMotion(d)
	}
}

// restart shuts the run down and starts a fresh one. A restart or quit
// already under way wins.
func (r *runner) restart() {
	r.mu.Lock()
	if r.busy {
		r.mu.Unlock()
		return
	}
	r.busy, r.state = true, runRestarting
	old := r.run
	r.mu.Unlock()
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		if old != nil {
			stopSession(old, r.timeout)
		}
		run, mdl, err := r.startOne()
		if err == nil {
			r.watch(run)
		}
		r.mu.Lock()
		r.busy = false
		if err != nil {
			r.run, r.state, r.err = nil, runFailed, err
		} else {
			applyBreaks(run, r.breaks)
			setSlowMotion(run, r.slow)
			r.run, r.mdl, r.state, r.err = run, mdl, runRunning, nil
		}
		quit := r.quitAfter
		r.mu.Unlock()
		r.changed()
		if quit {
			r.shutdown(run)
		}
	}()
}

// quit shuts the run down gracefully, then stops the app; during a restart
// it does so once the new run has started.
func (r *runner) quit() {
	r.mu.Lock()
	if r.busy {
		r.quitAfter = true
		r.mu.Unlock()
		return
	}
	r.busy, r.state = true, runStopping
	run := r.run
	r.mu.Unlock()
	r.work.Add(1)
	go func() {
		defer r.work.Done()
		r.shutdown(run)
	}()
}

func (r *runner) shutdown(run Session) {
	if run != nil {
		r.changed()
		stopSession(run, r.timeout)
	}
	r.stopApp()
}

// close makes sure no run outlives the app, however the app stopped, and
// returns the last run.
func (r *runner) close() Session {
	r.work.Wait()
	r.mu.Lock()
	last := r.run
	r.mu.Unlock()
	if last != nil {
		stopSession(last, r.timeout)
	}
	r.watchers.Wait()
	return last
}

// compareRunner runs the models of the compare screen one after another,
// so the runs do not compete for the CPU, and keeps each model's column:
// live numbers while it runs, frozen ones and its recording after.
type compareRunner struct {
	newRun  NewModelRun
	judge   func([]*sim.Summary) compare.Judgement // the verdict once all have run; nil for none
	timeout time.Duration
	changed func()

	skipCh   chan struct{}
	quitCh   chan struct{}
	quitOnce sync.Once
	quitting atomic.Bool
	driver   sync.WaitGroup

	mu      sync.Mutex
	cols    []column
	done    bool
	verdict compare.Judgement
}

// startCompare starts running the models in turn, on the runner's own
// goroutine; changed asks for a redraw.
func startCompare(models []string, newRun NewModelRun, judge func([]*sim.Summary) compare.Judgement, o Options, changed func()) *compareRunner {
	c := &compareRunner{newRun: newRun, judge: judge, timeout: o.stopTimeout(), changed: changed,
		skipCh: make(chan struct{}, 1), quitCh: make(chan struct{})}
	for _, m := range models {
		c.cols = append(c.cols, column{model: m})
	}
	c.driver.Add(1)
	go func() {
		defer c.driver.Done()
		c.drive()
	}()
	return c
}

func (c *compareRunner) drive() {
	for i := range c.cols {
		select {
		case <-c.quitCh:
			return
		default:
		}
		c.runOne(i)
		c.changed()
	}
	c.mu.Lock()
	c.done = true
	c.verdict = c.judgeLocked()
	c.mu.Unlock()
	c.changed()
}

// judgeLocked computes the verdict once every model has a summary: the
// line the headless compare prints, from the same figures (compare.Judge).
// A model that failed to start leaves no verdict. c.mu is held.
func (c *compareRunner) judgeLocked() compare.Judgement {
	if c.judge == nil {
		return compare.Judgement{}
	}
	sums := make([]*sim.Summary, 0, len(c.cols))
	for _, col := range c.cols {
		if col.summary == nil {
			return compare.Judgement{}
		}
		sums = append(sums, col.summary)
	}
	return c.judge(sums)
}

func (c *compareRunner) runOne(i int) {
	c.mu.Lock()
	name := c.cols[i].model
	c.mu.Unlock()
	mdl := model.New(nil)
	rec := &recorder{}
	run, err := startRun(func(trace.Sink) (Session, error) { return c.newRun(name, tee{mdl: mdl, rec: rec}) }, mdl)
	c.mu.Lock()
	if err != nil {
		c.cols[i].state, c.cols[i].err = colFailed, err
		c.mu.Unlock()
		return
	}
	c.cols[i].state, c.cols[i].run, c.cols[i].mdl, c.cols[i].total = colRunning, run, mdl, run.Duration()
	c.mu.Unlock()
	c.changed()

	state := colSkipped
	select {
	case <-run.Done():
		state = colFinished
	case <-c.skipCh:
	case <-c.quitCh:
	}
	if state == colSkipped {
		stopSession(run, c.timeout)
	}
	// A skip pressed while this run was ending (or again while it shut
	// down) meant this model; left in the channel it would skip the next.
	select {
	case <-c.skipCh:
	default:
	}
	// Freeze the column with the run's last numbers.
	s := sampleColumn(run, mdl)
	c.mu.Lock()
	col := &c.cols[i]
	col.elapsed, col.clients, col.stats = s.elapsed, s.clients, s.stats
	col.summary = run.Summary()
	col.state, col.run = state, nil
	col.rec = recording{model: name, loops: run.LoopTable()}
	if col.summary != nil {
		col.rec.windows, col.rec.worst = col.summary.Measured.Windows, col.summary.Clients.LatencyUS.WorstWindow
	}
	col.rec.events, col.rec.samples, col.rec.cut = rec.take()
	// The lockstep replay draws the same moment of every run's workload
	// at once.
	col.rec.start = runStart(run)
	c.mu.Unlock()
}

// columns copies the columns into dst, and says whether every model has
// run and what was concluded.
func (c *compareRunner) columns(dst []column) ([]column, bool, compare.Judgement) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append(dst[:0], c.cols...), c.done, c.verdict
}

// running reports whether a model runs now.
func (c *compareRunner) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, col := range c.cols {
		if col.state == colRunning {
			return true
		}
	}
	return false
}

// skip stops the running model early; the next one starts.
func (c *compareRunner) skip() {
	select {
	case c.skipCh <- struct{}{}:
	default:
	}
}

// quit stops the running model gracefully, then the app. It reports false
// when a quit is already under way.
func (c *compareRunner) quit(stopApp func()) bool {
	if !c.quitting.CompareAndSwap(false, true) {
		return false
	}
	go func() {
		c.close()
		stopApp()
	}()
	return true
}

// close stops the driver and waits for it.
func (c *compareRunner) close() {
	c.quitOnce.Do(func() { close(c.quitCh) })
	c.driver.Wait()
}
