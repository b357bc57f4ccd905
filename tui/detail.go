package tui

import (
	"cmp"
	"strconv"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// detailHead is how many queued tasks and scheduled timers are listed.
const detailHead = 8

// detailInfo is what the detail pane knows beyond the snapshot row.
type detailInfo struct {
	loop      model.Loop
	ok        bool   // a loop is focused
	ioRatio   int    // -1 when unknown (a replay)
	netty     string // the loop design, "" when unknown (a replay)
	threshold int    // 0 when unknown or disabled
	now       int64
	paused    bool
	gatePhase trace.Phase
	atEnd     bool // paused at the end-of-iteration boundary, not before a phase
	reason    string
	wheel     widgets.WheelView
	// wheelThread is set when the focus is the wheel's own thread: the
	// pane shows the wheel instead of a loop.
	wheelThread bool
	wheelInfo   model.Wheel
	// wheelFocusable is set when the focus can move to the wheel's thread
	// (its events have been seen).
	wheelFocusable bool
	// putQueue and putHeap say which tasks, by name, the latest script
	// action put in this loop's queue or heap: the pane points at them.
	putQueue, putHeap func(name string) bool
}

// detailOf is the detail pane's view of a frame's focused loop.
func detailOf(f *model.Frame, focus int) detailInfo {
	info := detailInfo{now: f.Now, ioRatio: f.Settings.IORatio, threshold: f.Settings.Threshold, wheel: f.Wheel, netty: f.Settings.Netty,
		wheelFocusable: f.Snapshot.Wheel.Present}
	if f.Snapshot.Wheel.Present && focus == f.Snapshot.Wheel.Index {
		info.wheelThread, info.wheelInfo = true, f.Snapshot.Wheel
		return info
	}
	r, ok := f.Row(focus)
	if !ok {
		return info
	}
	info.loop, info.ok, info.ioRatio, info.threshold = r.Loop, true, r.IORatio, r.Threshold
	if r.Pause == model.PausePaused {
		info.paused, info.gatePhase, info.reason = true, phases.AtGate(r.PausePhase), r.PauseReason
		info.atEnd = r.PausePhase == trace.PhaseEnd
	}
	return info
}

// detailPane shows the focused loop: its phase ring and counters, the head
// of its task queue, the top of its scheduled heap, and the timer wheel.
type detailPane struct {
	th    *widgets.Theme
	ring  *widgets.IterationRing
	wheel *widgets.WheelRing
	info  detailInfo
}

func newDetailPane(th *widgets.Theme) *detailPane {
	return &detailPane{th: th, ring: widgets.NewIterationRing(th), wheel: widgets.NewWheelRing(th)}
}

func (d *detailPane) set(info detailInfo) { d.info = info }

func (d *detailPane) draw(scr tcell.Screen, x, y, w, h int) {
	th := d.th
	in := d.info
	if h <= 0 {
		return
	}
	l := in.loop
	if in.wheelThread {
		d.drawWheelThread(scr, x, y, w, h)
		return
	}
	if !in.ok {
		widgets.Rule(scr, x, y, w, []widgets.Seg{widgets.S("detail", th.Title)}, th)
		if h > 1 {
			widgets.Put(scr, x+1, y+1, w-1, "no loop yet", th.Dim)
		}
		return
	}
	title := []widgets.Seg{
		widgets.S(l.Name, th.Title),
		widgets.S(" · "+threadText(l.TID)+" · "+l.State.String(), th.Base),
	}
	if in.wheelFocusable {
		// The wheel is a thread of its own, not part of any loop.
		title = append(title, widgets.S(" · the timer wheel: tab to its thread", th.Dim))
	}
	widgets.Rule(scr, x, y, w, title, th)
	y, h = y+1, h-1
	if h <= 0 {
		return
	}
	colW := detailColW(w)
	infoW := w - 2*(colW+1)
	d.drawInfo(scr, x, y, infoW, h)
	cx := x + infoW + 1
	d.drawQueue(scr, cx, y, colW, h)
	cx += colW + 1
	d.drawHeap(scr, cx, y, colW, h)
}

// detailColW is the width of the queue and heap columns in a pane w
// wide. The counters take what they leave: from 86 columns that is room
// for their full labels.
func detailColW(w int) int { return min(max((w-60)/2, 14), 24) }

// threadText is a thread id as the pane's title gives it.
func threadText(tid int64) string {
	if tid == 0 {
		return "no thread"
	}
	return "tid " + strconv.FormatInt(tid, 10)
}

// drawWheelThread is the detail pane of the HashedWheelTimer's thread: its
// ring, its numbers and the latest expiries.
func (d *detailPane) drawWheelThread(scr tcell.Screen, x, y, w, h int) {
	th, in := d.th, d.info
	wi := in.wheelInfo
	head := " · HashedWheelTimer · " + threadText(wi.TID)
	if wi.State != 0 {
		head += " · " + wi.State.String()
	}
	widgets.Rule(scr, x, y, w, []widgets.Seg{widgets.S(wi.Name, th.Title), widgets.S(head, th.Base)}, th)
	y, h = y+1, h-1
	if h <= 0 {
		return
	}
	ringW := min(40, w/2)
	d.wheel.Set(in.wheel)
	d.wheel.SetRect(x, y, ringW, h)
	d.wheel.Draw(scr)
	cx, cw := x+ringW+2, w-ringW-2
	about := widgets.Wrap("A thread of its own, apart from every event loop: a timeout lands in slot "+
		"(deadline / tick) & mask and waits remainingRounds laps; each tick expires the due ones of one slot (C17).", cw)
	line := min(len(about), h)
	for i, l := range about[:line] {
		widgets.Put(scr, cx, y+i, cw, l, th.Dim)
	}
	for i := len(wi.Recent) - 1; i >= 0 && line < h; i-- {
		e := wi.Recent[i]
		widgets.Put(scr, cx, y+line, cw, "expired #"+strconv.FormatInt(e.ID, 10)+" at tick "+
			strconv.FormatInt(e.Tick, 10)+", slot "+strconv.FormatInt(e.Slot, 10), th.Base)
		line++
	}
}

func (d *detailPane) drawInfo(scr tcell.Screen, x, y, w, h int) {
	th := d.th
	in := d.info
	phase := in.loop.Phase
	if in.paused {
		phase = in.gatePhase
	}
	ringH := min(2, h)
	d.ring.Set(phase, in.paused)
	d.ring.SetRect(x, y, w, ringH)
	d.ring.Draw(scr)
	lines := infoLines(in, w, th)
	if in.paused {
		note := gateNote(in)
		if in.reason != "" {
			note += " · " + in.reason
		}
		lines = append([][]widgets.Seg{{widgets.S(note, th.Warn)}}, lines...)
	}
	for i, line := range lines {
		if ringH+i >= h {
			break
		}
		widgets.PutSegs(scr, x, y+ringH+i, w, line)
	}
}

// gateNote is where a paused loop waits: before a phase, or at the end
// of its iteration.
func gateNote(in detailInfo) string {
	if in.atEnd {
		return "⏸ end of iteration"
	}
	return "⏸ before " + in.gatePhase.String()
}

// infoLines are the focused loop's counters, the most telling first, in
// lines of at most w cells (infoRows), as the pane draws them.
func infoLines(in detailInfo, w int, th *widgets.Theme) [][]widgets.Seg {
	var lines [][]widgets.Seg
	for _, row := range infoRows(in, w) {
		var line []widgets.Seg
		for _, p := range row {
			line = append(line, widgets.S(p.label+" ", th.Dim), widgets.S(p.value+"  ", th.Base))
		}
		lines = append(lines, line)
	}
	return lines
}

// infoRows are the focused loop's counters in lines of at most w cells. A
// group of counters too wide for w (a count in the hundreds of thousands,
// a narrow terminal) goes on over more lines rather than lose its last
// value at the edge.
func infoRows(in detailInfo, w int) [][]counter {
	var rows [][]counter
	for _, group := range infoGroups(in, w >= 56) {
		var row []counter
		used := 0
		for _, p := range group {
			pw := widgets.Width(p.label) + 1 + widgets.Width(p.value)
			if len(row) > 0 && used+pw > w {
				rows, row, used = append(rows, row), nil, 0
			}
			row = append(row, p)
			used += pw + 2
		}
		rows = append(rows, row)
	}
	return rows
}

// shownLabels are the labels of the counters the pane shows when drawn in
// w × h, which the concept block need not repeat; nil when it shows no
// loop's counters.
func (d *detailPane) shownLabels(w, h int) map[string]bool {
	in := d.info
	if !in.ok || in.wheelThread || h <= 1 {
		return nil
	}
	colW := detailColW(w)
	ringH := min(2, h-1)
	rows := h - 1 - ringH
	if in.paused {
		rows--
	}
	out := map[string]bool{}
	for i, row := range infoRows(in, w-2*(colW+1)) {
		if i >= rows {
			break
		}
		for _, p := range row {
			out[p.label] = true
		}
	}
	return out
}

// counter is one label and its value in the detail pane.
type counter struct{ label, value string }

// infoGroups are the counters a line each, with long labels or short.
func infoGroups(in detailInfo, long bool) [][]counter {
	l := in.loop
	sel := selectCnt(in)
	ratio := "?"
	switch {
	case in.netty == "4.2":
		// SingleThreadIoEventLoop has no ioRatio: tasks get a quantum,
		// which the task budget shows.
		ratio = "none (4.2)"
	case in.ioRatio > 0:
		ratio = strconv.Itoa(in.ioRatio)
	}
	budget := budgetText(l.Budget)
	var groups [][]counter
	if sd := l.Shutdown; sd.Start != 0 && sd.End == 0 {
		// A graceful shutdown waits on these two (C23): shown first while
		// it does.
		groups = append(groups, []counter{{"quiet left", quietText(in)}, {"timeout in", model.Duration(sd.TimeoutLeft(in.now))}})
	}
	if long {
		groups = append(groups, [][]counter{
			{{"selectCnt", sel}, {"max", c(l.MaxSelectCnt)}, {"premature", c(l.Premature)}},
			{{"rebuilds", c(l.Rebuilds)}, {"migrated", c(l.Migrated)}, {"select", c(l.Selects)}, {"selectNow", c(l.SelectNows)}},
			{{"wakeups written", c(l.WakeupsWritten)}, {"coalesced", c(l.WakeupsCoalesced)}, {"self", c(l.SelfWakeups)}},
			{{"ioRatio", ratio}, {"task budget", budget}, {"tasks run", c(l.TasksRun)}, {"tail", c(l.TailTasksRun)}},
			{{"64-task checks", c(l.DeadlineChecks)}, {"deadline hits", c(l.DeadlineHits)}, {"panics", c(l.TaskPanics + l.HandlerPanics)}, {"exceptions", c(l.Exceptions)}},
			{{"channels", c(l.Channels)}, {"accepted", c(l.Accepted)}, {"read", model.Bytes(l.BytesRead)}, {"written", model.Bytes(l.BytesWritten)}},
		}...)
	} else {
		groups = append(groups, [][]counter{
			{{"selCnt", sel}, {"max", c(l.MaxSelectCnt)}, {"prem", c(l.Premature)}},
			{{"rebuilds", c(l.Rebuilds)}, {"migr", c(l.Migrated)}},
			{{"wakeup w", c(l.WakeupsWritten)}, {"c", c(l.WakeupsCoalesced)}, {"self", c(l.SelfWakeups)}},
			{{"ioRatio", ratio}, {"budget", budget}},
			{{"tasks", c(l.TasksRun)}, {"tail", c(l.TailTasksRun)}, {"panic", c(l.TaskPanics + l.HandlerPanics)}},
			{{"64-chk", c(l.DeadlineChecks)}, {"hits", c(l.DeadlineHits)}, {"exc", c(l.Exceptions)}},
			{{"in", model.Bytes(l.BytesRead)}, {"out", model.Bytes(l.BytesWritten)}, {"acc", c(l.Accepted)}},
		}...)
	}
	if r := l.Ring; r.Enters > 0 {
		perIter := "-"
		if l.Iterations > 0 {
			perIter = strconv.FormatFloat(float64(r.Enters)/float64(l.Iterations), 'f', 2, 64)
		}
		groups = append(groups, []counter{{"ring SQ", c(r.SQ)}, {"CQ", c(r.CQ)}, {"in flight", c(r.InFlight)}, {"enters/iter", perIter}})
	}
	if in.netty != "" {
		groups = append(groups, []counter{{"netty", in.netty}})
	}
	if l.Fault != "" {
		groups = append(groups, []counter{{"fault", l.Fault}})
	}
	return groups
}

func (d *detailPane) drawQueue(scr tcell.Screen, x, y, w, h int) {
	th := d.th
	l := d.info.loop
	widgets.PutSegs(scr, x, y, w, []widgets.Seg{
		widgets.S("task queue ", th.Title), widgets.S(model.Count(l.QueueDepth), th.Base),
	})
	if l.Producers.Total() > 0 && h > 2 {
		// Many producers, one consumer (C13): who has fed this queue.
		widgets.Put(scr, x, y+1, w, "fed by "+producersFit(l.Producers, w-7), th.Dim)
		y, h = y+1, h-1
	}
	if l.QueueDepth == 0 && len(l.QueueHead) == 0 {
		if h > 1 {
			widgets.Put(scr, x, y+1, w, "empty", th.Dim)
		}
		return
	}
	rows := h - 1
	shown := l.QueueHead
	more := l.QueueHidden
	if len(shown) > rows {
		more += int64(len(shown) - rows + 1)
		shown = shown[:rows-1]
	} else if more > 0 && len(shown) == rows {
		more += 1
		shown = shown[:rows-1]
	}
	for i, t := range shown {
		mark, st := "#", th.Base
		if t.Timer {
			mark, st = "⏲", th.Accent
		}
		line := mark + strconv.FormatInt(t.ID, 10) + " " + cmp.Or(t.Name, "task")
		if t.From != "" && t.From != "heap" {
			line += " ←" + t.From
		}
		if put := d.info.putQueue; put != nil && put(t.Name) {
			st = st.Underline(true) // what the caption's action put here
		}
		widgets.Put(scr, x, y+1+i, w, line, st)
	}
	switch {
	case more > 0 && len(shown) == 0:
		// The ones the mirror kept have run; those queued behind them
		// were counted, not kept, so none can be named in FIFO order.
		widgets.Put(scr, x, y+1, w, model.Count(more)+" unlisted", th.Dim)
		if rows > 1 {
			widgets.Put(scr, x, y+2, w, "(the view keeps "+strconv.Itoa(model.QueueMirrorCap)+")", th.Dim)
		}
	case more > 0 && len(shown) < rows:
		widgets.Put(scr, x, y+1+len(shown), w, "+"+model.Count(more)+" more", th.Dim)
	}
}

func (d *detailPane) drawHeap(scr tcell.Screen, x, y, w, h int) {
	th := d.th
	l := d.info.loop
	title := []widgets.Seg{widgets.S("heap ", th.Title), widgets.S(model.Count(l.Timers), th.Base)}
	widgets.PutSegs(scr, x, y, w, title)
	if len(l.TimerHead) == 0 {
		if h > 1 {
			msg := "empty"
			if l.Timers > 0 {
				msg = "not traced"
			}
			widgets.Put(scr, x, y+1, w, msg, th.Dim)
		}
		return
	}
	for i, t := range l.TimerHead {
		if 1+i >= h {
			break
		}
		period := ""
		if t.Period != 0 {
			period = "↻"
		}
		// The id shows the heap's order among equal deadlines:
		// ScheduledFutureTask compares the deadline, then the id.
		st := th.Base
		if put := d.info.putHeap; put != nil && put(t.Name) {
			st = st.Underline(true) // what the caption's action scheduled here
		}
		line := []widgets.Seg{
			widgets.S(widgets.PadLeft(dueText(t.Deadline, d.info.now), 6)+" ", th.Accent),
			widgets.S("#"+strconv.FormatInt(t.ID, 10)+" ", th.Dim),
			widgets.S(period+cmp.Or(t.Name, "timer"), st),
		}
		widgets.PutSegs(scr, x, y+1+i, w, line)
	}
}

// dueText is the time left to a deadline; "due" once it has passed.
func dueText(deadline, now int64) string {
	if dt := deadline - now; dt > 0 {
		return model.Duration(dt)
	}
	return "due"
}

// drawHeads draws the focused loop's queue and heap heads on one row at
// (x, y): the lesson layout's short form of the pane's two columns. Each
// half lists what fits whole and counts the rest.
func (d *detailPane) drawHeads(scr tcell.Screen, x, y, w int) {
	th := d.th
	in := d.info
	widgets.Clear(scr, x, y, w, 1, th.Base)
	if !in.ok {
		return
	}
	l := in.loop
	half := w / 2
	var q, hp []string
	var qPut, hPut []bool
	for _, t := range l.QueueHead {
		q = append(q, "#"+strconv.FormatInt(t.ID, 10)+" "+cmp.Or(t.Name, "task"))
		qPut = append(qPut, in.putQueue != nil && in.putQueue(t.Name))
	}
	for _, t := range l.TimerHead {
		hp = append(hp, dueText(t.Deadline, in.now)+" #"+strconv.FormatInt(t.ID, 10)+" "+cmp.Or(t.Name, "timer"))
		hPut = append(hPut, in.putHeap != nil && in.putHeap(t.Name))
	}
	widgets.PutSegs(scr, x, y, half-1, headSegs(" task queue ", l.QueueDepth, q, qPut, half-1, th))
	widgets.PutSegs(scr, x+half, y, w-half, headSegs("heap ", l.Timers, hp, hPut, w-half, th))
}

// headSegs is one head's text in w cells: its title and size, then its
// items while they fit whole with room for "+N" after them.
func headSegs(title string, n int64, items []string, put []bool, w int, th *widgets.Theme) []widgets.Seg {
	segs := []widgets.Seg{widgets.S(title, th.Title), widgets.S(model.Count(n), th.Base)}
	used := widgets.SegsWidth(segs)
	shown := 0
	for i, it := range items {
		rest := ""
		if left := n - int64(i+1); left > 0 {
			rest = " +" + model.Count(left)
		}
		if used+1+widgets.Width(it)+widgets.Width(rest) > w {
			break
		}
		st := th.Dim
		if put[i] {
			st = th.Base.Underline(true) // what the caption's action put there
		}
		segs = append(segs, widgets.S(" "+it, st))
		used += 1 + widgets.Width(it)
		shown++
	}
	if left := n - int64(shown); left > 0 && shown > 0 {
		segs = append(segs, widgets.S(" +"+model.Count(left), th.Dim))
	}
	return segs
}
