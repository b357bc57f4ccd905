package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// slowSteps are the slow-motion delays +/- step through: how long every
// loop sleeps at each phase boundary.
var slowSteps = []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, time.Second}

// userPause is the gate reason of a pause from the space key; the header
// does not repeat it.
const userPause = "paused by user"

// runState is where the live screen's run stands.
type runState int

const (
	runRunning runState = iota
	runFinished
	runRestarting
	runStopping
	runFailed
)

// RunLive shows one scenario run live until the user quits. newRun is
// called for the first run and again on every restart, with the sink the
// UI's model reads; it must return a session not yet started. RunLive
// returns after the run has shut down and the terminal is restored; an
// error from the first newRun or Start is returned before the terminal is
// taken over.
func RunLive(newRun NewRun, o Options) error {
	if newRun == nil {
		return errors.New("tui: no run")
	}
	mdl := model.New(nil)
	run, err := startRun(newRun, mdl)
	if err != nil {
		return err
	}
	if o.Paused {
		pauseAtStart(run)
	}
	sh := newShell(o)
	v := newLiveView(sh, newRun, run, mdl)
	v.startWatch(run)
	err = sh.run(v)
	// However the app stopped, the run must not outlive it.
	v.restarts.Wait()
	v.mu.Lock()
	last := v.run
	v.mu.Unlock()
	if last != nil {
		stopSession(last, o.stopTimeout())
	}
	v.watchers.Wait()
	if o.Final != nil && last != nil {
		o.Final(last)
	}
	return err
}

// startRun builds and starts a session feeding mdl.
func startRun(newRun NewRun, mdl *model.Model) (Session, error) {
	run, err := newRun(mdl)
	if err != nil {
		return nil, err
	}
	if run == nil {
		return nil, errors.New("tui: newRun returned no session")
	}
	mdl.SetLoops(loopTable(run))
	if err := run.Start(); err != nil {
		return nil, err
	}
	return run, nil
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

type liveView struct {
	sh     *shell
	newRun NewRun

	// mu guards what the restart, quit and watch goroutines change.
	mu        sync.Mutex
	run       Session
	mdl       *model.Model
	state     runState
	err       error
	busy      bool // a restart or quit is under way
	quitAfter bool // quit once the restart is done
	restarts  sync.WaitGroup
	watchers  sync.WaitGroup
	lastDraw  atomic.Int64 // unix ns of the last refresh, for needsRedraw

	// The settings the keys have set, which every new run starts with.
	breaks model.Breaks
	slow   time.Duration // the slow-motion delay

	// The rest belongs to the UI goroutine.
	focus   int
	filter  model.Filter
	frame   *model.Frame
	header  *widgets.Bar
	head    headerParts
	caption captionView
	served  serveRate
	logAt   logScroll
	atBreak map[int]bool // loops parked at a breakpoint in the last frame
	body    *mainPanels
}

func newLiveView(sh *shell, newRun NewRun, run Session, mdl *model.Model) *liveView {
	v := &liveView{sh: sh, newRun: newRun, run: run, mdl: mdl, focus: -1,
		header: widgets.NewBar(sh.th, sh.th.Header), body: newMainPanels(sh.th)}
	v.body.onFocus = func(i int) { v.focus = i }
	return v
}

func (v *liveView) kind() screenKind { return onLive }

func (v *liveView) title() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.run == nil || v.run.Scenario() == nil {
		return "live"
	}
	return "live · " + v.run.Scenario().Name
}

func (v *liveView) scenario() *scenarios.Scenario {
	run, _, _, _ := v.session()
	if run == nil {
		return nil
	}
	return run.Scenario()
}

// startWatch marks the run finished when it ends on its own.
func (v *liveView) startWatch(run Session) {
	v.watchers.Add(1)
	go v.watch(run)
}

func (v *liveView) watch(run Session) {
	defer v.watchers.Done()
	<-run.Done()
	v.mu.Lock()
	if v.run == run && v.state == runRunning {
		v.state = runFinished
	}
	v.mu.Unlock()
	v.sh.redraw()
}

// needsRedraw runs on the ticker goroutine: redraw when events arrived, and
// at least every 100 ms so the clock and the gate states move.
func (v *liveView) needsRedraw() bool {
	v.mu.Lock()
	mdl := v.mdl
	v.mu.Unlock()
	dirty := mdl.TakeDirty()
	return dirty || time.Now().UnixNano()-v.lastDraw.Load() >= int64(100*time.Millisecond)
}

func (v *liveView) session() (Session, *model.Model, runState, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.run, v.mdl, v.state, v.err
}

func (v *liveView) loops() []*reactor.EventLoop {
	run, _, _, _ := v.session()
	if run == nil {
		return nil
	}
	return run.Loops()
}

// refresh takes a frame and hands it to the widgets. Nothing here acts on
// the run: settings go to a run when it starts, and the run holds its own
// clock while its loops are paused.
func (v *liveView) refresh() {
	v.lastDraw.Store(time.Now().UnixNano())
	run, mdl, _, _ := v.session()
	v.frame, v.focus = liveFrame(run, mdl, v.timelineQuery(run))
	if v.followBreakpoint() {
		v.frame, v.focus = liveFrame(run, mdl, v.timelineQuery(run))
		v.followBreakpoint()
	}
	v.setCaption(run)
	if run != nil {
		onRunClock(run, v.frame.Log)
	}
	if !v.logAt.following() {
		v.frame.Log = v.logAt.lines()
	}
	v.body.show(v.frame, v.focus, v.filter, emptyLog(v.filter, "no events yet"))
	v.body.logTitleMore(v.logAt.title(v.sh.th))
	v.setHeader(run)
}

// liveFrame is the frame of a live run: its model's fold, the collector's
// drop count, and the loops' own counters and gates.
func liveFrame(run Session, mdl *model.Model, q model.Query) (*model.Frame, int) {
	set := model.Settings{IORatio: -1}
	if run != nil {
		set.Threshold = run.RebuildThreshold()
		if sc := run.Scenario(); sc != nil && sc.Netty != "" && sc.Netty != scenarios.Netty4143 {
			set.Netty = string(sc.Netty) // the header names the design; the pane flags a non-default one
		}
	}
	f, focus := frameOf(mdl.Snapshot, q, probeOf(run), set)
	if run != nil {
		if d, ok := droppedOf(run); ok {
			f.Dropped = max(f.Dropped, d)
		}
	}
	return f, focus
}

// timelineQuery is the frame's query with the timeline's window ending
// where the run stands.
func (v *liveView) timelineQuery(run Session) model.Query {
	q := v.query()
	q.Timeline.End = v.timelineEnd(run)
	return q
}

func (v *liveView) query() model.Query {
	return model.Query{Focus: v.focus, Head: detailHead, Log: max(v.body.logRows, minLogQuery), Filter: v.filter,
		Timeline: v.body.tl.query()}
}

// followBreakpoint moves the focus to a loop that has just stopped at a
// breakpoint, so the detail pane shows what made it stop. It reports
// whether the focus moved.
func (v *liveView) followBreakpoint() bool {
	if v.atBreak == nil {
		v.atBreak = map[int]bool{}
	}
	moved := false
	for _, r := range v.frame.Rows {
		hit := model.AtBreakpoint(r)
		if hit && !v.atBreak[r.Index] && r.Index != v.focus && !moved {
			v.focus, moved = r.Index, true
		}
		v.atBreak[r.Index] = hit
	}
	return moved
}

// setCaption takes the caption for the run clock and flashes the rows of
// the loops a timeline action just reached.
func (v *liveView) setCaption(run Session) {
	if run == nil {
		v.caption = captionView{}
		return
	}
	var fired []sim.Fired
	if fs, ok := run.(firedSession); ok {
		fired = fs.Fired()
	}
	now := run.Elapsed()
	v.caption = captionAt(run.Scenario(), fired, now)
	flashLoops(v.frame, fired, now)
}

// emptyLog is what the log says when it has nothing to show.
func emptyLog(f model.Filter, none string) string {
	if !f.Empty() {
		return "no event matches the filter " + strconv.Quote(f.String()) + ": / changes it, an empty filter shows all"
	}
	return none
}

// setHeader gathers the top bar: what runs, whether it is paused and why,
// the clock, the speed, the throughput and the drops.
func (v *liveView) setHeader(run Session) {
	_, _, state, err := v.session()
	h := headerParts{brand: "reactorviz", status: v.status(state, err)}
	if run != nil && run.Scenario() != nil {
		sc := run.Scenario()
		h.what = sc.Name + " · " + string(sc.Model)
		if m := scenarioMode(sc); m != "" {
			h.what += " · " + m
		}
		if sc.Netty != "" && sc.Netty != scenarios.Netty4143 {
			h.what += " · netty " + string(sc.Netty)
		}
	}
	if run != nil {
		clock := model.ClockTenths(int64(run.Elapsed()))
		if d := run.Duration(); d > 0 {
			clock += "/" + model.ClockTenths(int64(d))
		}
		h.right = append(h.right, clock)
		if v.sh.opts.Serve {
			v.served.note(time.Now(), v.frame, answeredOf(run))
			if what, right, ok := serveWhat(run, v.frame, v.served); ok {
				h.what = what
				h.right = append(h.right, right...)
			}
		}
		if v.frame != nil && v.frame.Dropped > 0 {
			h.right = append(h.right, "drop "+model.Count(int64(v.frame.Dropped)))
		}
		h.right = append(h.right, v.speed())
		if c := v.frame.Clients; c.Requests > 0 {
			h.right = append(h.right, model.Count(int64(c.ThroughputRPS))+" rps")
		}
	}
	v.head = h
}

// status is the header's running/paused word with the reason for a pause.
func (v *liveView) status(state runState, err error) string {
	switch state {
	case runFinished:
		return "■ FINISHED" + v.expectations()
	case runRestarting:
		return "↻ RESTARTING…"
	case runStopping:
		return "■ STOPPING…"
	case runFailed:
		return "✗ FAILED: " + errText(err)
	}
	paused, total := 0, 0
	reason := ""
	for _, r := range v.frame.Rows {
		if r.State >= trace.StateShuttingDown {
			continue
		}
		total++
		if r.Pause == model.PauseRunning {
			continue
		}
		paused++
		// A breakpoint that fired says most; else the focused loop's reason.
		switch {
		case strings.HasPrefix(r.PauseReason, "breakpoint") && !strings.HasPrefix(reason, "breakpoint"):
			reason = r.PauseReason + " (" + r.Name + ")"
		case reason == "" && r.Index == v.focus && r.PauseReason != userPause:
			reason = r.PauseReason
		}
	}
	var s string
	switch {
	case paused == 0:
		return "▶ RUNNING"
	case paused == total:
		s = "⏸ PAUSED"
	default:
		s = "⏸ " + strconv.Itoa(paused) + "/" + strconv.Itoa(total) + " PAUSED"
	}
	if reason != "" {
		s += " · " + reason
	}
	return s
}

func (v *liveView) expectations() string {
	run, _, _, _ := v.session()
	if run == nil {
		return ""
	}
	s := run.Summary()
	if s == nil || len(s.Expect) == 0 {
		return ""
	}
	return fmt.Sprintf(" · expect %d/%d ok", len(s.Expect)-s.Failed(), len(s.Expect))
}

func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// speed is the slow-motion delay in force.
func (v *liveView) speed() string {
	d := v.slow
	if d == 0 {
		return "1×"
	}
	return "slow " + model.Duration(int64(d))
}

func (v *liveView) draw(scr tcell.Screen, x, y, w, h int) {
	v.header.Set(v.head.segs(w, v.sh.th))
	v.header.SetRect(x, y, w, 1)
	v.header.Draw(scr)
	ch := captionRows(v.caption, w, h)
	drawCaption(scr, v.sh.th, v.caption, x, y+1, w, ch)
	v.body.draw(scr, x, y+1+ch, w, h-1-ch)
}

func (v *liveView) mouse(action tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) bool {
	return v.body.mouse(action, ev, setFocus)
}

func (v *liveView) focused() *reactor.EventLoop {
	loops := v.loops()
	if v.focus >= 0 && v.focus < len(loops) {
		return loops[v.focus]
	}
	return nil
}

func (v *liveView) act(a action) {
	switch a {
	case actPauseAll:
		v.pauseAll()
	case actStep:
		if l := v.focused(); l != nil {
			stepOrPause(l, l.Step)
		}
	case actStepIter:
		if l := v.focused(); l != nil {
			stepOrPause(l, l.StepIteration)
		}
	case actStepAll:
		for _, l := range v.loops() {
			stepOrPause(l, l.Step)
		}
	case actBreaks:
		v.sh.openMenu(widgets.NewCheckMenu(v.sh.th, "breakpoints (every loop)",
			"space toggles · ←→ or digits set N · esc closes", breakItems(v.breaks)),
			func(items []widgets.MenuItem) {
				v.setBreaks(breaksOf(items))
			})
	case actFaster, actSlower:
		v.changeSpeed(a == actFaster)
	case actNextLoop:
		v.focus = focusStep(v.frame.Snapshot, v.focus, 1)
	case actPrevLoop:
		v.focus = focusStep(v.frame.Snapshot, v.focus, -1)
	case actFilter:
		v.sh.openPrompt("filter (loop, kind, words of the details): ", v.filter.String(), func(s string) {
			v.filter = model.ParseFilter(s)
			v.logAt.follow()
		})
	case actLogOlder, actLogNewer, actLogOldest, actLogLatest:
		v.scrollLog(a)
	case actRestart:
		v.restart()
	case actQuit:
		v.quit()
	default:
		v.body.tl.act(a)
	}
}

// stepOrPause runs step on a paused loop; a running loop is paused first
// instead, so a step key always leaves the loop parked where it can be
// looked at.
func stepOrPause(l *reactor.EventLoop, step func()) {
	if l.GateStatus().Paused {
		step()
	} else {
		l.Pause("step")
	}
}

// pauseAll pauses every loop, or resumes them all when all are paused.
func (v *liveView) pauseAll() {
	loops := v.loops()
	paused := false
	for _, l := range loops {
		if l.GateStatus().Paused && l.State() < trace.StateShuttingDown {
			paused = true
		}
	}
	// One press always does the obvious thing: if anything is stopped (a
	// breakpoint stops one loop), everything runs again; else all pause.
	for _, l := range loops {
		if paused {
			l.Resume()
		} else {
			l.Pause(userPause)
		}
	}
}

func (v *liveView) changeSpeed(faster bool) {
	cur := v.slow
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
	v.mu.Lock()
	defer v.mu.Unlock()
	v.slow = slowSteps[i]
	if v.run != nil {
		setSlowMotion(v.run.Loops(), v.slow)
	}
}

// setBreaks keeps new breakpoints for every later run and gives them to
// the current one. Under the lock, so a restart under way gives its new
// run either these or, if it got there first, has its run given them here.
func (v *liveView) setBreaks(b model.Breaks) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.breaks = b
	if v.run != nil {
		applyBreaks(v.run.Loops(), b)
	}
}

// applySettings gives a run that starts the breakpoints and the speed the
// keys have set. Called with v.mu held.
func (v *liveView) applySettings(run Session) {
	applyBreaks(run.Loops(), v.breaks)
	setSlowMotion(run.Loops(), v.slow)
}

func setSlowMotion(loops []*reactor.EventLoop, d time.Duration) {
	for _, l := range loops {
		l.SetSlowMotion(d)
	}
}

func breakItems(b model.Breaks) []widgets.MenuItem {
	return []widgets.MenuItem{
		{Label: "selector rebuilt (C10)", On: b.Rebuild},
		{Label: "premature select return (C9)", On: b.Premature},
		{Label: "64-task deadline hit (C15)", On: b.DeadlineHit},
		{Label: "wakeup written (C11)", On: b.Wakeup},
		{Label: "task or handler panic", On: b.TaskPanic},
		{Label: "task queue above", Numeric: true, Value: b.QueueAbove},
	}
}

func breaksOf(items []widgets.MenuItem) model.Breaks {
	var b model.Breaks
	if len(items) < 6 {
		return b
	}
	b.Rebuild, b.Premature, b.DeadlineHit = items[0].On, items[1].On, items[2].On
	b.Wakeup, b.TaskPanic, b.QueueAbove = items[3].On, items[4].On, items[5].Value
	return b
}

func applyBreaks(loops []*reactor.EventLoop, b model.Breaks) {
	for _, l := range loops {
		l.SetBreakpoints(b)
	}
}

// restart shuts the run down and starts a fresh one on a goroutine, so the
// UI keeps drawing (the old run's shutdown can take seconds).
func (v *liveView) restart() {
	v.mu.Lock()
	if v.busy {
		v.mu.Unlock()
		return
	}
	v.busy, v.state = true, runRestarting
	old := v.run
	v.mu.Unlock()
	timeout := v.sh.opts.stopTimeout()
	v.restarts.Add(1)
	go func() {
		defer v.restarts.Done()
		if old != nil {
			stopSession(old, timeout)
		}
		mdl := model.New(nil)
		run, err := startRun(v.newRun, mdl)
		if err == nil {
			v.startWatch(run)
		}
		v.mu.Lock()
		v.busy = false
		if err != nil {
			v.run, v.state, v.err = nil, runFailed, err
		} else {
			v.applySettings(run)
			if v.sh.opts.Paused {
				pauseAtStart(run)
			}
			v.run, v.mdl, v.state, v.err = run, mdl, runRunning, nil
		}
		quit := v.quitAfter
		v.mu.Unlock()
		v.sh.redraw()
		if quit {
			v.shutdown(run, timeout)
		}
	}()
}

// quit shuts the run down gracefully, then stops the app.
func (v *liveView) quit() {
	v.mu.Lock()
	if v.busy {
		v.quitAfter = true
		v.mu.Unlock()
		return
	}
	v.busy, v.state = true, runStopping
	run := v.run
	v.mu.Unlock()
	timeout := v.sh.opts.stopTimeout()
	v.restarts.Add(1)
	go func() {
		defer v.restarts.Done()
		v.shutdown(run, timeout)
	}()
}

func (v *liveView) shutdown(run Session, timeout time.Duration) {
	if run != nil {
		v.sh.redraw()
		stopSession(run, timeout)
	}
	v.sh.stop()
}
