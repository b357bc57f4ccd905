package widgets

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
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

// CompactWidth is the width of a compact row whose names are nameW wide.
func CompactWidth(nameW int) int { return 1 + max(nameW, 8) + 1 + compactState + 1 + 10 + 1 }

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

// columns is the table's layout for one width.
type columns struct {
	name, tid, state, phase, iter, sel, queue, spark, sched, ch int
	longState                                                   bool
	// time and lat are where the loop's last second went and its
	// clients' latency (timesplit.go); 0 when the width has no room.
	time, lat int
	// worst is the clients' worst 250 ms window so far; 0 without room.
	worst int
}

func layout(w, nameW int) columns {
	c := columns{name: 9, tid: 6, state: 8, phase: 10, iter: 6, sel: 7, queue: 5, spark: 5, sched: 9, ch: 3}
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
		t.drawHeader(scr, x, y, w, c)
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
		t.drawRow(scr, x, y+i, w, c, t.offset+i)
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
	c := columns{name: max(nameW, 8), state: compactState, phase: 10, longState: true}
	n := min(len(t.rows), h)
	more := t.more + len(t.rows) - n
	if more > 0 && n == h {
		n = max(h-1, 0)
		more = t.more + len(t.rows) - n
	}
	for i := 0; i < n; i++ {
		t.drawRow(scr, x, y+i, w, c, i)
	}
	if more > 0 && n < h {
		word := " more loops"
		if more == 1 {
			word = " more loop"
		}
		Put(scr, x+1, y+n, w-1, "+"+strconv.Itoa(more)+word+" · tab reaches them", t.th.Dim)
	}
}

func (t *LoopTable) drawHeader(scr tcell.Screen, x, y, w int, c columns) {
	cols := []struct {
		text  string
		width int
		right bool
	}{
		{"", 1, false}, {"LOOP", c.name, false}, {"TID", c.tid, true}, {"STATE", c.state, false},
		{"PHASE", c.phase, false}, {"ITER", c.iter, true}, {"SELCNT", c.sel, true},
		{"QUEUE", c.queue + 1 + c.spark, false}, {"SCHED", c.sched, false}, {"CH", c.ch, true},
	}
	if c.spark == 0 {
		cols[7].width = c.queue
	}
	for _, h := range splitHeaders(c) {
		cols = append(cols, struct {
			text  string
			width int
			right bool
		}{h.text, h.width, false})
	}
	cx := x
	for i, col := range cols {
		s := Pad(col.text, col.width)
		if col.right {
			s = PadLeft(col.text, col.width)
		}
		Put(scr, cx, y, max(0, min(col.width, x+w-cx)), s, t.th.Dim)
		cx += col.width
		if i > 0 {
			cx++
		}
	}
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

func (t *LoopTable) drawRow(scr tcell.Screen, x, y, w int, c columns, i int) {
	r := t.rows[i]
	l := r.Loop
	sel := i == t.focus
	st := func(s tcell.Style) tcell.Style { return t.th.Row(s, sel) }
	Fill(scr, x, y, w, ' ', st(t.th.Base))
	var segs []Seg
	gap := S(" ", st(t.th.Base))
	marker := " "
	if sel {
		marker = "▶"
	}
	nameSt := t.th.Base
	if sel {
		nameSt = t.th.Bold
	}
	markSt := t.th.Accent
	if r.Flash {
		// Something just happened here: a breakpoint or a timeline action.
		// A focused row keeps its name bold: without colour, the only
		// focus cue the marker leaves.
		marker, markSt, nameSt = "◆", t.th.Warn, t.th.Warn.Bold(sel)
	}
	if r.Watched {
		// The caption talks about this loop: its name is underlined, in
		// colour or without.
		nameSt = nameSt.Underline(true)
	}
	segs = append(segs, S(marker, st(markSt)), S(Pad(l.Name, c.name), st(nameSt)), gap)
	tid := "-"
	if l.TID != 0 {
		tid = strconv.FormatInt(l.TID, 10)
	}
	if !t.compact {
		segs = append(segs, S(PadLeft(tid, c.tid), st(t.th.Dim)), gap)
	}

	stateSt := t.th.Base
	switch {
	case l.State == trace.StateNotStarted || l.State.Suspended():
		stateSt = t.th.Dim
	case l.State >= trace.StateShuttingDown:
		stateSt = t.th.Warn
	}
	if r.Pause != model.PauseRunning && l.State == trace.StateStarted {
		stateSt = t.th.Warn
	}
	state := StateText(r, c.longState)
	if t.compact && l.State == trace.StateStarted && r.Pause != model.PauseRunning {
		// The compact row keeps Netty's state and marks the pause: the
		// phase ring shows where the loop waits.
		state = l.State.String() + " ⏸"
		if r.Pause != model.PausePaused {
			state += "…"
		}
	}
	segs = append(segs, S(Pad(state, c.state), st(stateSt)), gap)

	phase, ringPaused := l.Phase, false
	if r.Pause == model.PausePaused && l.State == trace.StateStarted {
		phase, ringPaused = phases.AtGate(r.PausePhase), true
	}
	for _, sg := range PhaseSegs(phase, ringPaused, t.th) {
		segs = append(segs, S(sg.Text, st(sg.Style)))
	}
	segs = append(segs, S(Pad("", c.phase-10), st(t.th.Base)), gap)
	if t.compact {
		PutSegs(scr, x, y, w, segs)
		return
	}

	segs = append(segs, S(PadLeft(model.Count(l.Iterations), c.iter), st(t.th.Base)), gap)

	sel2 := strconv.FormatInt(l.SelectCnt, 10)
	selSt := t.th.Base
	switch {
	case l.Ring.Enters > 0:
		// An io_uring loop has no selector to count premature returns
		// of: the column shows the operations it has in flight.
		sel2 = "ring " + model.Count(l.Ring.InFlight)
	case r.Threshold > 0:
		sel2 += "/" + strconv.Itoa(r.Threshold)
		switch {
		case l.SelectCnt*10 >= int64(r.Threshold)*9:
			selSt = t.th.Bad
		case l.SelectCnt*2 >= int64(r.Threshold):
			selSt = t.th.Warn
		}
	}
	segs = append(segs, S(PadLeft(sel2, c.sel), st(selSt)), gap)

	qSt := t.th.Base
	if l.QueueDepth == 0 {
		qSt = t.th.Dim
	}
	segs = append(segs, S(PadLeft(model.Count(l.QueueDepth), c.queue), st(qSt)), gap)
	if c.spark > 0 {
		segs = append(segs, S(Sparkline(l.History, c.spark), st(t.th.Accent)), gap)
	}

	sched := "-"
	if l.Timers > 0 {
		sched = model.Count(l.Timers)
		if l.HasDeadline {
			if d := l.NextDeadline - t.now; d > 0 {
				sched += " " + model.Duration(d)
			} else {
				sched += " due"
			}
		}
	}
	segs = append(segs, S(Pad(sched, c.sched), st(t.th.Base)), gap,
		S(PadLeft(model.Count(l.Channels), c.ch), st(t.th.Base)))
	segs = append(segs, t.splitSegs(r, c, st)...)
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
