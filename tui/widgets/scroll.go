package widgets

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
)

// ScrollText draws lines of text longer than their box a window at a
// time: the last row then says which lines are shown and the keys that
// move them, so no line is cut without the learner knowing. It keeps its
// offset between draws; the owner moves it with Scroll.
type ScrollText struct {
	top   int
	shown int // lines of text the last draw showed
	total int // lines the last draw had
}

// Scroll moves the window by n lines, or by a window less a line when n
// is ±page (PageDown, PageUp).
func (s *ScrollText) Scroll(n int) {
	if n == Page || n == -Page {
		step := max(s.shown-1, 1)
		if n < 0 {
			step = -step
		}
		n = step
	}
	s.top = max(0, min(s.top+n, s.total-s.shown))
}

// Page, passed to Scroll, moves a window at a time.
const Page = 1 << 20

// Top moves the window back to the first line.
func (s *ScrollText) Top() { s.top = 0 }

// End moves the window to the last lines.
func (s *ScrollText) End() { s.top = max(0, s.total-s.shown) }

// show records a draw of total lines, rows of them at most, and returns
// the first one to draw: the window stays within the lines.
func (s *ScrollText) show(total, rows int) int {
	s.total, s.shown = total, max(min(rows, total), 0)
	s.top = max(0, min(s.top, total-s.shown))
	return s.top
}

// Draw draws lines in (x, y, w, h). When they fit, all of them; else h-1
// of them from the offset, and under them a mark: the lines shown, of how
// many, and keys (such as "[ ] scroll").
func (s *ScrollText) Draw(scr tcell.Screen, x, y, w, h int, lines [][]Seg, keys string, th *Theme) {
	if h <= 0 {
		s.show(len(lines), 0)
		return
	}
	if len(lines) <= h {
		s.show(len(lines), h)
		for i, l := range lines {
			PutSegs(scr, x, y+i, w, l)
		}
		return
	}
	s.show(len(lines), max(h-1, 1))
	for i := 0; i < s.shown && i < h; i++ {
		PutSegs(scr, x, y+i, w, lines[s.top+i])
	}
	if h < 2 {
		return
	}
	arrow := "↓"
	switch {
	case s.top+s.shown >= len(lines):
		arrow = "↑"
	case s.top > 0:
		arrow = "↕"
	}
	mark := arrow + " lines " + strconv.Itoa(s.top+1) + "–" + strconv.Itoa(s.top+s.shown) + " of " + strconv.Itoa(len(lines))
	if keys != "" {
		mark += " · " + keys
	}
	Put(scr, x, y+h-1, w, mark, th.Dim)
}
