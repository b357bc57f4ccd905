package widgets

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

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
