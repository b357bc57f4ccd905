package tui

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
)

// replayScript is the tour plus what a replay is for: worker-1's selector
// spinning into a rebuild, a breakpoint pause, and the wheel ticking.
func replayScript() []trace.Event {
	s := tourScript()
	s.at(500)
	for i := range 20 {
		s.ev("worker-1", trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 1e9 })
		s.ev("worker-1", trace.KindSelectEnd, func(e *trace.Event) { e.C, e.Flag = int64(302+i), true })
	}
	s.ev("worker-1", trace.KindRebuildBegin, func(e *trace.Event) { e.A = 512 })
	s.ev("worker-1", trace.KindRebuildEnd, func(e *trace.Event) { e.A, e.B, e.D, e.E = 512, 1, 12, 31 })
	s.ev("worker-1", trace.KindPause, func(e *trace.Event) {
		e.A, e.Str = int64(trace.PhaseIO), "breakpoint: selector rebuilt"
	})
	s.at(600)
	s.ev("worker-1", trace.KindResume, func(e *trace.Event) { e.A = int64(trace.PhaseIO) })
	for tick := int64(1); tick <= 12; tick++ {
		s.at(600 + tick*100)
		s.ev("wheel", trace.KindWheelTick, func(e *trace.Event) { e.A, e.B, e.D = tick, tick&15, 3 })
	}
	s.ev("wheel", trace.KindWheelExpire, func(e *trace.Event) { e.A, e.B, e.C, e.D = 12, 12, 5, 1800e6 })
	for i := range s.events {
		s.events[i].Seq = uint64(i + 1)
	}
	return s.events
}

func writeTrace(t *testing.T, events []trace.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tour.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := jsonl.NewWriter(f, jsonl.Header{Scenario: "tour", Model: "multi", Loops: fakeTopology,
		Config: "io_ratio=50 rebuild_threshold=512 selector=nio trigger=level"}, jsonl.Options{})
	w.Consume(events)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func startReplay(t *testing.T, path string, w, h int) *harness {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return newHarness(t, w, h, func(o Options) error { return replayFrom(f, path, "", o) })
}

// replayFrom reads a trace as the command line and the page do
// (ReadReplay) and shows it (RunReplayTrace); name names it in errors and
// the header.
func replayFrom(r io.Reader, name, banner string, o Options) error {
	tr, cut, err := ReadReplay(r, name)
	if err != nil {
		return err
	}
	return RunReplayTrace(tr, cut, name, banner, o)
}

func TestReplayScreen(t *testing.T) {
	checkGoroutines(t)
	events := replayScript()
	hs := startReplay(t, writeTrace(t, events), 100, 34)
	if got := hs.frame(); !strings.Contains(got, "event 0/"+strconv.Itoa(len(events))) {
		t.Errorf("a replay opens at the start:\n%s", got)
	}
	// > jumps to the first event a default breakpoint stops at: the
	// first premature select of worker-1.
	hs.press(runeEv('>'))
	if got := hs.frame(); !strings.Contains(got, "select_cnt=300 premature") {
		t.Errorf("> did not stop at the premature select:\n%s", got)
	}
	// From the end, < goes back to the rebuild and focuses the loop that
	// hit it; one event on, worker-1 is parked at its gate by the rebuild
	// breakpoint. The step clears the jump's message, which named the
	// event before.
	hs.press(keyEv(tcell.KeyEnd), runeEv('<'))
	if got := hs.frame(); !strings.Contains(got, "─ worker-1 · tid") || !strings.Contains(got, "event 135: worker-1 rebuild_end") {
		t.Errorf("< did not focus worker-1 and say where it stopped:\n%s", got)
	}
	hs.press(runeEv('.'))
	golden(t, "replay_rebuild", hs.frame())
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// The status bar lists the breakpoints on where it has room; at 80
// columns, where the list would be cut mid-word, it counts them.
func TestReplayBarCountsTheBreakpointsWhenNarrow(t *testing.T) {
	checkGoroutines(t)
	path := writeTrace(t, replayScript())
	for _, c := range []struct {
		w, h int
		want string
	}{
		{w: 100, h: 34, want: "breaks: rebuild,premature,deadline,panic"},
		{w: 80, h: 24, want: "breaks: 4 (b)"},
	} {
		hs := startReplay(t, path, c.w, c.h)
		if got := hs.frame(); !strings.Contains(got, c.want) {
			t.Errorf("at %d columns the bar lacks %q:\n%s", c.w, c.want, got)
		}
		if err := hs.quit(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReplayStepsBackwardsToTheSameScreen(t *testing.T) {
	checkGoroutines(t)
	hs := startReplay(t, writeTrace(t, replayScript()), 100, 34)
	hs.press(runeEv('g'))
	for _, r := range "60" {
		hs.press(runeEv(r))
	}
	hs.press(keyEv(tcell.KeyEnter))
	at60 := hs.frame()
	if !strings.Contains(at60, "event 60/") {
		t.Fatalf("g 60 did not go to event 60:\n%s", at60)
	}
	for range 25 {
		hs.press(keyEv(tcell.KeyRight))
	}
	if strings.Contains(hs.frame(), "event 60/") {
		t.Fatal("→ did not move")
	}
	for range 25 {
		hs.press(keyEv(tcell.KeyLeft))
	}
	if back := hs.frame(); back != at60 {
		t.Errorf("25 events forward and back differs:\n--- after ---\n%s--- before ---\n%s", back, at60)
	}
	// A time goes to the last event at or before it.
	hs.press(runeEv('g'), runeEv('1'), runeEv('s'), keyEv(tcell.KeyEnter))
	if got := hs.frame(); !strings.Contains(got, "00:01.000/") {
		t.Errorf("g 1s:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestReplayPlays(t *testing.T) {
	checkGoroutines(t)
	hs := startReplay(t, writeTrace(t, replayScript()), 100, 34)
	hs.press(runeEv('+'), runeEv('+'), runeEv('+'), runeEv('+'), runeEv(' '))
	if got := hs.frame(); !strings.Contains(got, "▶ playing 8×") {
		t.Fatalf("space plays at 8×:\n%s", got)
	}
	// 1.8 s of trace at 8× take about 0.23 s.
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "■ stopped") }, "the end of the trace")
	if got := hs.frame(); !strings.Contains(got, "event "+strconv.Itoa(len(replayScript()))+"/") {
		t.Errorf("playing stopped before the end:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestReplayBadFiles(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ReadReplay(strings.NewReader(""), filepath.Join(dir, "empty.jsonl")); err == nil ||
		!strings.Contains(err.Error(), "empty.jsonl:1") {
		t.Errorf("empty file: %v", err)
	}

	// A trace cut short opens up to the cut, with the reason in the footer.
	checkGoroutines(t)
	full, err := os.ReadFile(writeTrace(t, replayScript()))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(full), "\n")
	cut := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:40], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := startReplay(t, cut, 100, 34)
	got := hs.frame()
	if !strings.Contains(got, "event 0/39") || !strings.Contains(got, "trace was cut short") {
		t.Errorf("cut trace:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// A loop whose ioRatio changed during the run shows its own ratio, from
// its io_ratio event, not the header's starting one.
func TestReplayShowsALoopsChangedIORatio(t *testing.T) {
	checkGoroutines(t)
	s := tourScript()
	s.at(900)
	for _, l := range fakeTopology[:5] {
		s.ev(l.Name, trace.KindIORatio, func(e *trace.Event) { e.A, e.B = 10, 50 })
	}
	for i := range s.events {
		s.events[i].Seq = uint64(i + 1)
	}
	hs := startReplay(t, writeTrace(t, s.events), 100, 34)
	before := hs.frame()
	hs.press(keyEv(tcell.KeyEnd))
	after := hs.frame()
	ratio := regexp.MustCompile(`ioRatio\s+(\S+)`)
	if m := ratio.FindStringSubmatch(before); m == nil || m[1] == "10" {
		t.Errorf("before the io_ratio event the detail shows %v:\n%s", m, before)
	}
	if m := ratio.FindStringSubmatch(after); m == nil || m[1] != "10" {
		t.Errorf("after the io_ratio event the detail shows %v; want ioRatio 10:\n%s", m, after)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// A trace's header config gives the replay its settings, the loop design
// included, which the header and detail pane then name.
func TestHeaderConfigReadsTheLoopDesign(t *testing.T) {
	got := headerConfig("io_ratio=50 rebuild_threshold=512 selector=nio trigger=level netty=4.2")
	if want := (model.Settings{IORatio: 50, Threshold: 512, Netty: "4.2"}); got != want {
		t.Errorf("headerConfig = %+v, want %+v", got, want)
	}
	if got := headerConfig(""); got != (model.Settings{IORatio: -1}) {
		t.Errorf("headerConfig of nothing = %+v", got)
	}
}

// The timer wheel is a thread of its own: it is focused like a loop, last
// in the order, and its detail pane is the wheel, drawn nowhere else.
func TestReplayWheelThread(t *testing.T) {
	checkGoroutines(t)
	hs := startReplay(t, writeTrace(t, replayScript()), 100, 34)
	hs.press(keyEv(tcell.KeyEnd))
	if got := hs.frame(); !strings.Contains(got, "tab to its thread") || strings.Contains(got, "HashedWheelTimer ·") {
		t.Errorf("a loop's pane should point to the wheel, not draw it:\n%s", got)
	}
	hs.press(keyEv(tcell.KeyBacktab), keyEv(tcell.KeyBacktab))
	golden(t, "replay_wheel_thread", hs.frame())
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// f follows an item in a replay too: the item of the newest log line,
// its events up to the replay's position listed from the first.
func TestReplayFollowsAnItem(t *testing.T) {
	checkGoroutines(t)
	events := replayScript()
	hs := startReplay(t, writeTrace(t, events), 100, 34)
	hs.press(keyEv(tcell.KeyEnd))
	hs.frame()
	hs.press(runeEv('f'))
	got := hs.frame()
	if !strings.Contains(got, "─ following ") {
		t.Fatalf("f followed nothing in the replay:\n%s", got)
	}
	hs.press(runeEv('f'))
	if off := hs.frame(); strings.Contains(off, "─ following ") {
		t.Errorf("a second f kept following:\n%s", off)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// The replay's timeline cursor: c shows it on the column of the current
// event and the event pane lists the focused loop's events in that slice,
// each select_end with why it returned; ← moves the cursor a column, →
// at the right edge moves the replay on by a column's time, and c hides
// it, giving ←→ back to stepping events.
func TestReplayCursorInspectsASlice(t *testing.T) {
	checkGoroutines(t)
	hs := startReplay(t, writeTrace(t, replayScript()), 100, 34)
	hs.press(keyEv(tcell.KeyEnd), runeEv('<'), runeEv('c'))
	got := hs.frame()
	golden(t, "replay_cursor_inspect", got)
	if !strings.Contains(got, "▲") || !strings.Contains(got, "─ slice 00:00.4") ||
		!strings.Contains(got, "← nothing to do: counts") {
		t.Errorf("no cursor, no inspect panel or no reason for the premature selects:\n%s", got)
	}
	hs.press(keyEv(tcell.KeyLeft))
	if moved := hs.frame(); moved == got || !strings.Contains(moved, "event 135/") {
		t.Errorf("← did not move the cursor, or moved the replay:\n%s", moved)
	}
	hs.press(keyEv(tcell.KeyRight), keyEv(tcell.KeyRight))
	if on := hs.frame(); strings.Contains(on, "event 135/") {
		t.Errorf("→ at the right edge did not move the replay on:\n%s", on)
	}
	hs.press(runeEv('c'))
	off := hs.frame()
	if strings.Contains(off, "─ slice ") || strings.Contains(off, "▲") {
		t.Errorf("c left the cursor on:\n%s", off)
	}
	hs.press(runeEv(','))
	if back := hs.frame(); back == off {
		t.Error(", did not step the replay back once the cursor was off")
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}
