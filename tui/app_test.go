package tui

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/scenarios"
)

// stallView is a screen whose first needsRedraw blocks until released, so
// a test can make the ticker queue a draw after the app has stopped.
type stallView struct {
	entered, release chan struct{}
	once             sync.Once
}

func (v *stallView) kind() screenKind                      { return onLive }
func (v *stallView) title() string                         { return "stall" }
func (v *stallView) scenario() *scenarios.Scenario         { return nil }
func (v *stallView) refresh()                              {}
func (v *stallView) draw(tcell.Screen, int, int, int, int) {}
func (v *stallView) act(action)                            {}
func (v *stallView) needsRedraw() bool {
	v.once.Do(func() {
		close(v.entered)
		<-v.release
	})
	return true
}

// finiScreen tells when tview finalises it, that is when the app stops.
type finiScreen struct {
	tcell.SimulationScreen
	once sync.Once
	fini chan struct{}
}

func (s *finiScreen) Fini() {
	s.once.Do(func() { close(s.fini) })
	s.SimulationScreen.Fini()
}

// TestRunReturnsWhenTheAppStopsOnItsOwn: a terminal error stops tview's
// event loop without quit. A draw the ticker queues after that is never
// run, and run must return all the same.
func TestRunReturnsWhenTheAppStopsOnItsOwn(t *testing.T) {
	scr := &finiScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), fini: make(chan struct{})}
	sh := newShell(Options{Screen: scr, NoColor: true, FPS: 60})
	v := &stallView{entered: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- sh.run(v) }()
	select {
	case <-v.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the ticker never asked for a redraw")
	}
	if err := scr.PostEvent(tcell.NewEventError(errors.New("terminal lost"))); err != nil {
		t.Fatal(err)
	}
	select {
	case <-scr.fini:
	case <-time.After(10 * time.Second):
		t.Fatal("the app did not stop on the terminal error")
	}
	// Give tview's event loop time to exit after finalising the screen;
	// the ticker's draw is then queued with nobody left to run it.
	time.Sleep(100 * time.Millisecond)
	close(v.release)
	select {
	case err := <-done:
		if err == nil {
			t.Error("run returned no error after a terminal error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run hangs after the app stopped on its own")
	}
}
