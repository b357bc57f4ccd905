package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace/phases"
	"github.com/reactorviz/reactorviz/tui/model"
)

// z, Z, h, l and t act on the timeline of the live screen: the rule names
// the window and how far back it ends, and t cycles the layouts.
func TestLiveTimelineKeys(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 120, 40)
	if got := hs.frame(); !strings.Contains(got, "─ timeline · 1s window · now") {
		t.Fatalf("no timeline on the main screen:\n%s", got)
	}
	hs.press(runeEv('z'), runeEv('z'))
	if got := hs.frame(); !strings.Contains(got, "timeline · 200ms window") {
		t.Errorf("z twice did not zoom to 200ms:\n%s", got)
	}
	hs.press(runeEv('Z'), runeEv('h'), runeEv('h'))
	if got := hs.frame(); !strings.Contains(got, "timeline · 500ms window · ends 250ms ago") {
		t.Errorf("Z and h h did not scroll back 250ms:\n%s", got)
	}
	hs.press(runeEv('l'), runeEv('l'), runeEv('l'))
	if got := hs.frame(); !strings.Contains(got, "500ms window · now") {
		t.Errorf("l did not come back to now:\n%s", got)
	}
	// Lanes in place of the detail pane, then no timeline, then back.
	hs.press(runeEv('t'))
	if got := hs.frame(); !strings.Contains(got, "─ timeline") || strings.Contains(got, "─ worker-0 · tid") {
		t.Errorf("the lanes layout still shows the detail pane:\n%s", got)
	}
	hs.press(runeEv('t'))
	if got := hs.frame(); strings.Contains(got, "─ timeline") || !strings.Contains(got, "─ worker-0 · tid") {
		t.Errorf("the classic layout shows a timeline:\n%s", got)
	}
	// The lesson layout: the loops' compact rows with their lanes beside
	// them; the fake tour lists no concepts, so the detail pane stands in
	// for their counters.
	hs.press(runeEv('t'))
	if got := hs.frame(); !strings.Contains(got, "─ loops · ") || !strings.Contains(got, "─ worker-0 · tid") {
		t.Errorf("the lesson layout shows a timeline:\n%s", got)
	}
	hs.press(runeEv('t'))
	if got := hs.frame(); !strings.Contains(got, "─ timeline") || !strings.Contains(got, "─ worker-0 · tid") {
		t.Errorf("t did not come back to the first layout:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// With room for two lanes, the focused loop and its group come first,
// drawn in table order.
func TestTimelineLanesPickTheFocusedGroup(t *testing.T) {
	f := &model.Frame{Snapshot: &model.Snapshot{
		Loops: []model.Loop{
			{Index: 0, Name: "boss-0", Group: "boss"},
			{Index: 1, Name: "worker-0", Group: "worker"},
			{Index: 2, Name: "worker-1", Group: "worker"},
			{Index: 3, Name: "worker-2", Group: "worker"},
		},
		Groups: []model.Group{{Name: "boss", Loops: []int{0}}, {Name: "worker", Loops: []int{1, 2, 3}}},
	}}
	names := func(n, focus int) string {
		var out []string
		for _, l := range timelineLanes(f, focus, n) {
			out = append(out, l.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names(2, 3); got != "worker-0 worker-2" {
		t.Errorf("2 lanes, focus worker-2: %q", got)
	}
	if got := names(2, 0); got != "boss-0 worker-0" {
		t.Errorf("2 lanes, focus boss-0: %q", got)
	}
	if got := names(9, 2); got != "boss-0 worker-0 worker-1 worker-2" {
		t.Errorf("room for all: %q", got)
	}
}

// The simulation screen with the timeline zoomed out to 5 s, where the
// script's iterations, premature selects and wakeups are in the window.
func TestLiveTimelineGolden(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"live_timeline_120x40", 120, 40}, {"live_timeline_80x24", 80, 24}} {
		t.Run(size.name, func(t *testing.T) {
			checkGoroutines(t)
			hs, _ := startLive(t, size.w, size.h)
			if size.w < 100 {
				hs.frame()
				hs.press(runeEv('t')) // from the lesson layout a small terminal opens in
			}
			hs.press(runeEv('Z'), runeEv('Z'))
			golden(t, size.name, hs.frame())
			if err := hs.quit(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The timeline's ruler, its cursor and the inspect panel: g puts the
// cursor on a run time, the event pane lists the focused loop's events in
// that column and its title says how busy the column was; ← moves the
// cursor a column, c hides it and the log follows the run again.
func TestLiveCursorInspectsASlice(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 120, 40)
	hs.press(runeEv('g'))
	for _, r := range "2.4s" {
		hs.press(runeEv(r))
	}
	hs.press(keyEv(tcell.KeyEnter))
	got := hs.frame()
	golden(t, "live_cursor_inspect", got)
	if !strings.Contains(got, "▲") || !strings.Contains(got, "─ slice 00:02.3") {
		t.Errorf("no cursor on the ruler or no inspect panel:\n%s", got)
	}
	hs.press(keyEv(tcell.KeyLeft))
	if moved := hs.frame(); moved == got {
		t.Error("← did not move the cursor")
	}
	hs.press(runeEv('c'))
	if off := hs.frame(); strings.Contains(off, "─ slice ") || strings.Contains(off, "▲") {
		t.Errorf("c left the cursor on:\n%s", off)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// f follows the item of the newest line that names one (here a task
// submitted from outside): its events on every loop are listed from the
// start of its path and marked ◆ on the lanes; f again stops.
func TestLiveFollowsAnItem(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 120, 40)
	hs.press(runeEv('Z'), runeEv('Z')) // 5 s across: the whole fake run
	hs.frame()
	hs.press(runeEv('f'))
	got := hs.frame()
	golden(t, "live_follow", got)
	if !strings.Contains(got, "─ following ") || !strings.Contains(timelineRows(got), "◆") {
		t.Errorf("f followed nothing:\n%s", got)
	}
	hs.press(runeEv('f'))
	if off := hs.frame(); strings.Contains(off, "─ following ") || strings.Contains(timelineRows(off), "◆") {
		t.Errorf("a second f kept following:\n%s", off)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// F follows the task at the head of the focused loop's queue (worker-0's
// #10, the next it will run): its submit is listed and marked; on a loop
// with an empty queue F says there is nothing to follow.
func TestLiveFollowsTheQueueHead(t *testing.T) {
	checkGoroutines(t)
	hs, _ := startLive(t, 120, 40)
	hs.press(runeEv('Z'), runeEv('Z'))
	if got := hs.frame(); !strings.Contains(got, "#10 flood") {
		t.Fatalf("worker-0's queue head is not #10:\n%s", got)
	}
	hs.press(runeEv('F'))
	got := hs.frame()
	if !strings.Contains(got, "─ following task id=10") || !strings.Contains(got, "task_submit id=10") {
		t.Errorf("F did not follow the queue head:\n%s", got)
	}
	hs.press(runeEv('F'), keyEv(tcell.KeyTab), runeEv('F'))
	if off := hs.frame(); strings.Contains(off, "─ following ") || !strings.Contains(off, "task queue is empty") {
		t.Errorf("F on an empty queue followed something, or did not say why not:\n%s", off)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// [ and ] move the cursor by slice: to the start of the next run of
// columns spent alike, a marked column being a slice of its own.
func TestSliceStartMovesBySlice(t *testing.T) {
	sel := model.Cell{Known: true, Width: 10, Select: 10}
	tsk := model.Cell{Known: true, Width: 10, Tasks: 9, Select: 1}
	mark := model.Cell{Known: true, Width: 10, Select: 10, Marks: phases.MarkWakeup}
	cells := []model.Cell{sel, sel, tsk, tsk, tsk, mark, sel, sel}
	for _, c := range []struct {
		from int
		fwd  bool
		want int
	}{
		{0, true, 2}, {2, true, 5}, {3, true, 5}, {5, true, 6}, {6, true, 7},
		{7, false, 6}, {6, false, 5}, {5, false, 2}, {4, false, 2}, {2, false, 0}, {0, false, 0},
	} {
		if got := sliceStart(cells, c.from, c.fwd); got != c.want {
			t.Errorf("sliceStart(from %d, fwd %v) = %d, want %d", c.from, c.fwd, got, c.want)
		}
	}
}
