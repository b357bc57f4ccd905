package tui

import "github.com/reactorviz/reactorviz/tui/model"

// Slice navigation on the timeline, which the live screen ([ ]) and the
// replay (PgUp/PgDn, [ ]) share: the cursor moves by a slice of the
// focused loop's lane rather than by a column.

// moveBySlice moves the cursor to the start of the next (or previous)
// slice of the focused loop's lane: a run of columns spent alike, or a
// marked column.
func (t *timelineView) moveBySlice(f *model.Frame, focus int, fwd bool) {
	l, _ := loopAt(f.Snapshot, focus)
	cells := l.Lane.Cells
	if len(cells) == 0 {
		return
	}
	if !t.cursorOn {
		t.cursorOn, t.cursor = true, len(cells)-1
	}
	t.cursor = sliceStart(cells, min(t.cursor, len(cells)-1), fwd)
}

// sliceStart is the first column of the slice after (or before) the one
// column c is in; the edge when there is none.
func sliceStart(cells []model.Cell, c int, fwd bool) int {
	class := func(i int) int {
		switch cl := cells[i]; {
		case cl.Marks != 0:
			return 100 + i // a marked column is a slice of its own
		case cl.Width > 0 && cl.Parked*2 >= cl.Width:
			return 4
		case !cl.Known:
			return 0
		default:
			return 1 + int(cl.Dominant())
		}
	}
	start := func(i int) int { // the first column of i's slice
		for i > 0 && class(i-1) == class(i) {
			i--
		}
		return i
	}
	if fwd {
		for i := c + 1; i < len(cells); i++ {
			if class(i) != class(c) {
				return i
			}
		}
		return len(cells) - 1
	}
	if s := start(c); s < c {
		return s
	}
	if c == 0 {
		return 0
	}
	return start(c - 1)
}
