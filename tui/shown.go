package tui

import "github.com/gdamore/tcell/v2"

// shownCells keeps what the terminal shows, so that a frame writes to it
// only the cells that changed. tview clears the screen before every draw
// and the widgets clear their boxes before they draw, so tcell's buffer
// sees every cell change (to a blank, then back to the same text) and
// marks it dirty: without this, every frame rewrote every cell of the
// screen to the terminal, some 7 KB at 120×40 even when nothing had
// moved. After a frame is drawn, settle locks the cells equal to what the
// terminal shows (tcell skips a locked cell when it shows the buffer) and
// unlocks the others (an unlocked cell is drawn afresh). UI goroutine.
type shownCells struct {
	scr   tcell.Screen
	w, h  int
	cells []shownCell
}

type shownCell struct {
	str    string
	style  tcell.Style
	wide   bool
	locked bool
}

// settle runs once a frame is drawn into scr and before tview shows it.
func (s *shownCells) settle(scr tcell.Screen) {
	w, h := scr.Size()
	if scr != s.scr || w != s.w || h != s.h {
		// A new or resized screen holds no locked cell (tcell's resize
		// makes new cells) and must be drawn whole: nothing is known
		// shown. The empty string matches no cell, which reads at least
		// a blank.
		s.scr, s.w, s.h = scr, w, h
		s.cells = make([]shownCell, w*h)
		scr.LockRegion(0, 0, w, h, false)
	}
	for y := range h {
		row := s.cells[y*w : (y+1)*w]
		redraw := false // the cell on the left changed to or from a wide rune
		for x := range row {
			c := &row[x]
			str, st, width := scr.Get(x, y)
			same := !redraw && str == c.str && st == c.style
			// A wide rune covers the cell on its right; writing over it
			// blanks both on the terminal, so that cell is drawn again.
			redraw = !same && (c.wide || width > 1)
			if same != c.locked {
				scr.LockRegion(x, y, 1, 1, same)
				c.locked = same
			}
			c.str, c.style, c.wide = str, st, width > 1
		}
	}
}
