package widgets

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tui/model"
)

var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkFloor is the smallest full scale of a sparkline: up to it each
// block is one unit, so a queue that never holds more than a task or two
// draws low bars instead of full ones.
var sparkFloor = int64(len(sparkBlocks))

// Sparkline renders the latest values in width cells, newest on the right,
// scaled to the largest value shown, or to sparkFloor if that is larger.
// Zero is a blank cell, so an idle queue reads as empty rather than as a
// floor of bars.
func Sparkline(vals []int64, width int) string {
	if width <= 0 {
		return ""
	}
	if len(vals) > width {
		vals = vals[len(vals)-width:]
	}
	peak := sparkFloor
	for _, v := range vals {
		peak = max(peak, v)
	}
	out := make([]rune, 0, width)
	for range width - len(vals) {
		out = append(out, ' ')
	}
	for _, v := range vals {
		switch {
		case v <= 0:
			out = append(out, ' ')
		default:
			i := int((v*int64(len(sparkBlocks)) - 1) / peak)
			out = append(out, sparkBlocks[min(max(i, 0), len(sparkBlocks)-1)])
		}
	}
	return string(out)
}

// phaseLabels are the phase ring's names: NioEventLoop.run's three steps.
var phaseLabels = [...]struct {
	p           trace.Phase
	short, long string
}{
	{trace.PhaseSelect, "sel", "select"},
	{trace.PhaseIO, "io", "processSelectedKeys"},
	{trace.PhaseTasks, "tsk", "runAllTasks"},
}

// PhaseSegs renders the compact phase ring of a table row: "sel›io›tsk"
// with the current phase lit; a paused loop lights the phase it waits
// before in the pause style.
func PhaseSegs(p trace.Phase, paused bool, th *Theme) []Seg {
	lit := th.Lit
	if paused {
		lit = th.LitPause
	}
	segs := make([]Seg, 0, 5)
	for i, l := range phaseLabels {
		if i > 0 {
			segs = append(segs, S("›", th.Dim))
		}
		st, name := th.Dim, l.short
		if l.p == p {
			// Upper case marks the lit phase without colour too.
			st, name = lit, strings.ToUpper(name)
		}
		segs = append(segs, S(name, st))
	}
	return segs
}

// IterationRing draws one loop iteration as a ring, select → processSelectedKeys
// → runAllTasks and back, with the current phase lit (concept C6).
type IterationRing struct {
	*tview.Box
	th     *Theme
	phase  trace.Phase
	paused bool
}

// NewIterationRing returns an unlit ring.
func NewIterationRing(th *Theme) *IterationRing {
	return &IterationRing{Box: tview.NewBox(), th: th, phase: trace.PhaseNone}
}

// Set lights a phase; paused lights it in the pause style.
func (r *IterationRing) Set(p trace.Phase, paused bool) {
	r.phase, r.paused = p, paused
}

// Draw draws the ring in two rows:
//
//	╭▶●select ─▶ processSelectedKeys ─▶ runAllTasks ─╮
//	╰────────────────────────────────────────────────╯
func (r *IterationRing) Draw(scr tcell.Screen) {
	clearBox(r.Box, scr)
	x, y, w, h := r.GetInnerRect()
	if w < 12 || h < 1 {
		return
	}
	long := w >= 50
	lit := r.th.Lit
	if r.paused {
		lit = r.th.LitPause
	}
	segs := []Seg{S("╭▶", r.th.Dim)}
	for i, l := range phaseLabels {
		if i > 0 {
			segs = append(segs, S(" ─▶", r.th.Dim))
		}
		name := l.short
		if long {
			name = l.long
		}
		// A marker, not only a colour, shows the lit phase.
		st, mark := r.th.Base, " "
		if l.p == r.phase {
			st, mark = lit, "●"
		}
		segs = append(segs, S(mark, st), S(name, st))
	}
	segs = append(segs, S(" ─╮", r.th.Dim))
	n := PutSegs(scr, x, y, w, segs)
	if h < 2 {
		return
	}
	Put(scr, x, y+1, 1, "╰", r.th.Dim)
	Fill(scr, x+1, y+1, n-2, '─', r.th.Dim)
	Put(scr, x+n-1, y+1, 1, "╯", r.th.Dim)
}

// WheelView is what the wheel ring shows: a frame's wheel.
type WheelView = model.WheelView

// WheelRing draws a HashedWheelTimer as a ring of slots around a
// rectangle, clockwise from the top-left, with the cursor lit (C17). A
// large wheel maps several slots to one cell; a cell shows '·' for empty
// slots, a digit or '+' for linked timeouts, '*' for a marked slot.
type WheelRing struct {
	*tview.Box
	th *Theme
	v  WheelView
}

// NewWheelRing returns an empty ring.
func NewWheelRing(th *Theme) *WheelRing { return &WheelRing{Box: tview.NewBox(), th: th} }

// Set replaces the data drawn.
func (r *WheelRing) Set(v WheelView) { r.v = v }

// Draw implements tview.Primitive.
func (r *WheelRing) Draw(scr tcell.Screen) {
	clearBox(r.Box, scr)
	x, y, w, h := r.GetInnerRect()
	if w < 8 || h < 3 {
		return
	}
	v := r.v
	if !v.Present || v.Size <= 0 {
		Put(scr, x, y, w, "no wheel in this run", r.th.Dim)
		return
	}
	w = min(w, 40)
	perim := ringCells(w, h)
	n := len(perim)
	cells := make([]int, n) // timeouts per cell
	marks := make([]bool, n)
	cellOf := func(slot int) int { return min(slot*n/v.Size, n-1) }
	for slot, c := range v.Slots {
		if slot < v.Size {
			cells[cellOf(slot)] += c
		}
	}
	for _, slot := range v.Marks {
		if slot >= 0 && slot < v.Size {
			marks[cellOf(slot)] = true
		}
	}
	cur := cellOf(min(max(v.Cursor, 0), v.Size-1))
	// A wheel smaller than the ring puts its slots on some cells only;
	// the others are drawn as the ring's line.
	isSlot := make([]bool, n)
	for slot := range min(v.Size, n) {
		isSlot[cellOf(slot)] = true
	}
	if v.Size >= n {
		for i := range isSlot {
			isSlot[i] = true
		}
	}
	for i, p := range perim {
		ch, st := '·', r.th.Dim
		switch {
		case !isSlot[i]:
			ch = ringLine(p[0], p[1], w, h)
		case marks[i]:
			ch, st = '*', r.th.Warn
		case cells[i] > 9:
			ch, st = '+', r.th.Accent
		case cells[i] > 0:
			ch, st = rune('0'+cells[i]), r.th.Accent
		}
		if i == cur {
			st = r.th.Lit
			if ch == '·' {
				ch = '▲'
			}
		}
		scr.SetContent(x+p[0], y+p[1], ch, nil, st)
	}
	lines := []string{
		"slot " + strconv.Itoa(v.Cursor) + "/" + strconv.Itoa(v.Size),
		"tick " + strconv.FormatInt(v.Tick, 10),
		"pending " + strconv.FormatInt(v.Pending, 10),
	}
	if v.TickDur > 0 {
		lines = append(lines, model.Duration(int64(v.TickDur))+"/tick")
	}
	if v.Note != "" {
		lines = append(lines, v.Note)
	}
	for i, l := range lines {
		if 1+i >= h-1 {
			break
		}
		Put(scr, x+2, y+1+i, w-4, l, r.th.Base)
	}
}

// ringLine is the box-drawing rune of a ring cell that holds no slot.
func ringLine(x, y, w, h int) rune {
	top, bottom, left, right := y == 0, y == h-1, x == 0, x == w-1
	switch {
	case top && left:
		return '╭'
	case top && right:
		return '╮'
	case bottom && left:
		return '╰'
	case bottom && right:
		return '╯'
	case top || bottom:
		return '─'
	}
	return '│'
}

// ringCells lists the border cells of a w×h rectangle clockwise from the
// top-left corner.
func ringCells(w, h int) [][2]int {
	out := make([][2]int, 0, 2*(w+h))
	for i := range w {
		out = append(out, [2]int{i, 0})
	}
	for j := 1; j < h; j++ {
		out = append(out, [2]int{w - 1, j})
	}
	for i := w - 2; i >= 0; i-- {
		out = append(out, [2]int{i, h - 1})
	}
	for j := h - 2; j > 0; j-- {
		out = append(out, [2]int{0, j})
	}
	return out
}
