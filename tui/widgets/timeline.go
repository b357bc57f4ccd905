package widgets

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/tui/model"
)

// TimelineLabelW is the width of a lane's label: a focus marker and the
// loop's name. The cells take the rest of the row.
const TimelineLabelW = 11

// TimelineCols returns how many cells a timeline pane of width w draws.
func TimelineCols(w int) int { return max(w-TimelineLabelW, 0) }

// TimelineLane is one loop's swimlane as the pane draws it.
type TimelineLane struct {
	Index int // the loop's trace index, which a click reports
	Name  string
	Focus bool
	Lane  model.Lane
}

// Phase and mark glyphs. Each is a different character, so the timeline
// reads the same without colour (NO_COLOR).
const (
	GlyphSelect = '·'
	GlyphIO     = '▒'
	GlyphTasks  = '█'
)

// markGlyphs lists the marks from the most urgent down: a column holding
// several shows the first.
var markGlyphs = []struct {
	m           model.Mark
	r           rune
	name, short string
}{
	{model.MarkPanic, '!', "panic", "panic"},
	{model.MarkRebuild, 'R', "selector rebuilt", "rebuild"},
	{model.MarkDrop, 'x', "events dropped", "drop"},
	{model.MarkCut, 'C', "64-task deadline cut", "cut"},
	{model.MarkOverBudget, '+', "task over the ioRatio budget", "budget"},
	{model.MarkPremature, 'p', "premature select return", "premature"},
	{model.MarkWakeup, 'w', "wakeup written", "wakeup"},
}

// TimelineLegend is the key to the glyphs, for the help.
func TimelineLegend() string {
	s := string(GlyphSelect) + " blocked in select, " + string(GlyphIO) + " I/O, " + string(GlyphTasks) + " tasks"
	for _, g := range markGlyphs {
		s += ", " + string(g.r) + " " + g.name
	}
	return s
}

// TimelineKey is the short key to the glyphs, for the pane's rule.
func TimelineKey() string {
	s := string(GlyphSelect) + "sel " + string(GlyphIO) + "io " + string(GlyphTasks) + "tsk"
	for _, g := range markGlyphs {
		s += " " + string(g.r) + " " + g.short
	}
	return s
}

// Timeline is the swimlane pane: a rule with its title, then a lane per
// loop, oldest time on the left, the window's end on the right.
type Timeline struct {
	*tview.Box
	th    *Theme
	title []Seg
	lanes []TimelineLane
}

// NewTimeline returns an empty timeline pane.
func NewTimeline(th *Theme) *Timeline { return &Timeline{Box: tview.NewBox(), th: th} }

// Set gives the pane its title and lanes.
func (t *Timeline) Set(title []Seg, lanes []TimelineLane) { t.title, t.lanes = title, lanes }

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

// Draw draws the rule and as many lanes as fit.
func (t *Timeline) Draw(scr tcell.Screen) {
	x, y, w, h := t.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	Clear(scr, x, y, w, h, t.th.Base)
	Rule(scr, x, y, w, t.title, t.th)
	for i, l := range t.lanes {
		if i+1 >= h {
			break
		}
		t.drawLane(scr, x, y+1+i, w, &l)
	}
}

func (t *Timeline) drawLane(scr tcell.Screen, x, y, w int, l *TimelineLane) {
	marker, st := " ", t.th.Base
	if l.Focus {
		marker, st = "▶", t.th.Bold
	}
	Put(scr, x, y, TimelineLabelW, Pad(marker+Cut(l.Name, TimelineLabelW-2), TimelineLabelW), st)
	cols := TimelineCols(w)
	cells := l.Lane.Cells
	if len(cells) > cols {
		cells = cells[len(cells)-cols:]
	}
	cx := x + TimelineLabelW + cols - len(cells) // the newest at the right edge
	for i, c := range cells {
		r, cst := t.glyph(c)
		scr.SetContent(cx+i, y, r, nil, cst)
	}
	if l.Lane.Drops {
		Put(scr, x+TimelineLabelW, y, cols, "drops›", t.th.Bad)
	}
}

// glyph picks a cell's character and style: its most urgent mark, else
// the phase the loop spent most of the column in.
func (t *Timeline) glyph(c model.Cell) (rune, tcell.Style) {
	for _, g := range markGlyphs {
		if c.Marks&g.m != 0 {
			return g.r, t.th.Bad
		}
	}
	switch c.Dominant() {
	case model.PhaseSelect:
		return GlyphSelect, t.th.Dim
	case model.PhaseIO:
		return GlyphIO, t.th.Accent
	case model.PhaseTasks:
		return GlyphTasks, t.th.Warn
	}
	return ' ', t.th.Base
}
