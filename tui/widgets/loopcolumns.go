package widgets

import (
	"strconv"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
	"github.com/reactorviz/reactorviz/tui/model"
)

// column is one column of the loop table, as data: its header, its width
// in a layout (widths), and its cell in a row. One function draws the
// rows of every size (LoopTable.drawRow), another the header.
type column struct {
	head string
	// short is the header when the column is narrower than head.
	short string
	// right aligns the cell's text, and the header unless headLeft (a
	// header read from the left over figures aligned right).
	right, headLeft bool
	// joined: no gap follows (the focus mark, against the name).
	joined bool
	// width is the column's width in a layout; 0 leaves it out.
	width func(widths) int
	// text is the cell as one text in one style, padded to the width;
	// segs, for a cell of several styles, is drawn as it is instead.
	text func(cell) (string, tcell.Style)
	segs func(cell) []Seg
}

// cell is what a row's cell is drawn from: the loop's row, the layout,
// whether the row has the focus, and the time deadlines are shown against.
// Its styles are the theme's; the row's own (the focus's background) is
// laid over them when it is drawn.
type cell struct {
	r   LoopRow
	c   widths
	sel bool
	now int64
	th  *Theme
}

// tableColumns are the table's columns left to right; the time columns,
// last, fill what room is left (timesplit.go).
var tableColumns = []column{
	markColumn, nameColumn,
	{head: "TID", right: true, width: func(c widths) int { return c.tid }, text: tidCell},
	{head: "STATE", width: func(c widths) int { return c.state }, text: stateCell},
	phaseColumn,
	{head: "ITER", right: true, width: func(c widths) int { return c.iter }, text: func(x cell) (string, tcell.Style) {
		return model.Count(x.r.Loop.Iterations), x.th.Base
	}},
	{head: "SELCNT", right: true, width: func(c widths) int { return c.sel }, text: selectCell},
	{head: "QUEUE", width: queueWidth, segs: queueCell},
	{head: "SCHED", width: func(c widths) int { return c.sched }, text: schedCell},
	{head: "CH", right: true, width: func(c widths) int { return c.ch }, text: func(x cell) (string, tcell.Style) {
		return model.Count(x.r.Loop.Channels), x.th.Base
	}},
	timeColumn, latColumn, worstColumn,
}

// compactColumns are the small terminal's (SetCompact): the mark, the
// name, the state by Netty's name with a pause marked, the phase ring.
var compactColumns = []column{
	markColumn, nameColumn,
	{width: func(c widths) int { return c.state }, text: compactStateCell},
	phaseColumn,
}

var (
	markColumn  = column{joined: true, width: func(widths) int { return 1 }, segs: markCell}
	nameColumn  = column{head: "LOOP", width: func(c widths) int { return c.name }, text: nameCell}
	phaseColumn = column{head: "PHASE", width: func(c widths) int { return c.phase }, segs: phaseCell}
)

// markCell marks the focused row, and a row where something just happened
// (a breakpoint or a timeline action).
func markCell(x cell) []Seg {
	switch {
	case x.r.Flash:
		return []Seg{S("◆", x.th.Warn)}
	case x.sel:
		return []Seg{S("▶", x.th.Accent)}
	}
	return []Seg{S(" ", x.th.Accent)}
}

func nameCell(x cell) (string, tcell.Style) {
	st := x.th.Base
	if x.sel {
		st = x.th.Bold
	}
	if x.r.Flash {
		// A focused row keeps its name bold: without colour, the only
		// focus cue the mark leaves.
		st = x.th.Warn.Bold(x.sel)
	}
	if x.r.Watched {
		// The caption talks about this loop: its name is underlined, in
		// colour or without.
		st = st.Underline(true)
	}
	return x.r.Loop.Name, st
}

func tidCell(x cell) (string, tcell.Style) {
	if x.r.Loop.TID == 0 {
		return "-", x.th.Dim
	}
	return strconv.FormatInt(x.r.Loop.TID, 10), x.th.Dim
}

func stateCell(x cell) (string, tcell.Style) { return StateText(x.r, x.c.longState), stateStyle(x) }

// compactStateCell keeps Netty's state and marks the pause: the phase
// ring shows where the loop waits.
func compactStateCell(x cell) (string, tcell.Style) {
	l := x.r.Loop
	if l.State != trace.StateStarted || x.r.Pause == model.PauseRunning {
		return StateText(x.r, x.c.longState), stateStyle(x)
	}
	state := l.State.String() + " ⏸"
	if x.r.Pause != model.PausePaused {
		state += "…"
	}
	return state, stateStyle(x)
}

func stateStyle(x cell) tcell.Style {
	l := x.r.Loop
	switch {
	case x.r.Pause != model.PauseRunning && l.State == trace.StateStarted:
		return x.th.Warn
	case l.State == trace.StateNotStarted || l.State.Suspended():
		return x.th.Dim
	case l.State >= trace.StateShuttingDown:
		return x.th.Warn
	}
	return x.th.Base
}

// StateText names a loop's state in the table: Netty's names when there
// is room, short ones otherwise; a paused loop reads "paused" once it is
// parked at its gate and "pausing" while it still sleeps in select.
func StateText(r LoopRow, long bool) string {
	s := r.Loop.State
	if s == trace.StateStarted && r.Pause != model.PauseRunning {
		if r.Pause == model.PausePaused {
			return "paused"
		}
		return "pausing"
	}
	if long {
		return s.String()
	}
	switch s {
	case trace.StateNotStarted:
		return "new"
	case trace.StateStarted:
		return "started"
	case trace.StateSuspending:
		return "susp…"
	case trace.StateSuspended:
		return "susp'd"
	case trace.StateShuttingDown:
		return "stopping"
	case trace.StateShutdown:
		return "shutdown"
	case trace.StateTerminated:
		return "ended"
	}
	return "?"
}

// phaseCell is the phase ring, lit where the loop is, or where it waits at
// its gate when paused.
func phaseCell(x cell) []Seg {
	l := x.r.Loop
	phase, ringPaused := l.Phase, false
	if x.r.Pause == model.PausePaused && l.State == trace.StateStarted {
		phase, ringPaused = phases.AtGate(x.r.PausePhase), true
	}
	segs := PhaseSegs(phase, ringPaused, x.th)
	return append(segs, S(Pad("", x.c.phase-10), x.th.Base))
}

// selectCell is selectCnt against the rebuild threshold, warm as it
// nears it; an io_uring loop, which has no selector to count premature
// returns of, shows the operations it has in flight.
func selectCell(x cell) (string, tcell.Style) {
	l, th := x.r.Loop, x.r.Threshold
	if l.Ring.Enters > 0 {
		return "ring " + model.Count(l.Ring.InFlight), x.th.Base
	}
	text := strconv.FormatInt(l.SelectCnt, 10)
	if th <= 0 {
		return text, x.th.Base
	}
	text += "/" + strconv.Itoa(th)
	switch {
	case l.SelectCnt*10 >= int64(th)*9:
		return text, x.th.Bad
	case l.SelectCnt*2 >= int64(th):
		return text, x.th.Warn
	}
	return text, x.th.Base
}

// queueWidth is the queue's depth and, where there is room, its history.
func queueWidth(c widths) int {
	if c.spark == 0 {
		return c.queue
	}
	return c.queue + 1 + c.spark
}

func queueCell(x cell) []Seg {
	l := x.r.Loop
	st := x.th.Base
	if l.QueueDepth == 0 {
		st = x.th.Dim
	}
	segs := []Seg{S(PadLeft(model.Count(l.QueueDepth), x.c.queue), st)}
	if x.c.spark > 0 {
		segs = append(segs, S(" ", x.th.Base), S(Sparkline(l.History, x.c.spark), x.th.Accent))
	}
	return segs
}

// schedCell counts the scheduled tasks, with the time to the next one's
// deadline.
func schedCell(x cell) (string, tcell.Style) {
	l := x.r.Loop
	if l.Timers <= 0 {
		return "-", x.th.Base
	}
	sched := model.Count(l.Timers)
	if l.HasDeadline {
		if d := l.NextDeadline - x.now; d > 0 {
			sched += " " + model.Duration(d)
		} else {
			sched += " due"
		}
	}
	return sched, x.th.Base
}
