package tui

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

// liveFixture starts the live screen on fake sessions; every newRun makes
// a fresh one, fed the tour's events when it starts.
type liveFixture struct {
	mu       sync.Mutex
	sessions []*fakeSession
	t        *testing.T
}

func (lf *liveFixture) newRun(sink trace.Sink) (Session, error) {
	f := newFakeSession(lf.t, "tour", scenarios.ModelMulti, sink)
	f.onStart = func(f *fakeSession) { f.feed(tourEvents(f)...) }
	tourTimeline(f)
	lf.mu.Lock()
	lf.sessions = append(lf.sessions, f)
	lf.mu.Unlock()
	return f, nil
}

// tourTimeline gives the fake tour its watch notes and one timeline action
// played a moment before the fake clock's 2.5 s, so its row still flashes.
func tourTimeline(f *fakeSession) {
	f.sc.Summary = "A walk through the main mechanisms, one at a time."
	f.sc.Notes = "Each phase of the tour shows one mechanism; the captions say which."
	f.sc.Loop.Selector, f.sc.Loop.Trigger = scenarios.SelectorNIO, scenarios.TriggerLevel
	// One worker with its own ratio, as io-ratio sets them: the group's
	// title names them all.
	if err := f.loops[2].SetIORatio(10); err != nil {
		panic(err)
	}
	f.sc.Watch = []scenarios.Caption{
		{Text: "Three workers share the connections the boss accepts; each keeps its own selector."},
		{At: 2 * time.Second, Text: "At 2s worker-3 gets 20 000 tasks from outside: its queue fills, " +
			"and runAllTasks works it off in batches cut by the ioRatio budget, checked every 64 tasks."},
	}
	flood := scenarios.Submit{Step: scenarios.Step{At: 2 * time.Second}, Loop: "worker-3", Count: 20000,
		Cost: 20 * time.Microsecond, From: scenarios.FromExternal}
	f.sc.Timeline = append(f.sc.Timeline, flood)
	f.fired = []sim.Fired{{At: 2*time.Second + 100*time.Millisecond, Action: flood, Loops: []int{4}}}
}

func (lf *liveFixture) session(i int) *fakeSession {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	return lf.sessions[i]
}

func (lf *liveFixture) count() int {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	return len(lf.sessions)
}

func startLive(t *testing.T, w, h int) (*harness, *liveFixture) {
	t.Helper()
	lf := &liveFixture{t: t}
	hs := newHarness(t, w, h, func(o Options) error { return RunLive(lf.newRun, o) })
	return hs, lf
}

func TestLiveMainScreen(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 120, 40)
	golden(t, "live_main_120x40", hs.frame())
	if err := hs.quit(); err != nil {
		t.Fatalf("RunLive: %v", err)
	}
	if !lf.session(0).stopped.Load() {
		t.Error("quitting did not stop the run")
	}
}

func TestLiveAt80x24(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 80, 24)
	golden(t, "live_main_80x24", hs.frame())
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLivePausedStep(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 100, 32)
	f := lf.session(0)
	hs.press(runeEv(' '))
	for _, l := range f.Loops() {
		if !l.GateStatus().Paused {
			t.Errorf("%s not paused after space", l.Name())
		}
	}
	if !f.holding.Load() {
		t.Error("space paused the loops but not the run clock")
	}
	// worker-0 is focused; n steps it: a paused loop passes one boundary.
	// The engine then parks it before io and says so in a pause event.
	// The step goes through the run, which lets its clock run for it.
	hs.press(runeEv('n'))
	w0 := f.Loops()[1]
	if g := w0.GateStatus(); !g.Paused || g.Reason != "step" {
		t.Errorf("worker-0 gate after n: %+v", g)
	}
	if f.steps.Load() != 1 {
		t.Errorf("n took %d steps through the run, want 1", f.steps.Load())
	}
	f.feed(trace.Event{Time: 2500e6, Loop: 1, Kind: trace.KindPause, A: int64(trace.PhaseIO), Str: "step"})
	golden(t, "live_paused_step", hs.frame())
	hs.press(runeEv(' '))
	for _, l := range f.Loops() {
		if l.GateStatus().Paused {
			t.Errorf("%s still paused after the second space", l.Name())
		}
	}
	if f.holding.Load() {
		t.Error("the second space let the loops go but held the run clock")
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// Once every loop is shutting down none can park, but space still pauses
// the run: it holds the clock, which the quiet period is counted on, and
// the header says so; a second space lets it go.
func TestLivePauseWhileShuttingDown(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 120, 40)
	f := lf.session(0)
	for i, l := range f.loops {
		l.ShutdownGracefully(0, time.Second)
		<-l.Terminated()
		f.feed(trace.Event{Time: 2600e6, Loop: uint16(i), Kind: trace.KindState,
			A: int64(trace.StateStarted), B: int64(trace.StateShuttingDown), D: 200e6, E: 3e9})
	}
	hs.press(runeEv(' '))
	if !f.holding.Load() {
		t.Fatal("space did not hold the run clock")
	}
	if got := hs.frame(); !strings.Contains(got, "⏸ PAUSED · the clock is held") {
		t.Errorf("header after space:\n%s", firstLine(got))
	}
	hs.press(runeEv(' '))
	if f.holding.Load() {
		t.Fatal("the second space kept the run clock held")
	}
	if got := hs.frame(); !strings.Contains(firstLine(got), "RUNNING") {
		t.Errorf("header after the second space:\n%s", firstLine(got))
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestLiveHelpOverlay(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 100, 40)
	hs.press(runeEv('?'))
	golden(t, "live_help", hs.frame())
	// Keys scroll the help while it is open; q closes it, not the app.
	hs.press(keyEv(tcell.KeyPgDn), runeEv('q'))
	if strings.Contains(hs.frame(), "Panes and the Netty concepts") {
		t.Error("help still open after q")
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveHelpExplainsEveryConcept(t *testing.T) {
	var all strings.Builder
	for _, e := range helpEntries(onLive, nil, nil, 0) {
		all.WriteString(e.Term + " " + e.Text + "\n")
	}
	for _, c := range []string{"C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10", "C11", "C12", "C13",
		"C14", "C15", "C16", "C17", "C18", "C19", "C20", "C21", "C22", "C23", "C24", "C25", "C26"} {
		if !strings.Contains(all.String(), c+" ") && !strings.Contains(all.String(), c+")") &&
			!strings.Contains(all.String(), c+",") && !strings.Contains(all.String(), c+"\n") {
			t.Errorf("the live help never names concept %s", c)
		}
	}
}

func TestLiveTooSmallRecovers(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 60, 20)
	if got := hs.frame(); !strings.Contains(got, "terminal too small") || !strings.Contains(got, "60×20") {
		t.Errorf("a 60×20 screen shows:\n%s", got)
	}
	hs.resize(80, 24)
	if got := hs.frame(); strings.Contains(got, "too small") || !strings.Contains(got, "worker-0") {
		t.Errorf("after resizing to 80×24:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveFocusAndFilter(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 100, 32)
	hs.press(keyEv(tcell.KeyTab))
	if got := hs.frame(); !strings.Contains(got, "─ worker-1 · tid 4111") {
		t.Errorf("tab did not focus worker-1:\n%s", got)
	}
	hs.press(keyEv(tcell.KeyBacktab), keyEv(tcell.KeyUp))
	if got := hs.frame(); !strings.Contains(got, "─ boss-0 · tid 4101") {
		t.Errorf("shift-tab, up did not focus boss-0:\n%s", got)
	}
	hs.press(runeEv('/'))
	for _, r := range "worker-1 inject" {
		hs.press(runeEv(r))
	}
	hs.press(keyEv(tcell.KeyEnter))
	got := hs.frame()
	if !strings.Contains(got, "filter worker-1 inject") || !strings.Contains(got, "inject fd=30 fault=spurious-wakeups") {
		t.Errorf("filter not applied:\n%s", got)
	}
	if strings.Contains(got, "worker-0 select_begin") {
		t.Errorf("filtered log still shows other loops:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveBreakpointsMenu(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 100, 32)
	hs.press(runeEv('b'), runeEv(' '), keyEv(tcell.KeyDown), runeEv(' '))
	for range 4 {
		hs.press(keyEv(tcell.KeyDown))
	}
	hs.press(keyEv(tcell.KeyRight), keyEv(tcell.KeyRight))
	got := hs.frame()
	for _, want := range []string{"[x] selector rebuilt", "[x] premature select return", "[ ] wakeup written", "task queue above 4"} {
		if !strings.Contains(got, want) {
			t.Errorf("menu lacks %q:\n%s", want, got)
		}
	}
	hs.press(keyEv(tcell.KeyEscape))
	v := hs.sh.v.(*liveView)
	b, _ := v.r.settings()
	if !b.Rebuild || !b.Premature || b.Wakeup || b.QueueAbove != 4 {
		t.Errorf("breakpoints = %+v", b)
	}
	if strings.Contains(hs.frame(), "[x] selector rebuilt") {
		t.Error("menu still drawn after esc")
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveSlowMotion(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 100, 32)
	hs.press(runeEv('-'), runeEv('-'))
	if got := hs.frame(); !strings.Contains(got, "slow 5ms") {
		t.Errorf("two '-' should slow to 5ms per phase:\n%s", got)
	}
	for _, l := range lf.session(0).Loops() {
		if d := l.GateStatus().Delay; d.Milliseconds() != 5 {
			t.Errorf("%s delay %v", l.Name(), d)
		}
	}
	hs.press(runeEv('+'), runeEv('+'), runeEv('+'))
	if got := hs.frame(); !strings.Contains(got, "1×") {
		t.Errorf("'+' back to full speed:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveRestart(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 100, 32)
	hs.press(runeEv('b'), runeEv(' '), keyEv(tcell.KeyEscape), runeEv('-'))
	hs.press(runeEv('r'))
	waitFor(t, func() bool { return lf.count() == 2 && lf.session(1).started.Load() }, "a second run")
	if !lf.session(0).stopped.Load() {
		t.Error("restart did not stop the first run")
	}
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "▶ RUNNING") }, "the new run on screen")
	if d := lf.session(1).Loops()[0].GateStatus().Delay; d == 0 {
		t.Error("the new run lost the slow motion")
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
	if !lf.session(1).stopped.Load() {
		t.Error("quit did not stop the second run")
	}
}

// A speed change made while a restart is under way reaches the new run,
// not only the old one that is shutting down.
func TestLiveSettingsDuringRestartReachTheNewRun(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 100, 32)
	release := make(chan struct{})
	lf.session(0).onStop = func(*fakeSession) { <-release }
	hs.press(runeEv('r'))
	waitFor(t, func() bool { return lf.session(0).stopped.Load() }, "the first run stopping")
	hs.press(runeEv('-'), runeEv('-'))
	close(release)
	waitFor(t, func() bool { return lf.count() == 2 && lf.session(1).started.Load() }, "a second run")
	waitFor(t, func() bool {
		hs.frame() // a refresh, as the ticker would make
		return lf.session(1).Loops()[0].GateStatus().Delay == slowSteps[2]
	}, "the new run at the speed set during the restart")
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// A click on a loop's row focuses that loop.
func TestLiveMouseFocusesALoop(t *testing.T) {
	checkGoroutines(t)
	lf := &liveFixture{t: t}
	hs := newHarness(t, 100, 32, func(o Options) error { return RunLive(lf.newRun, o) },
		func(o *Options) { o.Mouse = true })
	row := -1
	for i, line := range strings.Split(hs.frame(), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " ▶"), "worker-2 ") {
			row = i
		}
	}
	if row < 0 {
		t.Fatal("no worker-2 row on screen")
	}
	hs.scr.InjectMouse(4, row, tcell.Button1, tcell.ModNone)
	hs.scr.InjectMouse(4, row, tcell.ButtonNone, tcell.ModNone)
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "▶worker-2") }, "worker-2 focused by the click")
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveRunFinishing(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 100, 32)
	lf.session(0).finish()
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "■ FINISHED") }, "FINISHED in the header")
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestLiveStartError(t *testing.T) {
	checkGoroutines(t)
	boom := errors.New("cannot bind")
	err := RunLive(func(sink trace.Sink) (Session, error) {
		f := newFakeSession(t, "tour", scenarios.ModelMulti, sink)
		f.startErr = boom
		t.Cleanup(f.finish)
		return f, nil
	}, Options{Screen: tcell.NewSimulationScreen("UTF-8")})
	if !errors.Is(err, boom) {
		t.Errorf("RunLive = %v, want the start error", err)
	}
	if err := RunLive(nil, Options{}); err == nil {
		t.Error("RunLive(nil) succeeded")
	}
}

// With --mouse a click on a lane focuses its loop and puts the timeline's
// cursor on the clicked column, which the ruler marks.
func TestLiveMousePlacesTheCursor(t *testing.T) {
	checkGoroutines(t)
	lf := &liveFixture{t: t}
	hs := newHarness(t, 120, 40, func(o Options) error { return RunLive(lf.newRun, o) },
		func(o *Options) { o.Mouse = true })
	row, inTimeline := -1, false
	for i, line := range strings.Split(hs.frame(), "\n") {
		switch {
		case strings.HasPrefix(line, "─ timeline"):
			inTimeline = true
		case inTimeline && strings.HasPrefix(strings.TrimLeft(line, " ▶"), "worker-1"):
			row = i
		}
	}
	if row < 0 {
		t.Fatal("no worker-1 lane on screen")
	}
	x := 11 + 40 // the 41st cell of the lane
	hs.scr.InjectMouse(x, row, tcell.Button1, tcell.ModNone)
	hs.scr.InjectMouse(x, row, tcell.ButtonNone, tcell.ModNone)
	waitFor(t, func() bool {
		lines := strings.Split(hs.frame(), "\n")
		for _, l := range lines {
			if r := []rune(l); len(r) > x && r[x] == '▲' {
				return strings.Contains(hs.frame(), "▶worker-1")
			}
		}
		return false
	}, "the cursor under the click and worker-1 focused")
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// While events flood in, the live screen draws at most one frame per
// floodFrame, and puts a frame off without losing it: the model stays
// dirty, so the frame comes once floodFrame has passed. A trickle of
// events is drawn at the ticker's rate.
func TestLiveFloodPutsFramesOff(t *testing.T) {
	var f *fakeSession
	hs := newHarness(t, 120, 40, func(o Options) error {
		return RunLive(func(sink trace.Sink) (Session, error) {
			f = newFakeSessionWith(t, "flood", scenarios.ModelMasterSlave, sink, eightLoops)
			return f, nil
		}, o)
	})
	defer func() { _ = hs.quit() }()
	hs.frame()
	lv := hs.sh.v.(*liveView)
	justDrawn := func(ago time.Duration) { lv.lastDraw.Store(time.Now().Add(-ago).UnixNano()) }

	f.feed(floodBatch(3e9)...) // 5 000 events: 150 000 a second at 30 frames a second
	justDrawn(30 * time.Millisecond)
	if lv.needsRedraw() {
		t.Error("a frame 30 ms after the last, during a flood, was not put off")
	}
	justDrawn(floodFrame + time.Millisecond)
	if !lv.needsRedraw() {
		t.Error("the frame put off during a flood never came")
	}

	hs.frame()
	s := &script{table: eightLoops, now: 4e9}
	s.iteration("worker-0", 1, "task")
	f.feed(s.events...)
	justDrawn(30 * time.Millisecond)
	if !lv.needsRedraw() {
		t.Error("a few events 30 ms after the last frame were not drawn")
	}
}
