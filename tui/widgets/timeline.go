package widgets

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/reactor/trace/phases"
	"github.com/reactorviz/reactorviz/tui/model"
)

// TimelineLabelW is the width of a lane's label: a focus marker and the
// loop's name. The cells take the rest of the row.
const TimelineLabelW = 11

// TimelineCols returns how many cells a timeline pane of width w draws.
func TimelineCols(w int) int { return max(w-TimelineLabelW, 0) }

// TimelineLane is one loop's swimlane as the pane draws it.
type TimelineLane struct {
	Index   int // the loop's trace index, which a click reports
	Name    string
	Focus   bool
	Watched bool // the caption talks about this loop: its label is underlined
	Lane    model.Lane
	// Follow marks the columns that hold an event of the followed item
	// (a task, a channel), drawn as GlyphFollow over everything else.
	Follow []bool
}

// Phase and mark glyphs. Each is a different character, so the timeline
// reads the same without colour (NO_COLOR). A column's glyph says how much
// of it the loop was busy: tasks as an eighth-block of that height, I/O
// as a shade, select (or under 5 % busy) as a dot.
const (
	GlyphSelect = '·'
	GlyphIO     = '▒'
	GlyphTasks  = '█'
	GlyphParked = '‖'
	GlyphFollow = '◆'
)

// tasksGlyphs are the eighth-blocks a tasks column rises by, 1/8 to 8/8;
// ioGlyphs the shades of an I/O column: under 40 %, under 75 %, more.
var (
	tasksGlyphs = []rune("▁▂▃▄▅▆▇█")
	ioGlyphs    = []rune("░▒▓")
)

// idleBusy is the busy share under which a column reads as idle.
const idleBusy = 0.05

// glyphStrings are the lanes' glyphs as strings, made once: SetContent
// makes a string of its rune for every cell it sets, and the lanes set a
// cell per column per loop on every frame.
var glyphStrings = func() map[rune]string {
	m := map[rune]string{}
	for _, r := range append(append([]rune{' ', GlyphSelect, GlyphParked, GlyphFollow}, tasksGlyphs...), ioGlyphs...) {
		m[r] = string(r)
	}
	for _, g := range markGlyphs {
		m[g.r] = string(g.r)
	}
	return m
}()

// markGlyphs lists the marks from the most urgent down: a column holding
// several shows the first. The rare ones come first, so a single wakeup
// or premature return is not hidden by the cuts of a busy batch.
// Only the marks of something wrong (a panic, a broken selector and the
// premature returns that betray it, lost events) take the alarm colour;
// the others are the loop working as designed.
var markGlyphs = []struct {
	m           phases.Mark
	r           rune
	name, short string
	alarm       bool
}{
	{phases.MarkPanic, '!', "panic", "panic", true},
	{phases.MarkRebuild, 'R', "selector rebuilt", "rebuild", true},
	{phases.MarkStop, 'S', "loop terminated", "stop", false},
	{phases.MarkPremature, 'p', "premature select return", "prem", true},
	{phases.MarkWakeup, 'w', "wakeup written", "wake", false},
	{phases.MarkDrop, 'x', "events dropped", "drop", true},
	{phases.MarkCut, 'C', "64-task deadline cut", "cut", false},
	{phases.MarkOverBudget, '+', "task over the ioRatio budget", "budget", false},
}

// MarkNames names the marks of a set, the most urgent first.
func MarkNames(m phases.Mark) []string {
	var out []string
	for _, g := range markGlyphs {
		if m&g.m != 0 {
			out = append(out, g.name)
		}
	}
	return out
}

// TimelineLegend is the key to the glyphs, for the help.
func TimelineLegend() string {
	s := string(GlyphSelect) + " blocked in select (or under 5 % busy), " +
		string(ioGlyphs) + " I/O (a light shade is a lightly busy column), " +
		string(tasksGlyphs[0]) + string(tasksGlyphs[3]) + string(GlyphTasks) + " tasks (the block's height is how busy), " +
		string(GlyphParked) + " stopped at its step gate while the run clock ran (a breakpoint, a step), " +
		string(GlyphFollow) + " an event of the followed task or channel (f), " +
		"blank: nothing recorded (not started, terminated, or between phases)"
	for _, g := range markGlyphs {
		s += ", " + string(g.r) + " " + g.name
	}
	return s
}

// TimelineKey is the short key to the glyphs, for the pane's rule.
func TimelineKey() string {
	s := string(GlyphSelect) + "sel " + string(ioGlyphs) + "io " + string(tasksGlyphs[1]) + string(tasksGlyphs[4]) + string(GlyphTasks) + "tsk " +
		string(GlyphParked) + "stopped"
	for _, g := range markGlyphs {
		s += " " + string(g.r) + g.short
	}
	return s
}

// Timeline is the swimlane pane: a rule with its title, then a lane per
// loop, oldest time on the left, the window's end on the right.
type Timeline struct {
	*tview.Box
	th     *Theme
	title  []Seg
	lanes  []TimelineLane
	ruler  string // drawn under the lanes when set
	cursor int    // the cursor's column, -1 for none
	// bare: the lanes have no labels, for a pane drawn beside rows that
	// name the loops already (the lesson layout).
	bare bool
}

// SetBare drops the lanes' labels: the cells take the whole width.
func (t *Timeline) SetBare(bare bool) { t.bare = bare }

// labelW is the width of the lanes' labels as drawn.
func (t *Timeline) labelW() int {
	if t.bare {
		return 0
	}
	return TimelineLabelW
}

// cols is how many cells a lane of a pane w wide draws.
func (t *Timeline) cols(w int) int { return max(w-t.labelW(), 0) }

// NewTimeline returns an empty timeline pane.
func NewTimeline(th *Theme) *Timeline { return &Timeline{Box: tview.NewBox(), th: th, cursor: -1} }

// Set gives the pane its title and lanes.
func (t *Timeline) Set(title []Seg, lanes []TimelineLane) { t.title, t.lanes = title, lanes }

// SetRuler gives the pane a time ruler, drawn under the lanes (its text
// starts at the first cell), and a cursor column (-1 for none), drawn in
// reverse on every lane and marked on the ruler.
func (t *Timeline) SetRuler(ruler string, cursor int) { t.ruler, t.cursor = ruler, cursor }

// LaneAt returns the trace index of the lane drawn at screen row y.
func (t *Timeline) LaneAt(px, py int) (int, bool) {
	if !t.InRect(px, py) {
		return 0, false
	}
	_, y, _, h := t.GetInnerRect()
	i := py - y - 1
	if i < 0 || i >= len(t.lanes) || i+1 >= h {
		return 0, false
	}
	return t.lanes[i].Index, true
}

// ColumnAt returns the column of the cells at screen x px, when px is over
// them.
func (t *Timeline) ColumnAt(px int) (int, bool) {
	x, _, w, _ := t.GetInnerRect()
	c := px - x - t.labelW()
	return c, c >= 0 && c < t.cols(w)
}

// Draw draws the rule and as many lanes as fit.
func (t *Timeline) Draw(scr tcell.Screen) {
	x, y, w, h := t.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	Clear(scr, x, y, w, h, t.th.Base)
	Rule(scr, x, y, w, t.title, t.th)
	rows := h - 1
	if t.ruler != "" && rows > 1 {
		rows--
		t.drawRuler(scr, x, y+1+min(len(t.lanes), rows), w)
	}
	for i, l := range t.lanes {
		if i >= rows {
			break
		}
		t.drawLane(scr, x, y+1+i, w, &l)
	}
}

// drawRuler draws the time ruler, with ▲ under the cursor.
func (t *Timeline) drawRuler(scr tcell.Screen, x, y, w int) {
	cols := t.cols(w)
	Put(scr, x+t.labelW(), y, cols, Cut(t.ruler, cols), t.th.Dim)
	if t.cursor >= 0 && t.cursor < cols {
		scr.SetContent(x+t.labelW()+t.cursor, y, '▲', nil, t.th.Bold)
	}
}

func (t *Timeline) drawLane(scr tcell.Screen, x, y, w int, l *TimelineLane) {
	marker, st := " ", t.th.Base
	if l.Focus {
		marker, st = "▶", t.th.Bold
	}
	if l.Watched {
		st = st.Underline(true)
	}
	if lw := t.labelW(); lw > 0 {
		Put(scr, x, y, lw, Pad(marker+Cut(l.Name, lw-2), lw), st)
	}
	cols := t.cols(w)
	cells := l.Lane.Cells
	if len(cells) > cols {
		cells = cells[len(cells)-cols:]
	}
	cx := x + t.labelW() + cols - len(cells) // the newest at the right edge
	off := len(l.Lane.Cells) - len(cells)
	for i, c := range cells {
		r, cst := t.glyph(c)
		if j := off + i; j < len(l.Follow) && l.Follow[j] {
			r, cst = GlyphFollow, t.th.Bold
		}
		if cx+i-x-t.labelW() == t.cursor {
			cst = cst.Reverse(true)
		}
		if gs, ok := glyphStrings[r]; ok {
			scr.Put(cx+i, y, gs, cst)
		} else {
			scr.SetContent(cx+i, y, r, nil, cst)
		}
	}
	if l.Lane.Drops {
		Put(scr, x+t.labelW(), y, cols, "drops›", t.th.Bad)
	}
}

// glyph picks a cell's character and style: its most urgent mark, else
// how it was spent: parked, busy in tasks or I/O as much as it was, or
// idle in select.
func (t *Timeline) glyph(c model.Cell) (rune, tcell.Style) {
	for _, g := range markGlyphs {
		if c.Marks&g.m != 0 {
			if g.alarm {
				return g.r, t.th.Bad
			}
			return g.r, t.th.Bold
		}
	}
	if c.Width > 0 && c.Parked*2 >= c.Width {
		return GlyphParked, t.th.Warn
	}
	if busy := busyOf(c); busy >= idleBusy {
		if c.Tasks >= c.IO {
			return tasksGlyphs[eighths(busy)-1], t.th.Warn
		}
		switch {
		case busy < 0.4:
			return ioGlyphs[0], t.th.Accent
		case busy < 0.75:
			return ioGlyphs[1], t.th.Accent
		}
		return ioGlyphs[2], t.th.Accent
	}
	if c.Select+c.IO+c.Tasks > 0 {
		return GlyphSelect, t.th.Dim
	}
	if c.Parked > 0 {
		return GlyphParked, t.th.Warn
	}
	return ' ', t.th.Base
}

// busyOf is the column's busy share: of its width when known, else of the
// time the phases account for (a replayed bucket without a width).
func busyOf(c model.Cell) float64 {
	if c.Width > 0 {
		return c.Busy()
	}
	if all := c.Select + c.IO + c.Tasks; all > 0 {
		return float64(c.IO+c.Tasks) / float64(all)
	}
	return 0
}

// eighths rounds a busy share to the nearest eighth, 1 to 8: a quarter
// busy is two eighths high.
func eighths(busy float64) int {
	n := int(busy*8 + 0.5)
	return min(max(n, 1), 8)
}
