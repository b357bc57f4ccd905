package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

// A scenario may give several notes for one moment: the caption shows all
// of them, and moves on to the next moment's notes when the clock does.
func TestWatchAtJoinsTheNotesOfOneMoment(t *testing.T) {
	sc := &scenarios.Scenario{Watch: []scenarios.Caption{
		{Text: "a."}, {Text: "b."}, {At: 2 * time.Second, Text: "c."},
	}}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{{0, "a. b."}, {time.Second, "a. b."}, {2 * time.Second, "c."}} {
		if got := watchAt(sc, tc.at); got != tc.want {
			t.Errorf("watchAt(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

// The action line says every action of the latest moment and stays lit
// for flashFor of run time.
func TestCaptionAtTheLatestAction(t *testing.T) {
	at := scenarios.Step{At: time.Second}
	fired := []sim.Fired{
		{At: time.Second, Action: scenarios.Submit{Step: at, Loop: "worker-0", Count: 3, From: scenarios.FromExternal}},
		{At: time.Second, Action: scenarios.SetIORatio{Step: at, Loop: "worker-0", IORatio: 10}},
	}
	c := captionAt(nil, fired, time.Second+flashFor/2)
	if want := "t=1.0s: 3 tasks"; !c.recent || !strings.HasPrefix(c.action, want) || !strings.HasSuffix(c.action, "; ioRatio set to 10 on worker-0") {
		t.Errorf("caption %+v", c)
	}
	if c := captionAt(nil, fired, time.Second+flashFor); c.recent {
		t.Errorf("still lit after %v: %+v", flashFor, c)
	}
}

// A loop that stops at a breakpoint takes the focus, so its detail pane
// says why; its row is marked.
func TestLiveBreakpointMovesTheFocus(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 120, 40)
	f := lf.session(0)
	w1 := f.Loops()[2]
	const reason = "breakpoint: selector rebuilt"
	w1.Pause(reason)
	f.feed(trace.Event{Time: 2500e6, Loop: 2, Kind: trace.KindPause, A: int64(trace.PhaseIO), Str: reason})
	scr := hs.frame()
	if !strings.Contains(scr, "◆worker-1") {
		t.Errorf("worker-1's row is not marked:\n%s", scr)
	}
	if !strings.Contains(scr, "─ worker-1 · tid") {
		t.Errorf("the detail pane does not show worker-1:\n%s", scr)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// Options.Paused opens the run with every loop told to pause, and the
// header says how to go on.
func TestLiveOpensPausedAtTheStart(t *testing.T) {
	checkGoroutines(t)
	lf := &liveFixture{t: t}
	hs := newHarness(t, 100, 32, func(o Options) error {
		o.Paused = true
		return RunLive(lf.newRun, o)
	})
	for _, l := range lf.session(0).Loops() {
		if g := l.GateStatus(); !g.Paused || g.Reason != startPause {
			t.Errorf("%s gate %+v, want paused %q", l.Name(), g, startPause)
		}
	}
	golden(t, "live_paused_start", hs.frame())
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}
