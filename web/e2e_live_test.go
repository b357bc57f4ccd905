package web

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/remote"
	"github.com/reactorviz/reactorviz/tui"
)

// liveClockRE reads the live header's run clock, "00:01.2/00:30.0".
var liveClockRE = regexp.MustCompile(`(\d\d:\d\d\.\d)/\d\d:\d\d\.\d`)

// fmtClock is d as the header shows it.
func fmtClock(d time.Duration) string {
	return fmt.Sprintf("%02d:%02d.%d", int(d/time.Minute), int(d%time.Minute/time.Second), int(d%time.Second/(100*time.Millisecond)))
}

// liveWait bounds each wait for the page or the engine to get somewhere.
// The page folds the run's events and takes its keys on the tab's one
// thread: on a loaded machine it runs seconds behind the engine, and a key
// waits its turn, so the waits are long; what must not happen (the clock
// moving while paused) is still checked over a fixed second.
const liveWait = 90 * time.Second

// waitEngine waits for the engine's side of a key the page was sent.
func waitEngine(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", liveWait, what)
		}
		time.Sleep(time.Millisecond)
	}
}

func liveClock(screen string) string {
	if m := liveClockRE.FindStringSubmatch(screen); m != nil {
		return m[1]
	}
	return ""
}

// TestBrowserLiveRun shows a live run of this process in headless
// Chromium, as run NAME --web does: the page's live screen draws the
// engine's loops as they run; space pauses the engine's loops and the
// picture holds; n steps the focused loop one phase; space runs it all
// again; q stops the run in the engine.
func TestBrowserLiveRun(t *testing.T) {
	exe := needChromium(t)
	if !reactor.Live {
		t.Skip("live runs need the Linux engine")
	}
	leaktest.Check(t)
	site := browserSite(t)
	sc, err := scenarios.Load("single-reactor")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "60s"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var runs []*sim.Run
	host := remote.NewHost(func(w io.Writer) (*sim.Run, error) {
		r, err := tui.LiveRun(sc, sim.Options{TraceTo: w})
		mu.Lock()
		runs = append(runs, r)
		mu.Unlock()
		return r, err
	})
	run := func() *sim.Run {
		mu.Lock()
		defer mu.Unlock()
		if len(runs) == 0 {
			return nil
		}
		return runs[len(runs)-1]
	}
	addr := serveLiveOn(t, site, func(ctx context.Context, c *WSConn) error { return host.Serve(ctx, c) })

	b := openPage(t, exe, "http://"+addr+"/#live")
	first := b.waitScreen("the live screen running", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "RUNNING") && strings.Contains(s, "single-reactor") && liveClock(s) != "" && liveClock(s) != "00:00.0"
	})
	for _, want := range []string{"reactor-0", "timeline"} {
		if !strings.Contains(first, want) {
			t.Errorf("the live screen lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "RECORDING") {
		t.Errorf("a live run is not a recording:\n%s", first)
	}
	// The bar says so too: live, and no recording picker, file or link
	// to a moment, which would say a recording is playing.
	if st := b.status(); !strings.Contains(st, "LIVE") {
		t.Errorf("the status line of a live page reads %q", st)
	}
	var shown []string
	b.eval(`["pick", "file", "link"].filter(id => document.getElementById(id).closest("label, button").offsetParent !== null)`, &shown)
	if len(shown) > 0 {
		t.Errorf("a live page shows the recording controls %v", shown)
	}
	// The loop table moves: the clock and the counters go on.
	moved := b.waitScreen("the run clock to move", liveWait, func(s string) bool { return liveClock(s) > liveClock(first) })
	t.Logf("the page shows %s, the engine stands at %v", liveClock(moved), run().Elapsed())
	// space: the whole run pauses, in the engine.
	b.key(" ")
	paused := b.waitScreen("the pause on the page", liveWait, func(s string) bool { return strings.Contains(s, "PAUSED") })
	r := run()
	waitEngine(t, "the engine's loops parked", func() bool {
		for _, l := range r.Loops() {
			if g := l.GateStatus(); !g.Paused || (l.TID() != 0 && !g.Waiting) {
				return false
			}
		}
		return true
	})
	// The screen holds: the page catches up with the engine's clock, which
	// the pause stopped, and stays there.
	engineClock := r.Elapsed()
	t.Logf("paused: the page showed %s as the engine stood at %v", liveClock(paused), engineClock)
	want := time.Duration(engineClock / (100 * time.Millisecond) * (100 * time.Millisecond))
	held := b.waitScreen("the page's clock at the engine's", liveWait, func(s string) bool {
		return liveClock(s) == fmtClock(want)
	})
	time.Sleep(time.Second) // a second in which nothing may move
	if now := b.screenText(); liveClock(now) != liveClock(held) || r.Elapsed() != engineClock {
		t.Errorf("the clock moved while paused: %s, then %s; the engine's %v, then %v", liveClock(held), liveClock(now), engineClock, r.Elapsed())
	}

	// n: the focused loop, reactor-0, goes one phase on, and stops again.
	loop := r.Loops()[0]
	before := loop.GateStatus().Phase
	b.key("n")
	waitEngine(t, "reactor-0 one phase on", func() bool {
		g := loop.GateStatus()
		return g.Waiting && g.Phase != before
	})
	after := loop.GateStatus().Phase
	// A step stops before the next phase, or at the iteration's end when
	// that is next: the detail pane says which (tui's detail note).
	note := "before " + after.String()
	if after == trace.PhaseEnd {
		note = "end of iteration"
	}
	b.waitScreen("the step on the page ("+note+")", liveWait, func(s string) bool {
		return strings.Contains(s, "PAUSED") && strings.Contains(s, note)
	})
	b.shot("web-live.png")

	// space again: the run goes on; r restarts it: a new run in the
	// engine, after the first has shut down.
	b.key(" ")
	b.waitScreen("the run going on", liveWait, func(s string) bool { return strings.Contains(s, "RUNNING") })
	b.key("r")
	waitEngine(t, "a second run in the engine", func() bool { return run() != r })
	select {
	case <-r.Done():
	default:
		t.Error("the first run still runs after the restart")
	}
	r = run()
	b.waitScreen("the new run on the page", liveWait, func(s string) bool {
		c := liveClock(s)
		return strings.Contains(s, "RUNNING") && c != "" && c < liveClock(held)
	})
	// q stops it in the engine.
	b.key("q")
	select {
	case <-r.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("q did not stop the run in the engine")
	}
	if s := host.LastSummary(); s == nil || s.Events.Emitted == 0 {
		t.Errorf("the stopped run left no summary: %+v", s)
	}
	b.close()
}
