package tui

import (
	"github.com/reactorviz/reactorviz/tui/widgets"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/sim"
)

// loopRecording is one loop serving for 2 s in 1 ms iterations, blocked
// in select for idle of each, in I/O for the rest.
func loopRecording(name, loop, group string, idle int64, p99 float64) recording {
	return loopRecordingWith(name, loop, group, func(int64) int64 { return idle }, p99)
}

// loopRecordingWith is loopRecording with the idle time of the iteration
// starting at t.
func loopRecordingWith(name, loop, group string, idleAt func(t int64) int64, p99 float64) recording {
	var evs []trace.Event
	add := func(t int64, k trace.Kind, set func(*trace.Event)) {
		e := trace.Event{Time: t, Kind: k}
		if set != nil {
			set(&e)
		}
		evs = append(evs, e)
	}
	add(0, trace.KindState, func(e *trace.Event) {
		e.A, e.B, e.C = int64(trace.StateNotStarted), int64(trace.StateStarted), 4100
	})
	const it = int64(1e6)
	for t := int64(1e6); t < 2e9; t += it {
		idle := idleAt(t)
		add(t, trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 1e9 })
		add(t+idle, trace.KindSelectEnd, func(e *trace.Event) { e.A, e.B, e.C = 1, idle, 1 })
		add(t+idle, trace.KindIOBegin, nil)
		add(t+it-1, trace.KindIOEnd, func(e *trace.Event) { e.A, e.B = 1, it-1-idle })
	}
	var ws []sim.Window
	for range 8 {
		ws = append(ws, sim.Window{RPS: 1000, P50US: p99 / 4, P99US: p99})
	}
	return recording{model: name, loops: []trace.LoopInfo{{Name: loop, Group: group}}, events: evs, windows: ws}
}

// The lockstep replay opens where the runs look most different: a loop
// busy all the time against one resting half of each millisecond look
// alike at 1 s (every column mostly I/O) and apart at tens of
// milliseconds, so it opens there, captioned with each lane's busy share
// and the clients' p99 then.
func TestLockstepOpensWhereRunsDiffer(t *testing.T) {
	ls := newLockstep([]recording{
		loopRecording("single", "reactor-0", "reactor", 10_000, 900_000),
		loopRecording("multi", "worker-0", "worker", 400_000, 12_000),
	})
	ls.openAtDifference()
	if span := ls.tl.span(); span > 100e6 {
		t.Errorf("opened at a %d ns window, where the runs look alike", span)
	}
	if ls.t <= 0 || ls.t > 2e9 {
		t.Errorf("opened at t %d, outside the runs", ls.t)
	}
	for _, want := range []string{"Opened where the runs differ most", "single reactor-0 99%", "multi worker-0 60%",
		"single p99 900ms", "multi p99 12ms", "space plays"} {
		if !strings.Contains(ls.caption, want) {
			t.Errorf("caption has no %q: %q", want, ls.caption)
		}
	}
	vs := ls.views(80, 4)
	if vs[0].busy[0] < 0.95 || vs[1].busy[0] > 0.7 || !vs[0].hasWin {
		t.Errorf("lane figures: %+v / %+v", vs[0], vs[1])
	}
}

// Runs whose lanes look alike open at the default window, and the caption
// sends the learner to the causes rather than to a hiccup.
func TestLockstepOpensAlikeRunsAtTheDefault(t *testing.T) {
	ls := newLockstep([]recording{
		loopRecording("nio", "worker-0", "worker", 400_000, 900),
		loopRecording("epoll", "worker-0", "worker", 400_000, 800),
	})
	ls.openAtDifference()
	if ls.tl.zoom != defaultZoom || !strings.Contains(ls.caption, "look alike at every zoom") {
		t.Errorf("zoom %d, caption %q", ls.tl.zoom, ls.caption)
	}
}

// One run's loop busy for 50 ms once (a preempted thread, a GC) is a
// hiccup, not a difference of designs: the opening does not zoom on it.
func TestLockstepIgnoresAHiccup(t *testing.T) {
	burst := func(t int64) int64 {
		if t >= 1_150e6 && t < 1_200e6 {
			return 10_000
		}
		return 900_000
	}
	ls := newLockstep([]recording{
		loopRecording("nio", "worker-0", "worker", 900_000, 900),
		loopRecordingWith("epoll", "worker-0", "worker", burst, 800),
	})
	ls.openAtDifference()
	if ls.tl.zoom != defaultZoom || !strings.Contains(ls.caption, "look alike at every zoom") {
		t.Errorf("opened on a hiccup: zoom %d at %d, caption %q", ls.tl.zoom, ls.t, ls.caption)
	}
}

// Beside each lane, the blocking selects begun in the window: an idle
// loop's wakes, which a lane of · does not show.
func TestLockstepCountsSelectsInTheWindow(t *testing.T) {
	evs := []trace.Event{
		{Time: 1e9, Loop: 1, Kind: trace.KindSelectBegin, Str: "select"},
		{Time: 2e9, Loop: 1, Kind: trace.KindSelectBegin, Str: "select"},
		{Time: 2e9 + 5, Loop: 0, Kind: trace.KindSelectBegin, Str: "select_now"},
		{Time: 3e9, Loop: 0, Kind: trace.KindSelectBegin, Str: "select"},
	}
	got := selectsIn(evs, 1e9, 3e9)
	if got[1] != 1 || got[0] != 1 {
		t.Errorf("selects in (1s, 3s]: %v, want loop 1 once (the one at 1s is before), loop 0 once (select_now is no wait)", got)
	}
	ls := newLockstep([]recording{loopRecording("single", "reactor-0", "reactor", 10_000, 900_000),
		loopRecording("multi", "worker-0", "worker", 400_000, 12_000)})
	ls.t = 1e9
	ls.tl.zoom = slices.Index(zoomSteps, 100e6)
	ls.seekAll()
	if vs := ls.views(80, 4); vs[0].waits[0] < 95 || vs[0].waits[0] > 105 {
		t.Errorf("a loop selecting every 1 ms: %d selects in 100 ms", vs[0].waits[0])
	}
}

// The lockstep replay draws the same moment of every run's workload: a
// run that bound its servers 300 ms longer (its events later on their
// clock by that much) is drawn from its own start, not from its
// collector's epoch.
func TestLockstepIsOnEachRunsStart(t *testing.T) {
	// Busy for the first second of the load, idle after.
	busyThenIdle := func(t int64) int64 {
		if t < 1e9 {
			return 10_000
		}
		return 990_000
	}
	early := loopRecordingWith("single", "reactor-0", "reactor", busyThenIdle, 1000)
	late := loopRecordingWith("multi", "worker-0", "worker", busyThenIdle, 1000)
	const bind = int64(300e6)
	for i := range late.events {
		late.events[i].Time += bind
	}
	late.start = bind
	ls := newLockstep([]recording{early, late})
	ls.tl.zoom = slices.Index(zoomSteps, int64(100e6))
	for _, at := range []int64{900e6, 1200e6} {
		ls.t = at
		ls.seekAll()
		vs := ls.views(80, 4)
		a, b := vs[0].busy[0], vs[1].busy[0]
		if d := a - b; d > 0.1 || d < -0.1 {
			t.Errorf("t %v: the runs' lanes differ at the same moment of their load: %.2f vs %.2f", at, a, b)
		}
	}
	if ls.end > 2e9 {
		t.Errorf("the lockstep's end %d counts the later run's bind", ls.end)
	}
}

// R's lockstep of a built-in recording reads what its clients saw from the
// recording's samples, as a run's summary does: the p50/p99 beside its
// lanes at each moment, and its worst window; the trace it was read from is
// left as it was.
func TestBuiltinRecordingHasItsClientsWindows(t *testing.T) {
	const name = "compare-single"
	tr, err := openBuiltinRecording(name)
	if err != nil {
		t.Fatal(err)
	}
	// What the fold writes into a sample it adds: the worst windows.
	stamps := func() (out []*sample.Worst) {
		for _, p := range tr.Samples {
			out = append(out, p.Clients.Worst)
			for _, l := range p.Loops {
				out = append(out, l.Worst)
			}
		}
		return out
	}
	before := stamps()
	r := builtinRecording("single", tr)
	rc, err := recordings.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := sim.ReplayFrom(rc, name)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.windows) == 0 || !reflect.DeepEqual(r.windows, sum.Measured.Windows) {
		t.Errorf("%d windows; the recording's summary has %d", len(r.windows), len(sum.Measured.Windows))
	}
	if w := sum.Clients.LatencyUS.WorstWindow; w == nil || r.worst == nil || *r.worst != *w {
		t.Errorf("worst window %v; the recording's summary has %v", r.worst, w)
	}
	for i, w := range stamps() {
		if w != before[i] {
			t.Fatal("reading the recording wrote into its trace's samples")
		}
	}
	ls := newLockstep([]recording{r})
	ls.t = int64(500 * time.Millisecond) // the recording's load runs 1 s
	ls.seekAll()
	if v := ls.views(80, 4)[0]; !v.hasWin || v.client.P99US <= 0 || v.worst == nil {
		t.Errorf("at 0.5 s the lanes have no clients' figures beside them: %+v", v.client)
	}
}

// A model's head beside its lanes is never cut: it drops spaces, then the
// worst window's moment, then the worst window, to fit; past the run's
// last full window it says so rather than "no answers".
func TestLockstepStatsHeadFits(t *testing.T) {
	ls := &lockstep{t: int64(2 * time.Second)}
	lv := laneView{hasWin: true, client: sim.Window{P50US: 299_000, P99US: 573_000},
		worst: &sim.WorstWindow{P99US: 573_440, AtNS: int64(750 * time.Millisecond)}}
	for _, w := range []int{60, 38, 34, 20} {
		h := ls.statsHead(lv, w)
		if widgets.Width(h) > w {
			t.Errorf("width %d: %q is %d cells", w, h, widgets.Width(h))
		}
		if !strings.HasPrefix(h, "p50 299ms") {
			t.Errorf("width %d: %q lost the clients' figures", w, h)
		}
	}
	if h := ls.statsHead(lv, 60); !strings.Contains(h, "worst 573ms @750ms") {
		t.Errorf("a wide head %q lacks the worst window and its moment", h)
	}
	lv.hasWin, lv.pastWindows = false, true
	if h := ls.statsHead(lv, 60); strings.Contains(h, "no answers") {
		t.Errorf("past the last window: %q", h)
	}
}
