package tui

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tui/model"
)

// TestStressManyEvents feeds a million events into a live screen whose
// redraw ticker runs, as a collector would: the screen must catch up with
// the last event and still answer keys. How fast it does so is for a
// benchmark; timing checks here would only make the test flaky.
func TestStressManyEvents(t *testing.T) {
	checkGoroutines(t)
	total := 1_000_000
	if testing.Short() {
		total = 100_000
	}
	lf := &liveFixture{t: t}
	scr := tcell.NewSimulationScreen("UTF-8")
	ready := make(chan *shell, 1)
	o := Options{Screen: scr, NoColor: true, FPS: 30, StopTimeout: 5 * time.Second}
	o.ready = func(sh *shell) { ready <- sh }
	done := make(chan error, 1)
	go func() { done <- RunLive(lf.newRun, o) }()
	var sh *shell
	select {
	case sh = <-ready:
	case err := <-done:
		t.Fatalf("the live screen ended before it ran: %v", err)
	case <-time.After(startWait):
		t.Fatal("the live screen did not start")
	}
	sh.app.QueueUpdate(func() { scr.SetSize(120, 40) })
	f := lf.session(0)

	rnd := rand.New(rand.NewPCG(3, 4))
	kinds := trace.Kinds()
	batch := make([]trace.Event, 1024)
	start := time.Now()
	for sent := 0; sent < total; sent += len(batch) {
		for i := range batch {
			batch[i] = trace.Event{
				Time: int64(sent+i) * 1000, Loop: uint16(rnd.IntN(6)), Kind: kinds[rnd.IntN(len(kinds))],
				A: rnd.Int64N(1000), B: rnd.Int64N(1000), C: rnd.Int64N(600), Flag: rnd.IntN(2) == 0, Str: "stress",
			}
		}
		f.feed(batch...)
	}
	t.Logf("%d events fed in %v", total, time.Since(start))

	// The screen caught up and still answers keys.
	waitFor(t, func() bool {
		var out string
		sh.app.QueueUpdate(func() { out = screenText(scr) })
		return strings.Contains(out, model.Count(int64(total+len(tourEvents(f))))+" seen")
	}, "the last events on screen")
	sh.app.QueueUpdate(func() { sh.handleKey(runeEv('q')) })
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("did not quit")
	}
}
