package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/scenarios"
)

// A scenario's warnings are on the screen, under the header, until x
// dismisses them: spurious-wakeup shortened to 1 s never reaches its
// action at 1 s.
func TestWarningsLineUntilDismissed(t *testing.T) {
	sc, err := scenarios.Load("spurious-wakeup")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "1s"); err != nil {
		t.Fatal(err)
	}
	if len(sc.Warnings()) == 0 {
		t.Fatal("no warning for an action at the run's end")
	}
	newRun := func(sink trace.Sink) (Session, error) {
		f := newFakeSession(t, sc.Name, sc.Model, sink)
		f.sc, f.elapsed = sc, 500*time.Millisecond
		f.onStart = func(f *fakeSession) { f.feed(tourEvents(f)...) }
		return f, nil
	}
	hs := newHarness(t, 80, 24, func(o Options) error { return RunLive(newRun, o) })
	scr := hs.frame()
	lines := strings.Split(scr, "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], "⚠ warning: ") || !strings.Contains(scr, "never happens") ||
		!strings.Contains(scr, "x dismisses") {
		t.Errorf("no warnings line under the header:\n%s", scr)
	}
	hs.press(runeEv('x'))
	if scr := hs.frame(); strings.Contains(scr, "⚠ warning: ") {
		t.Errorf("x left the warnings line:\n%s", scr)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// A replay warns of what its scenario's file sets to no effect, never of
// the settings it re-applies from the recording's header: no built-in
// recording warns (task-quantum's io_ratio under 4.2 and compare-single's
// master-slave loop counts under single did, in the terminal and the
// browser's status line).
func TestReplayOfABuiltinRecordingWarnsOfNothing(t *testing.T) {
	for _, e := range recordings.List() {
		tr, err := openBuiltinRecording(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if ws := ReplayWarnings(tr); len(ws) > 0 {
			t.Errorf("%s: %q", e.Name, ws)
		}
	}
}
