package widgets

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tui/model"
)

// An io_uring loop has no selectCnt to watch: its SELCNT cell shows the
// operations it has in flight on its ring instead, while an epoll loop's
// shows selectCnt against the rebuild threshold.
func TestLoopTableShowsTheRing(t *testing.T) {
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(120, 4)
	var epoll, ring LoopRow
	epoll.Name, epoll.SelectCnt, epoll.Threshold = "worker-0", 3, 512
	ring.Name, ring.Threshold = "worker-1", 512
	ring.Ring = model.Ring{Enters: 10, InFlight: 7}
	lt := NewLoopTable(NewTheme(true))
	lt.SetRect(0, 0, 120, 4)
	lt.Set([]Seg{S("worker", NewTheme(true).Title)}, []LoopRow{epoll, ring}, 0, 0, true)
	lt.Draw(scr)
	scr.Show()
	cells, w, _ := scr.GetContents()
	row := func(y int) string {
		var b strings.Builder
		for _, c := range cells[y*w : (y+1)*w] {
			b.WriteString(string(c.Runes))
		}
		return b.String()
	}
	if r := row(2); !strings.Contains(r, "3/512") {
		t.Errorf("epoll row %q lacks its selectCnt", r)
	}
	if r := row(3); !strings.Contains(r, "ring 7") || strings.Contains(r, "/512") {
		t.Errorf("io_uring row %q should show its ring, not a selectCnt", r)
	}
}

// The loop the caption talks about has its name underlined, with colour
// or without; the others do not.
func TestLoopTableUnderlinesTheWatchedLoop(t *testing.T) {
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(120, 4)
	var a, b LoopRow
	a.Name, b.Name, b.Watched = "worker-0", "worker-1", true
	lt := NewLoopTable(NewTheme(true))
	lt.SetRect(0, 0, 120, 4)
	lt.Set([]Seg{S("worker", NewTheme(true).Title)}, []LoopRow{a, b}, 0, 0, true)
	lt.Draw(scr)
	scr.Show()
	cells, w, _ := scr.GetContents()
	underlined := func(y int) bool { // the name's first letter
		return cells[y*w+1].Style.GetUnderlineStyle() != tcell.UnderlineStyleNone
	}
	if underlined(2) || !underlined(3) {
		t.Errorf("underlined: worker-0 %v, worker-1 %v; want false, true", underlined(2), underlined(3))
	}
}

// At 120 columns, with the clients' figures, the table keeps Netty's
// state names (the captions, the lessons and docs/concepts.md speak of
// NOT_STARTED), a seven-digit thread id whole and the worst window, and
// its rows reach the right edge: no column is left unused.
func TestLoopTableAt120KeepsNettyStateNames(t *testing.T) {
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	const w = 120
	scr.SetSize(w, 4)
	var started, idle LoopRow
	started.Name, started.TID, started.Threshold = "worker-0", 1234567, 512
	started.State = trace.StateStarted
	started.Split = model.TimeSplit{Known: true, Select: 40, IO: 30, Tasks: 30, Latency: true,
		P50US: 99_900, P99US: 99_900, WorstP99US: 99_900}
	idle.Name, idle.Threshold, idle.State = "worker-1", 512, trace.StateNotStarted
	lt := NewLoopTable(NewTheme(true))
	lt.SetRect(0, 0, w, 4)
	lt.Set([]Seg{S("worker", NewTheme(true).Title)}, []LoopRow{started, idle}, 0, 0, true)
	lt.Draw(scr)
	scr.Show()
	cells, cw, _ := scr.GetContents()
	row := func(y int) string {
		var b strings.Builder
		for _, c := range cells[y*cw : (y+1)*cw] {
			b.WriteString(string(c.Runes))
		}
		return b.String()
	}
	if h := row(1); !strings.Contains(h, "worst") || !strings.Contains(h, "p50/p99") {
		t.Errorf("header %q lacks the clients' columns", h)
	}
	r0, r1 := row(2), row(3)
	for _, want := range []string{"1234567", "STARTED", "99.9ms/99.9ms 99.9ms"} {
		if !strings.Contains(r0, want) {
			t.Errorf("row %q lacks %q", r0, want)
		}
	}
	if !strings.Contains(r1, "NOT_STARTED") {
		t.Errorf("row %q lacks NOT_STARTED", r1)
	}
	if !strings.HasSuffix(r0, "99.9ms") {
		t.Errorf("row %q does not reach the right edge", r0)
	}
}

// A compact row is the mark, the name (8 cells at least), Netty's longest
// state name and the phase ring, each followed by a gap but the mark.
func TestCompactWidth(t *testing.T) {
	for nameW, want := range map[int]int{0: 35, 8: 35, 12: 39} {
		if got := CompactWidth(nameW); got != want {
			t.Errorf("CompactWidth(%d) = %d, want %d", nameW, got, want)
		}
	}
}
