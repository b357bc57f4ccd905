package tui

import (
	"bytes"

	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
)

// ttyTape is a terminal of a fixed size that records what a screen writes
// to it and sends no input.
type ttyTape struct {
	w, h   int
	mu     sync.Mutex
	out    bytes.Buffer
	closed chan struct{}
	once   sync.Once
}

func (t *ttyTape) Start() error             { return nil }
func (t *ttyTape) Stop() error              { return nil }
func (t *ttyTape) Drain() error             { return t.Close() }
func (t *ttyTape) NotifyResize(func())      {}
func (t *ttyTape) Close() error             { t.once.Do(func() { close(t.closed) }); return nil }
func (t *ttyTape) Read([]byte) (int, error) { <-t.closed; return 0, nil }
func (t *ttyTape) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: t.w, Height: t.h}, nil
}

func (t *ttyTape) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Write(p)
}

// take returns what was written since the last take.
func (t *ttyTape) take() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.out.String()
	t.out.Reset()
	return s
}

// A frame writes to the terminal only the cells that changed: a frame
// with nothing new writes next to nothing, one with a new log line writes
// that line, not the screen. tview clears the screen before each draw, so
// without care every cell was written again on every frame.
func TestFrameWritesOnlyChangedCells(t *testing.T) {
	tty := &ttyTape{w: 120, h: 40, closed: make(chan struct{})}
	scr, err := tcell.NewTerminfoScreenFromTty(tty)
	if err != nil {
		t.Skip("no terminfo for this terminal:", err)
	}
	var f *fakeSession
	ready := make(chan *shell, 1)
	done := make(chan error, 1)
	o := Options{Screen: scr, NoTicker: true, NoColor: true, StopTimeout: 5 * time.Second,
		ready: func(sh *shell) { ready <- sh }}
	go func() {
		done <- RunLive(func(sink trace.Sink) (Session, error) {
			f = newFakeSessionWith(t, "shown", scenarios.ModelMasterSlave, sink, eightLoops)
			return f, nil
		}, o)
	}()
	var sh *shell
	select {
	case sh = <-ready:
	case err := <-done:
		t.Fatalf("screen ended before it ran: %v", err)
	case <-time.After(startWait):
		t.Fatal("screen did not start")
	}
	draw := func() string {
		sh.app.QueueUpdateDraw(func() { sh.v.refresh() })
		var out string
		sh.app.QueueUpdate(func() { out = tty.take() })
		return out
	}
	full := draw()
	draw() // the second frame settles the layout
	idle := draw()
	if len(idle) > 200 {
		t.Errorf("a frame with nothing new wrote %d bytes (the screen is %d):\n%q", len(idle), len(full), idle)
	}
	s := &script{table: eightLoops, now: 3e9}
	s.ev("worker-3", trace.KindTaskRun, func(e *trace.Event) { e.A, e.B, e.Str = 7, 5000, "shown-task-marker" })
	f.feed(s.events...)
	one := draw()
	if !strings.Contains(one, "shown-task-marker") {
		t.Errorf("the new log line was not written: %q", one)
	}
	t.Logf("full frame %d bytes, idle %d, one new event %d", len(full), len(idle), len(one))
	if len(one) > 2000 {
		t.Errorf("a frame with one new event wrote %d bytes", len(one))
	}
	sh.app.QueueUpdate(func() { sh.handleKey(runeEv('q')) })
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("screen did not quit")
	}
}
