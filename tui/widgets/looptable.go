package widgets

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/tui/model"
)

// LoopRow is one event loop as the table shows it: a row of the frame.
type LoopRow = model.FrameLoop

// LoopTable is one group's panel: a rule with the group's title, an
// optional column header, and a row per loop. It scrolls to keep the
// focused row visible.
type LoopTable struct {
	*tview.Box
	th      *Theme
	title   []Seg
	header  bool
	rows    []LoopRow
	focus   int
	offset  int
	now     int64
	onClick func(row int)
	// compact: the lesson layout's rows (CompactWidth); more is how many
	// loops of the run have no row, said on a last line.
	compact bool
	more    int
}

// SetCompact draws the table as the small terminal's rows: the mark of
// what happened, the name, the state by Netty's name and the phase ring,
// without a column header; more loops than rows are counted on a last
// line.
func (t *LoopTable) SetCompact(compact bool, more int) { t.compact, t.more = compact, more }

// compactState is the state column's width: Netty's longest state name,
// SHUTTING_DOWN.
const compactState = 13

// CompactWidth is the width of a compact row whose names are nameW wide:
// its columns, each with the gap that follows it.
func CompactWidth(nameW int) int {
	c, n := compactWidths(nameW), 0
	for _, col := range compactColumns {
		n += col.width(c)
		if !col.joined {
			n++
		}
	}
	return n
}

// compactWidths is the compact rows' layout, for names nameW wide.
func compactWidths(nameW int) widths {
	return widths{name: max(nameW, 8), state: compactState, phase: 10, longState: true}
}

// NewLoopTable returns an empty table.
func NewLoopTable(th *Theme) *LoopTable {
	return &LoopTable{Box: tview.NewBox(), th: th, focus: -1}
}

// Set replaces the rows. focus is a row index or -1; now is the event time
// against which deadlines are shown.
func (t *LoopTable) Set(title []Seg, rows []LoopRow, focus int, now int64, header bool) {
	t.title, t.rows, t.focus, t.now, t.header = title, rows, focus, now, header
}

// OnClick sets what a mouse click on a row does.
func (t *LoopTable) OnClick(f func(row int)) { t.onClick = f }

// Want returns the rows the table needs to show everything.
func (t *LoopTable) Want() int {
	n := 1 + len(t.rows)
	if t.compact && t.more > 0 {
		n++
	}
	if t.header {
		n++
	}
	return n
}

// widths is the table's layout at one width: the width of each column.
type widths struct {
	name, tid, state, phase, iter, sel, queue, spark, sched, ch int
	longState                                                   bool
	// time and lat are where the loop's last second went and its
	// clients' latency (timesplit.go); 0 when the width has no room.
	time, lat int
	// worst is the clients' worst 250 ms window so far; 0 without room.
	worst int
}

func layout(w, nameW int) widths {
	c := widths{name: 9, tid: 6, state: 8, phase: 10, iter: 6, sel: 7, queue: 5, spark: 5, sched: 9, ch: 3}
	// The marker, the ten columns and the nine gaps between them (the
	// time columns bring their own gaps).
	used := func() int {
		return 1 + c.name + c.tid + c.state + c.phase + c.iter + c.sel + c.queue + c.spark + c.sched + c.ch + 9
	}
	extra := w - used()
	grow := func(f *int, upTo int) {
		if extra > 0 && *f < upTo {
			d := min(extra, upTo-*f)
			*f += d
			extra -= d
		}
	}
	grow(&c.name, max(9, min(nameW, 14)))
	c.time, c.lat, extra = splitColumns(&c, extra)
	// The clients' worst window before the long state names: a stall
	// the last second has forgotten is the lesson of a row.
	if c.lat > 0 && extra >= splitWorstW+1 {
		c.worst, extra = splitWorstW, extra-splitWorstW-1
	}
	grow(&c.tid, 7)
	if extra >= 5 {
		c.state, c.longState = 13, true
		extra -= 5
	}
	grow(&c.sel, 9)
	grow(&c.spark, 24)
	grow(&c.sched, 11)
	grow(&c.iter, 8)
	grow(&c.ch, 5)
	grow(&c.spark, 48)
	return c
}

// Draw implements tview.Primitive.
func (t *LoopTable) Draw(scr tcell.Screen) {
	clearBox(t.Box, scr)
	x, y, w, h := t.GetInnerRect()
	if h <= 0 || w <= 0 {
		return
	}
	Rule(scr, x, y, w, t.title, t.th)
	y, h = y+1, h-1
	nameW := 0
	for _, r := range t.rows {
		nameW = max(nameW, Width(r.Loop.Name))
	}
	if t.compact {
		t.drawCompact(scr, x, y, w, h, nameW)
		return
	}
	c := layout(w, nameW)
	if t.header && h > 0 {
		t.drawHeader(scr, x, y, w, tableColumns, c)
		y, h = y+1, h-1
	}
	if h <= 0 {
		return
	}
	if t.focus >= 0 {
		if t.focus < t.offset {
			t.offset = t.focus
		}
		if t.focus >= t.offset+h {
			t.offset = t.focus - h + 1
		}
	}
	t.offset = max(0, min(t.offset, len(t.rows)-h))
	for i := 0; i < h && t.offset+i < len(t.rows); i++ {
		t.drawRow(scr, x, y+i, w, tableColumns, c, t.offset+i)
	}
	if t.offset > 0 {
		Put(scr, x+w-1, y, 1, "↑", t.th.Dim)
	}
	if t.offset+h < len(t.rows) {
		Put(scr, x+w-1, y+h-1, 1, "↓", t.th.Dim)
	}
}

// drawCompact draws the compact rows in (x, y, w, h), the count of the
// loops without a row on the last.
func (t *LoopTable) drawCompact(scr tcell.Screen, x, y, w, h, nameW int) {
	c := compactWidths(nameW)
	n := min(len(t.rows), h)
	more := t.more + len(t.rows) - n
	if more > 0 && n == h {
		n = max(h-1, 0)
		more = t.more + len(t.rows) - n
	}
	for i := 0; i < n; i++ {
		t.drawRow(scr, x, y+i, w, compactColumns, c, i)
	}
	if more > 0 && n < h {
		word := " more loops"
		if more == 1 {
			word = " more loop"
		}
		Put(scr, x+1, y+n, w-1, "+"+strconv.Itoa(more)+word+" · tab reaches them", t.th.Dim)
	}
}

// drawHeader draws the columns' headers, each over its column.
func (t *LoopTable) drawHeader(scr tcell.Screen, x, y, w int, cols []column, c widths) {
	cx := x
	for _, col := range cols {
		cw := col.width(c)
		if cw <= 0 {
			continue
		}
		head := col.head
		if col.short != "" && cw < Width(head) {
			head = col.short
		}
		s := Pad(head, cw)
		if col.right && !col.headLeft {
			s = PadLeft(head, cw)
		}
		Put(scr, cx, y, max(0, min(cw, x+w-cx)), s, t.th.Dim)
		cx += cw
		if !col.joined {
			cx++
		}
	}
}

// drawRow draws row i: its columns' cells, a gap between two, in the
// row's style (the focused row's background).
func (t *LoopTable) drawRow(scr tcell.Screen, x, y, w int, cols []column, c widths, i int) {
	cl := cell{r: t.rows[i], c: c, sel: i == t.focus, now: t.now, th: t.th}
	st := func(s tcell.Style) tcell.Style { return t.th.Row(s, cl.sel) }
	Fill(scr, x, y, w, ' ', st(t.th.Base))
	gap := S(" ", st(t.th.Base))
	var segs []Seg
	joined := true
	for _, col := range cols {
		cw := col.width(c)
		if cw <= 0 {
			continue
		}
		if !joined {
			segs = append(segs, gap)
		}
		joined = col.joined
		if col.segs != nil {
			for _, sg := range col.segs(cl) {
				segs = append(segs, S(sg.Text, st(sg.Style)))
			}
			continue
		}
		text, style := col.text(cl)
		if col.right {
			text = PadLeft(text, cw)
		} else {
			text = Pad(text, cw)
		}
		segs = append(segs, S(text, st(style)))
	}
	PutSegs(scr, x, y, w, segs)
}

// MouseHandler focuses the clicked row.
func (t *LoopTable) MouseHandler() func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (consumed bool, capture tview.Primitive) {
	return t.WrapMouseHandler(func(action tview.MouseAction, event *tcell.EventMouse, setFocus func(p tview.Primitive)) (bool, tview.Primitive) {
		if action != tview.MouseLeftClick || !t.InRect(event.Position()) {
			return false, nil
		}
		_, y, _, _ := t.GetInnerRect()
		_, my := event.Position()
		row := my - y - 1
		if t.header {
			row--
		}
		if row >= 0 && t.offset+row < len(t.rows) && t.onClick != nil {
			t.onClick(t.offset + row)
		}
		return true, nil
	})
}
