package tui

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// replaySpeeds are the play speeds +/- step through, as multiples of the
// recorded pace.
var replaySpeeds = []float64{0.25, 0.5, 1, 2, 4, 8}

// recordedPace is the index of 1× in replaySpeeds, where a replay starts.
const recordedPace = 2

// replayPage is how far PgUp/PgDn move, in events.
const replayPage = 1000

// RunReplayTrace shows a trace already read (ReadReplay), for a caller
// that reads it itself within limits (the command line refuses a bad or
// oversized file before the screen opens, with the exit code the headless
// replay gives); cut, if not nil, says where a trace cut short ends, and
// the footer says why. A non-empty banner marks a built-in recording
// (package recordings): the header says RECORDING rather than REPLAY and
// shows the banner, since what the learner watches is not a run of this
// machine.
func RunReplayTrace(tr *jsonl.Trace, cut error, name, banner string, o Options) error {
	sh := newShell(o)
	v := newReplayView(sh, filepath.Base(name), tr.Header, newReplay(tr))
	v.banner = banner
	if cut != nil {
		sh.say(errText(cut))
	}
	return sh.run(v)
}

type replayView struct {
	panelsScreen
	name   string
	banner string // set for a built-in recording: the header says so
	hdr    jsonl.Header
	rep    *model.Replay

	playing   atomic.Bool // read by the ticker goroutine
	speed     int         // index into replaySpeeds
	playWall  time.Time   // when playing started, or the speed last changed
	playTrace int64       // the trace time at playWall
	quitting  atomic.Bool

	sc    *scenarios.Scenario // the built-in scenario the trace names, for captions
	warns []scenarios.Problem // its warnings as its file has them (recordedWarnings)
	marks []int               // positions of breakpoint events, for the progress bar
	// marksOf is the breakpoints marks was found for; none has no marks,
	// so the zero value needs no search.
	marksOf model.Breaks

	breaks model.Breaks
	bar    *widgets.Bar
}

func newReplayView(sh *shell, name string, hdr jsonl.Header, rep *model.Replay) *replayView {
	v := &replayView{panelsScreen: newPanelsScreen(sh), name: name, hdr: hdr, rep: rep, speed: recordedPace,
		bar:    widgets.NewBar(sh.th, sh.th.Base),
		breaks: model.Breaks{Rebuild: true, Premature: true, DeadlineHit: true, TaskPanic: true},
		sc:     recordedScenario(hdr), warns: recordedWarnings(hdr)}
	v.body.onFocus = func(i int) { v.focus = i }
	return v
}

func (v *replayView) kind() screenKind { return onReplay }

func (v *replayView) scenario() *scenarios.Scenario { return v.sc }

func (v *replayView) warnings() []scenarios.Problem { return v.warns }

func (v *replayView) title() string { return "replay · " + v.name }

func (v *replayView) needsRedraw() bool { return v.playing.Load() }

// emptyReplayLog is what the log says when nothing up to here is shown.
func emptyReplayLog(f model.Filter) string {
	if !f.Empty() {
		return "no event up to here matches the filter"
	}
	return "before the first event"
}

func (v *replayView) refresh() {
	if v.playing.Load() {
		elapsed := time.Since(v.playWall)
		t := v.playTrace + int64(float64(elapsed)*replaySpeeds[v.speed])
		v.rep.SeekTime(t)
		if v.rep.Pos() >= v.rep.Len() {
			v.playing.Store(false)
		}
	}
	// The timeline's window ends at the current event, on the same grid
	// as a live one.
	q := v.body.query(v.focus, v.filter, v.follow, max(v.rep.Time(), 1), 0)
	now := time.Duration(v.rep.Time())
	at := moment{snapshot: v.rep.Snapshot, set: headerConfig(v.hdr.Config), sc: v.sc, now: now}
	v.frame, v.focus, v.caption = at.frame(q)
	v.frame.Now = v.rep.Time()
	v.showFrame(v.sc, nil, emptyReplayLog(v.filter), "no event of the followed item up to here (f stops following)")
	v.setBars()
	v.pager.moving = v.playing.Load()
}

// replayWheel draws the wheel from its events: the cursor, and the slots
// where timeouts expired lately. Slot occupancy is not in the trace.
func (v *replayView) setBars() {
	th := v.sh.th
	hs := th.Header
	left := []widgets.Seg{widgets.S(" reactorviz ", hs.Bold(true)), widgets.S("REPLAY ", hs.Bold(true))}
	if v.banner != "" {
		left[1] = widgets.S("RECORDING ", hs.Bold(true).Reverse(true))
	}
	if v.hdr.Scenario != "" {
		what := runWhat(v.hdr.Scenario, v.hdr.Model, headerMode(v.hdr.Config), v.frame.Settings.Netty)
		left = append(left, widgets.S(what+" ", hs))
	}
	if v.banner != "" {
		left = append(left, widgets.S("· "+v.banner+" ", hs))
	}
	if n := v.frame.Snapshot.Paused; n > 0 {
		left = append(left, widgets.S("· "+strconv.Itoa(n)+" paused in the recording ", hs))
	}
	right := []widgets.Seg{widgets.S(v.name+" ", hs)}
	v.header.Set(left, right)
	if v.banner != "" && v.hdr.Scenario != "" {
		// A recording's name is its scenario's, already on the left, and
		// its banner says what ran: a lesson's title needs the room more.
		v.header.SetShorter(left, append(slices.Clone(left[:2]), left[3:]...), left[:3])
	}

	state := "■ stopped"
	if v.playing.Load() {
		state = "▶ playing"
	}
	pos, n := v.rep.Pos(), v.rep.Len()
	bl := []widgets.Seg{
		widgets.S(" event ", th.Dim), widgets.S(strconv.Itoa(pos)+"/"+strconv.Itoa(n), th.Bold),
		widgets.S("  "+model.Clock(v.rep.Time())+"/"+model.Clock(v.rep.EndTime()), th.Base),
		widgets.S("  "+state+" "+speedText(replaySpeeds[v.speed]), th.Accent),
	}
	on := breakWords(v.breaks)
	breaks := "  breaks: none"
	if len(on) > 0 {
		breaks = "  breaks: " + strings.Join(on, ",")
	}
	v.bar.Set(append(slices.Clone(bl), widgets.S(breaks, th.Dim)), nil)
	// An 80-column bar has no room for the list: its count, and b shows
	// them.
	v.bar.SetShorter(append(bl, widgets.S("  breaks: "+strconv.Itoa(len(on))+" (b)", th.Dim)))
}

func speedText(s float64) string {
	return strconv.FormatFloat(s, 'f', -1, 64) + "×"
}

// breakWords lists the breakpoints on, in the table's words.
func breakWords(b model.Breaks) []string {
	var on []string
	for _, s := range counters.BreakTable() {
		switch v := b.Get(s.Break); {
		case s.Numeric && v > 0:
			on = append(on, s.Word+strconv.Itoa(v))
		case !s.Numeric && v > 0:
			on = append(on, s.Word)
		}
	}
	return on
}

func (v *replayView) draw(scr tcell.Screen, x, y, w, h int) {
	v.header.SetRect(x, y, w, 1)
	v.header.Draw(scr)
	v.bar.SetRect(x, y+1, w, 1)
	v.bar.Draw(scr)
	v.drawProgress(scr, x, y+2, w)
	v.drawBody(scr, x, y+3, w, h, 3)
}

// maxMarks bounds the breakpoint events looked for: a premature-select
// breakpoint can fire on thousands of events, and the bar has a cell per
// column anyway.
const maxMarks = 1 << 14

// drawProgress draws how far into the trace we are, with a mark on every
// column where a breakpoint event lies, so < and > have somewhere to go.
func (v *replayView) drawProgress(scr tcell.Screen, x, y, w int) {
	n := v.rep.Len()
	if n <= 0 || w <= 0 {
		return
	}
	done := int(int64(w) * int64(v.rep.Pos()) / int64(n))
	widgets.Fill(scr, x, y, done, '━', v.sh.th.Accent)
	widgets.Fill(scr, x+done, y, w-done, '─', v.sh.th.Dim)
	if v.marksOf != v.breaks {
		v.marks, v.marksOf = v.rep.BreakPositions(v.breaks, maxMarks), v.breaks
	}
	for _, pos := range v.marks {
		col := min(int(int64(w)*int64(pos-1)/int64(n)), w-1)
		scr.SetContent(x+col, y, '┃', nil, v.sh.th.Warn)
	}
}

func (v *replayView) seek(n int) {
	v.setPlaying(false)
	// A message about another event would contradict the counter above.
	v.sh.quiet()
	v.rep.Seek(n)
}

func (v *replayView) setPlaying(on bool) {
	if on && v.rep.Pos() >= v.rep.Len() {
		v.rep.Seek(0)
	}
	v.playWall, v.playTrace = time.Now(), v.rep.Time()
	v.playing.Store(on)
}

func (v *replayView) act(a action) {
	switch a {
	case actPlay:
		v.setPlaying(!v.playing.Load())
	case actFwd, actBack, actFwdPage, actBackPage:
		if v.body.tl.cursorOn {
			v.moveCursor(a)
			return
		}
		v.seek(v.rep.Pos() + replayStep(a))
	case actStart:
		v.seek(0)
	case actEnd:
		v.seek(v.rep.Len())
	case actNextBreak, actPrevBreak:
		v.jumpBreak(a == actNextBreak)
	case actGoto:
		v.sh.openPrompt("go to event N or time (2.5s): ", "", func(s string) {
			if n, ok := parseGoto(s, v.rep); ok {
				v.seek(n)
			} else {
				v.sh.say("cannot go to " + strconv.Quote(s) + ": give an event number or a time such as 2.5s")
			}
		})
	case actBreaks:
		v.sh.openBreakMenu("breakpoints (< and > jump)", v.breaks, func(b model.Breaks) { v.breaks = b })
	case actFaster:
		v.setSpeed(v.speed + 1)
	case actSlower:
		v.setSpeed(v.speed - 1)
	case actFilter:
		v.sh.openPrompt("filter (loop, kind): ", v.filter.String(), func(s string) {
			v.filter = model.ParseFilter(s)
		})
	case actQuit:
		if v.quitting.CompareAndSwap(false, true) {
			v.playing.Store(false)
			v.sh.stopLater()
		}
	default:
		v.actOnPanels(a)
	}
}

// replayStep is how many events a stepping key moves.
func replayStep(a action) int {
	switch a {
	case actFwd:
		return 1
	case actBack:
		return -1
	case actFwdPage:
		return replayPage
	}
	return -replayPage
}

// moveCursor moves the timeline's cursor in place of the replay: ←→ by a
// column, [ ] by a slice of the focused loop. Past the right edge of a
// window that ends at the current event, the replay moves on by a
// column's time, so the cursor walks forward through the run.
func (v *replayView) moveCursor(a action) {
	tl := &v.body.tl
	switch {
	case a == actFwdPage || a == actBackPage:
		tl.moveBySlice(v.frame, v.focus, a == actFwdPage)
	case a == actFwd && tl.back == 0 && tl.cursor >= tl.cols-1:
		// At least one event on, when the next column holds none.
		v.seek(max(v.rep.PosAtTime(v.rep.Time()+tl.span()/int64(max(tl.cols, 1))), v.rep.Pos()+1))
	default:
		tl.moveCursor(a == actFwd)
	}
}

func (v *replayView) setSpeed(i int) {
	i = min(max(i, 0), len(replaySpeeds)-1)
	if v.playing.Load() {
		v.playWall, v.playTrace = time.Now(), v.rep.Time()
	}
	v.speed = i
}

func (v *replayView) jumpBreak(forward bool) {
	if !v.breaks.Any() {
		v.sh.say("no breakpoints chosen: press b")
		return
	}
	pos, _, ok := v.rep.FindBreak(forward, v.breaks)
	if !ok {
		dir := "after"
		if !forward {
			dir = "before"
		}
		v.sh.say("no breakpoint event " + dir + " event " + strconv.Itoa(v.rep.Pos()))
		return
	}
	v.seek(pos)
	if e, ok := v.rep.Event(pos - 1); ok {
		v.focus = int(e.Loop) // the loop that hit it, as a live breakpoint does
		v.sh.say("event " + strconv.Itoa(pos) + ": " + v.rep.State().LoopName(e.Loop) + " " + model.Describe(&e))
	}
}

// parseGoto reads "12345" (an event), "+100"/"-100" (relative), or a time
// such as "2.5s" or "800ms".
func parseGoto(s string, rep *model.Replay) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(s); err == nil {
		if s[0] == '+' || s[0] == '-' {
			return rep.Pos() + n, true
		}
		return n, true
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		// The moment named is reached: a link to 1.5s lands on the first
		// event at or after it, not on the last before it (1.411s in a
		// run whose loops sleep in select from 1.411s to 1.511s).
		n := rep.PosAtTime(int64(d))
		if e, ok := rep.Event(n - 1); (!ok || e.Time < int64(d)) && n < rep.Len() {
			n++
		}
		return n, true
	}
	return 0, false
}
