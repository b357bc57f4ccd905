package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
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
	r, err := startRunner(newRun, o)
	if err != nil {
		return err
	}
	sh := newShell(o)
	r.attach(sh.redraw, sh.stop)
	err = sh.run(newLiveView(sh, r))
	// However the app stopped, the run must not outlive it.
	last := r.close()
	if o.Final != nil && last != nil {
		o.Final(last)
	}
	return err
}

// liveView shows the run its runner holds: a frame of the run's model,
// the caption, the header. The keys that act on the run (pause,
// step, speed, breakpoints, restart, quit) are the runner's verbs.
type liveView struct {
	r        *runner
	lastDraw atomic.Int64 // unix ns of the last refresh, for needsRedraw
	// drawnEvents is how many events the model had folded at the last
	// refresh, for needsRedraw.
	drawnEvents atomic.Uint64

	// The rest belongs to the UI goroutine.
	panelsScreen
	head    headerParts
	served  serveRate
	logAt   logScroll
	atBreak map[int]bool // loops parked at a breakpoint in the last frame
}

func newLiveView(sh *shell, r *runner) *liveView {
	v := &liveView{r: r, panelsScreen: newPanelsScreen(sh)}
	v.body.onFocus = func(i int) { v.focus = i }
	return v
}

func (v *liveView) kind() screenKind { return onLive }

func (v *liveView) title() string {
	if sc := v.scenario(); sc != nil {
		return "live · " + sc.Name
	}
	return "live"
}

func (v *liveView) scenario() *scenarios.Scenario {
	run, _, _, _ := v.r.current()
	if run == nil {
		return nil
	}
	return run.Scenario()
}

// idleFrame is the longest the live screen goes without a frame, so the
// clock and the gate states move; floodFrame the shortest between two
// frames while events flood in.
const (
	idleFrame  = 100 * time.Millisecond
	floodFrame = 100 * time.Millisecond
)

// floodRate is the rate of events, per second, from which the live screen
// draws at most one frame per floodFrame. At that rate the log turns over
// thousands of lines between two frames, far faster than it can be read,
// and a frame costs the CPU the loops are short of: under serve with wrk
// the UI shares the server's cores, and a frame costs a millisecond or
// two. Below it, the screen redraws at the ticker's rate (30 a second).
const floodRate = 50_000

// needsRedraw runs on the ticker goroutine: redraw when events arrived, no
// more often than floodFrame while they flood in, and at least every
// idleFrame.
func (v *liveView) needsRedraw() bool {
	_, mdl, _, _ := v.r.current()
	since := time.Duration(time.Now().UnixNano() - v.lastDraw.Load())
	if since < floodFrame && flooding(mdl.Events()-v.drawnEvents.Load(), since) {
		// Leave the model dirty: the frame is only put off.
		return false
	}
	dirty := mdl.TakeDirty()
	return dirty || since >= idleFrame
}

// flooding reports whether n events in d come faster than floodRate. A
// restart's fresh model counts from zero again: n then wraps round to a
// huge number, and is no flood.
func flooding(n uint64, d time.Duration) bool {
	return n < 1<<62 && float64(n) >= floodRate*max(d.Seconds(), 1e-3)
}

// refresh takes a frame and hands it to the widgets. Nothing here acts on
// the run: settings go to a run when it starts, and the run holds its own
// clock while its loops are paused.
func (v *liveView) refresh() {
	v.lastDraw.Store(time.Now().UnixNano())
	run, mdl, state, err := v.r.current() // once: a restart between two reads would mix two runs
	v.drawnEvents.Store(mdl.Events())
	at := liveMoment(run, mdl)
	v.frame, v.focus, v.caption = at.frame(v.timelineQuery(run))
	if v.followBreakpoint(run) {
		v.frame, v.focus, v.caption = at.frame(v.timelineQuery(run))
		v.followBreakpoint(run)
	}
	if v.showFrame(at.sc, v.logAt.lines(), emptyLog(v.filter, "no events yet"),
		"no event of the followed item in the log (f stops following)") {
		v.body.logTitleMore(v.logAt.title(v.sh.th))
	}
	v.setHeader(run, at.sc, state, err)
	v.pager.moving = state == runRunning && v.anyRunning()
}

// anyRunning reports whether a loop of the frame runs: not stopped at its
// gate, not shut down.
func (v *liveView) anyRunning() bool {
	for _, r := range v.frame.Rows {
		if r.State < trace.StateShuttingDown && r.Pause == model.PauseRunning {
			return true
		}
	}
	return false
}

// timelineQuery is the frame's query with the timeline's window ending
// where the run stands, on the run's clock.
func (v *liveView) timelineQuery(run Session) model.Query {
	var origin int64
	if run != nil {
		origin = runStart(run)
	}
	return v.body.query(v.focus, v.filter, v.follow, v.timelineEnd(run), origin)
}

// followBreakpoint moves the focus to a loop that has just stopped at a
// breakpoint, so the detail pane shows what made it stop. It reports
// whether the focus moved.
func (v *liveView) followBreakpoint(run Session) bool {
	if v.atBreak == nil {
		v.atBreak = map[int]bool{}
	}
	moved, anyHit := false, false
	for _, r := range v.frame.Rows {
		hit := model.AtBreakpoint(r)
		if hit && !v.atBreak[r.Index] {
			v.pinTimeline(run)
			if r.Index != v.focus && !moved {
				v.focus, moved = r.Index, true
			}
		}
		anyHit = anyHit || hit
		v.atBreak[r.Index] = hit
	}
	if !anyHit && !v.ending() {
		// Resumed or stepped past the breakpoint: back to now. A run that
		// ends while a loop stands there (shutdown lets its gate go)
		// keeps the window on the stop, as it was, until a key moves it.
		v.body.tl.pin = 0
	}
	return moved
}

// ending reports whether the run is shutting down or over: a loop of the
// frame has begun its shutdown.
func (v *liveView) ending() bool {
	for _, r := range v.frame.Rows {
		if r.State >= trace.StateShuttingDown {
			return true
		}
	}
	return false
}

// goTo puts the timeline's cursor on a run clock time typed by the user,
// with the window around it.
func (v *liveView) goTo(s string) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	run, _, _, _ := v.r.current()
	if err != nil || d < 0 || run == nil {
		v.sh.say("cannot go to " + strconv.Quote(s) + ": give a run time such as 5s")
		return
	}
	tl := &v.body.tl
	// now is where the unscrolled window ends, on the run clock.
	now := int64(run.Elapsed())
	if tl.end > 0 {
		now = tl.end - tl.origin
	}
	t := min(int64(d), now)
	span := tl.span()
	tl.pin = 0
	tl.back = max(now-t-span/2, 0)
	// The cursor's column: where t falls in the window that ends back ns
	// before now.
	start := now - tl.back - span
	tl.cursorOn = true
	tl.cursor = min(max(int((t-start)*int64(max(tl.cols, 1))/span), 0), max(tl.cols-1, 0))
}

// pinTimeline holds the timeline's window where a loop just stopped at a
// breakpoint, an eighth of a window past now, so the stop's mark stays in
// view while the other loops and the clock run on.
func (v *liveView) pinTimeline(run Session) {
	if run == nil || v.body.tl.pin > 0 {
		return
	}
	v.body.tl.back = 0
	v.body.tl.pin = run.TraceNow() + v.body.tl.span()/8
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
func (v *liveView) setHeader(run Session, sc *scenarios.Scenario, state runState, err error) {
	h := headerParts{brand: "reactorviz", status: v.status(run, state, err)}
	if sc != nil {
		h.what = runWhat(sc.Name, string(sc.Model), modeText(string(sc.Loop.Selector), string(sc.Loop.Trigger)), v.frame.Settings.Netty)
	}
	if run != nil {
		clock := model.ClockTenths(int64(run.Elapsed()))
		if d := run.Duration(); d > 0 {
			clock += "/" + model.ClockTenths(int64(d))
		}
		h.right = append(h.right, clock)
		if v.sh.opts.Serve {
			v.served.note(time.Now(), v.frame, run.Answered())
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
func (v *liveView) status(run Session, state runState, err error) string {
	held := run != nil && run.ClockHeld()
	switch state {
	case runFinished:
		return "■ FINISHED" + expectations(run)
	case runRestarting:
		return "↻ RESTARTING…"
	case runStopping:
		return "■ STOPPING…"
	case runFailed:
		return "✗ FAILED: " + errText(err)
	}
	paused, total := 0, 0
	reason, byBreak := "", false
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
		case r.Break != counters.NoBreak && !byBreak:
			reason, byBreak = r.PauseReason+" ("+r.Name+")", true
		case reason == "" && r.Index == v.focus && r.PauseReason != userPause:
			reason = r.PauseReason
		}
	}
	var s string
	switch {
	case paused == 0 && held && total == 0:
		// Every loop is shutting down or gone: none parks, and what is
		// left waits on the held clock.
		return "⏸ PAUSED · the clock is held: the shutdown waits"
	case paused == 0 && held:
		// Held, as space holds it, before the loops have parked: the
		// same predicate space reads, so the header and the key agree.
		return "⏸ PAUSED"
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

func expectations(run Session) string {
	if run == nil {
		return ""
	}
	s := run.Summary()
	if s == nil || len(s.Expect) == 0 {
		return ""
	}
	return fmt.Sprintf(" · expect %d/%d ok", len(s.Expect)-s.Failed(), len(s.Expect))
}

// speed is the slow-motion delay in force.
func (v *liveView) speed() string {
	_, d := v.r.settings()
	if d == 0 {
		return "1×"
	}
	return "slow " + model.Duration(int64(d))
}

func (v *liveView) draw(scr tcell.Screen, x, y, w, h int) {
	v.header.Set(v.head.segs(w, v.sh.th))
	v.header.SetRect(x, y, w, 1)
	v.header.Draw(scr)
	v.drawBody(scr, x, y+1, w, h, 1)
}

func (v *liveView) act(a action) {
	switch a {
	case actPauseAll:
		v.r.pauseAll()
	case actStep, actStepIter:
		v.r.stepOrPause(v.focus, a == actStepIter) // no loop focused: nothing
	case actStepAll:
		v.r.stepAll()
	case actBreaks:
		b, _ := v.r.settings()
		v.sh.openBreakMenu("breakpoints (every loop)", b, v.r.setBreaks)
	case actFaster, actSlower:
		v.r.changeSpeed(a == actFaster)
	case actFilter:
		v.sh.openPrompt("filter (loop, kind, words of the details): ", v.filter.String(), func(s string) {
			v.filter = model.ParseFilter(s)
			v.logAt.follow()
		})
	case actLogOlder, actLogNewer, actLogOldest, actLogLatest:
		v.scrollLog(a)
	case actSliceBack, actSliceFwd:
		v.body.tl.moveBySlice(v.frame, v.focus, a == actSliceFwd)
	case actGoto:
		v.sh.openPrompt("go to run time (5s, 1m2.5s): ", "", v.goTo)
	case actRestart:
		v.r.restart()
	case actQuit:
		v.r.quit()
	default:
		v.actOnPanels(a)
	}
}
