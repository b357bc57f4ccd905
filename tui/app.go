package tui

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// The smallest terminal the screens are laid out for (README.md).
const (
	minWidth  = 80
	minHeight = 24
)

// view is one screen (live, replay, compare) inside the shell. All its
// methods but needsRedraw run on the UI goroutine.
type view interface {
	kind() screenKind
	title() string
	// scenario is the one scenario the screen shows, live or recorded;
	// nil for none.
	scenario() *scenarios.Scenario
	// refresh pulls fresh data (a model snapshot, gate states) into the
	// screen's widgets. Called before every draw the ticker asks for, and
	// after every key.
	refresh()
	// draw lays the screen out in (x, y, w, h) and draws it.
	draw(scr tcell.Screen, x, y, w, h int)
	// act performs a key action.
	act(a action)
	// needsRedraw is asked by the ticker goroutine: has anything changed?
	needsRedraw() bool
}

// shell owns the tview application and what every screen shares: the
// theme, the footer, the help overlay, the breakpoint menu, the prompt
// line, and the redraw ticker.
type shell struct {
	app  *tview.Application
	th   *widgets.Theme
	opts Options
	v    view
	root *rootView
	// shown spares the terminal the cells a frame did not change.
	shown shownCells

	footer *widgets.Bar
	help   *widgets.HelpView
	helpOn bool

	menu   *widgets.CheckMenu
	menuOn bool
	onMenu func([]widgets.MenuItem)

	prompt   *tview.InputField
	promptOn bool
	onPrompt func(string)

	// warnOff: the learner dismissed the scenario's warnings line.
	warnOff bool

	msg      string // a transient line in the footer, such as an error
	msgUntil time.Time

	frames   atomic.Int64 // frames drawn, for tests and the stress test
	wake     atomic.Bool  // redraw at the next tick whatever needsRedraw says
	stopOnce sync.Once
	tickStop chan struct{}
	tickDone chan struct{}
	// appDone is closed once app.Run has returned: from then on nothing
	// serves queued updates, so nobody may wait for one.
	appDone chan struct{}
	// tickDraw is the ticker's most recent queued draw, closed once the UI
	// goroutine has run it. Written by the ticker; read only after
	// tickDone is closed.
	tickDraw chan struct{}
	restore  func()
}

func newShell(o Options) *shell {
	th := widgets.ThemeFromEnv()
	if o.NoColor {
		th = widgets.NewTheme(true)
	}
	sh := &shell{
		app: tview.NewApplication(), th: th, opts: o,
		footer:   widgets.NewBar(th, th.Base),
		help:     widgets.NewHelpView(th),
		tickStop: make(chan struct{}),
		tickDone: make(chan struct{}),
		appDone:  make(chan struct{}),
	}
	sh.restore = th.Apply()
	sh.prompt = tview.NewInputField().SetFieldBackgroundColor(tcell.ColorDefault)
	sh.prompt.SetFieldTextColor(tcell.ColorDefault)
	sh.root = &rootView{Box: tview.NewBox(), sh: sh}
	sh.app.SetRoot(sh.root, true)
	sh.app.SetInputCapture(sh.handleKey)
	sh.app.SetAfterDrawFunc(func(tcell.Screen) { sh.frames.Add(1) })
	if o.Screen != nil {
		sh.app.SetScreen(o.Screen)
	}
	sh.app.EnableMouse(o.Mouse)
	return sh
}

// run shows v until quit; it returns when the app has stopped and the
// ticker is gone.
func (sh *shell) run(v view) error {
	sh.v = v
	sh.setHelp()
	v.refresh()
	if sh.opts.ready != nil {
		sh.opts.ready(sh)
	}
	if sh.opts.NoTicker {
		close(sh.tickDone)
	} else {
		go sh.tick()
	}
	err := sh.app.Run()
	close(sh.appDone)
	// The app may have stopped on a terminal error rather than through
	// quit; the ticker must not outlive it either way. Joining it cannot
	// hang: the ticker never waits for the UI goroutine itself.
	sh.stopTicker()
	sh.restore()
	return err
}

// tick redraws at most opts.FPS times a second, and only when the screen
// says something changed. It is the only goroutine that queues draws:
// producers just mark the model dirty.
//
// QueueUpdateDraw blocks until the UI goroutine has run the update, and
// forever if the app has stopped (tview never drains its queue after Run
// returns). So the ticker hands each draw to a goroutine of its own and
// never waits for it: it skips ticks while that draw is pending, and
// returns as soon as it is told to, draw or not.
func (sh *shell) tick() {
	defer close(sh.tickDone)
	t := time.NewTicker(time.Second / time.Duration(sh.opts.fps()))
	defer t.Stop()
	var pending chan struct{} // the queued draw not yet run; nil if none
	for {
		select {
		case <-sh.tickStop:
			sh.tickDraw = pending
			return
		case <-pending:
			pending = nil
			continue
		case <-t.C:
		}
		// One draw at a time: if the UI goroutine is behind, frames are
		// dropped rather than queued.
		if pending != nil || (!sh.wake.Swap(false) && !sh.v.needsRedraw()) {
			continue
		}
		pending = make(chan struct{})
		// If the app stops on its own before this draw runs, the goroutine
		// stays blocked in tview until the process exits; tview offers no
		// way to withdraw a queued update.
		go func(done chan struct{}) {
			sh.app.QueueUpdateDraw(sh.v.refresh)
			close(done)
		}(pending)
	}
}

// stopTicker ends the ticker and waits for it; that is quick, since the
// ticker never waits for the UI goroutine.
func (sh *shell) stopTicker() {
	sh.stopOnce.Do(func() { close(sh.tickStop) })
	<-sh.tickDone
}

// stop ends the app. Any goroutine but the UI goroutine: it waits for the
// ticker's last draw, which needs the UI goroutine, so that no update is
// left in tview's queue when the app stops. If the app has stopped on its
// own meanwhile, that draw will never run and stop does not wait for it.
func (sh *shell) stop() {
	sh.stopTicker()
	if sh.tickDraw != nil {
		select {
		case <-sh.tickDraw:
		case <-sh.appDone:
		}
	}
	sh.app.Stop()
}

// stopLater ends the app from the UI goroutine, which stop must not block:
// it waits for a draw only the UI goroutine can run.
func (sh *shell) stopLater() { go sh.stop() }

// redraw asks for a draw at the next tick. Any goroutine.
func (sh *shell) redraw() { sh.wake.Store(true) }

// say shows a message in the footer for a few seconds. UI goroutine.
func (sh *shell) say(msg string) {
	sh.msg, sh.msgUntil = msg, time.Now().Add(4*time.Second)
}

// quiet clears the footer's message. UI goroutine.
func (sh *shell) quiet() { sh.msg = "" }

// openPrompt shows an input line in place of the footer. UI goroutine.
func (sh *shell) openPrompt(label, text string, done func(string)) {
	sh.prompt.SetLabel(label).SetText(text)
	sh.promptOn, sh.onPrompt = true, done
}

// openMenu shows the checklist menu; changed is called on every edit.
func (sh *shell) openMenu(m *widgets.CheckMenu, changed func([]widgets.MenuItem)) {
	sh.menu, sh.menuOn, sh.onMenu = m, true, changed
}

// handleKey is the app's input capture: every key goes through the
// overlays first, then the key table. It runs on the UI goroutine and
// never queues updates; tview redraws after it returns.
func (sh *shell) handleKey(ev *tcell.EventKey) *tcell.EventKey {
	switch {
	case sh.promptOn:
		switch ev.Key() {
		case tcell.KeyEnter:
			sh.promptOn = false
			if sh.onPrompt != nil {
				sh.onPrompt(sh.prompt.GetText())
			}
		case tcell.KeyEscape, tcell.KeyCtrlC:
			sh.promptOn = false
		default:
			if h := sh.prompt.InputHandler(); h != nil {
				h(ev, func(tview.Primitive) {})
			}
		}
	case sh.helpOn:
		if ev.Key() == tcell.KeyEscape || (ev.Key() == tcell.KeyRune && (ev.Rune() == '?' || ev.Rune() == 'q')) {
			sh.helpOn = false
		} else {
			sh.help.Scroll(ev)
		}
	case sh.menuOn:
		if ev.Key() == tcell.KeyEscape || (ev.Key() == tcell.KeyRune && (ev.Rune() == 'b' || ev.Rune() == 'q')) {
			sh.menuOn = false
		} else if sh.menu.HandleKey(ev) && sh.onMenu != nil {
			sh.onMenu(sh.menu.Items())
		}
	default:
		switch a := lookup(sh.v.kind(), ev); a {
		case actHelp:
			sh.setHelp() // the captions' figures as of now
			sh.helpOn = true
		case actDismiss:
			sh.warnOff = true
		case actNone:
		default:
			sh.v.act(a)
		}
	}
	sh.v.refresh()
	return nil
}

// rootView draws the current screen, or asks for a bigger terminal, then
// the footer and any overlay.
type rootView struct {
	*tview.Box
	sh *shell
}

func (r *rootView) Draw(scr tcell.Screen) {
	sh := r.sh
	th := sh.th
	defer sh.shown.settle(scr)
	w, h := scr.Size()
	widgets.Clear(scr, 0, 0, w, h, th.Base)
	if w < minWidth || h < minHeight {
		drawTooSmall(scr, w, h, th)
		return
	}
	sh.v.draw(scr, 0, 0, w, h-1)
	switch {
	case sh.promptOn:
		sh.prompt.SetRect(0, h-1, w, 1)
		sh.prompt.Draw(scr)
	case sh.msg != "" && time.Now().Before(sh.msgUntil):
		widgets.Fill(scr, 0, h-1, w, ' ', th.Base)
		widgets.Put(scr, 1, h-1, w-2, sh.msg, th.Warn)
	default:
		sh.footer.Set(widgets.HintSegs(footerHints(sh.v.kind()), w, th), nil)
		sh.footer.SetRect(0, h-1, w, 1)
		sh.footer.Draw(scr)
	}
	if sh.menuOn && sh.menu != nil {
		sh.menu.SetRect(0, 0, w, h-1)
		sh.menu.Draw(scr)
	}
	if sh.helpOn {
		sh.help.SetRect(0, 0, w, h-1)
		sh.help.Draw(scr)
	}
}

func drawTooSmall(scr tcell.Screen, w, h int, th *widgets.Theme) {
	lines := []string{
		"terminal too small",
		strconv.Itoa(w) + "×" + strconv.Itoa(h) + ", need " + strconv.Itoa(minWidth) + "×" + strconv.Itoa(minHeight),
		"enlarge the window · q quits",
	}
	y := max(0, h/2-1)
	for i, l := range lines {
		lw := widgets.Width(l)
		st := th.Base
		if i == 0 {
			st = th.Bold
		}
		widgets.Put(scr, max(0, (w-lw)/2), y+i, w, l, st)
	}
}

// mouser is a view that takes mouse clicks.
type mouser interface {
	mouse(action tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) bool
}

// MouseHandler hands clicks to the screen when no overlay is open.
func (r *rootView) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return r.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
		sh := r.sh
		if sh.helpOn || sh.menuOn || sh.promptOn {
			return false, nil
		}
		m, ok := sh.v.(mouser)
		if !ok || !m.mouse(action, event, setFocus) {
			return false, nil
		}
		sh.v.refresh()
		return true, nil
	})
}

// setHelp fills the help overlay for the view on screen, its scenario's
// captions filled from the frame it shows now.
func (sh *shell) setHelp() {
	v := sh.v
	r, now := viewShown(v)
	sh.help.Set("help · "+v.title(), helpEntries(v.kind(), v.scenario(), r, now))
}
