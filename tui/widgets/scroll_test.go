package widgets

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// screenText draws with draw on a w×h simulation screen and returns its
// rows.
func screenText(t *testing.T, w, h int, draw func(scr tcell.Screen)) []string {
	t.Helper()
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(w, h)
	draw(scr)
	scr.Show()
	cells, _, _ := scr.GetContents()
	rows := make([]string, h)
	for y := range h {
		var b strings.Builder
		for _, c := range cells[y*w : (y+1)*w] {
			b.WriteString(string(c.Runes))
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

// Lines longer than their box scroll a window at a time, the last row
// saying which are shown; a page keeps one line of the last, and the
// window never leaves the lines.
func TestScrollTextWindow(t *testing.T) {
	th := NewTheme(true)
	var lines [][]Seg
	for i := 1; i <= 10; i++ {
		lines = append(lines, []Seg{S("line "+strconv.Itoa(i), th.Base)})
	}
	var s ScrollText
	draw := func() []string {
		return screenText(t, 40, 5, func(scr tcell.Screen) { s.Draw(scr, 0, 0, 40, 5, lines, "keys", th) })
	}
	rows := draw()
	if rows[0] != "line 1" || rows[4] != "↓ lines 1–4 of 10 · keys" {
		t.Errorf("first window: %q", rows)
	}
	s.Scroll(Page)
	if rows = draw(); rows[0] != "line 4" || rows[4] != "↕ lines 4–7 of 10 · keys" {
		t.Errorf("a page on: %q", rows)
	}
	s.Scroll(100)
	if rows = draw(); rows[0] != "line 7" || rows[4] != "↑ lines 7–10 of 10 · keys" {
		t.Errorf("past the end: %q", rows)
	}
	s.Top()
	if rows = draw(); rows[0] != "line 1" {
		t.Errorf("Top: %q", rows)
	}
}

// The help page scrolls with the same window: PgDn keeps a line, End shows
// the last lines, Home the first, and no key takes the window past them.
func TestHelpViewScrolls(t *testing.T) {
	th := NewTheme(true)
	var entries []HelpEntry
	for i := 1; i <= 30; i++ {
		entries = append(entries, HelpEntry{Term: "k" + strconv.Itoa(i), Text: "entry " + strconv.Itoa(i)})
	}
	v := NewHelpView(th)
	v.Set("help", entries)
	v.SetRect(0, 0, 40, 12) // 9 rows of page inside the frame
	draw := func() []string { return screenText(t, 40, 12, func(scr tcell.Screen) { v.Draw(scr) }) }
	first := func(rows []string) string { return strings.Join(strings.Fields(strings.Trim(rows[1], "│")), " ") }
	rows := draw()
	if got := first(rows); got != "k1 entry 1" || !strings.Contains(rows[10], "PgUp PgDn scroll") {
		t.Errorf("first page: %q", rows)
	}
	v.Scroll(tcell.NewEventKey(tcell.KeyPgDn, 0, tcell.ModNone))
	if got := first(draw()); got != "k9 entry 9" {
		t.Errorf("PgDn: the page starts with %q, want the previous page's last line", got)
	}
	v.Scroll(tcell.NewEventKey(tcell.KeyEnd, 0, tcell.ModNone))
	if got := first(draw()); got != "k22 entry 22" {
		t.Errorf("End: the page starts with %q", got)
	}
	v.Scroll(tcell.NewEventKey(tcell.KeyDown, 0, tcell.ModNone))
	if got := first(draw()); got != "k22 entry 22" {
		t.Errorf("Down past the end: the page starts with %q", got)
	}
	v.Scroll(tcell.NewEventKey(tcell.KeyHome, 0, tcell.ModNone))
	if got := first(draw()); got != "k1 entry 1" {
		t.Errorf("Home: the page starts with %q", got)
	}
}
