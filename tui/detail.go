package tui

import (
	"strconv"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// detailHead is how many queued tasks and scheduled timers are listed.
const detailHead = 8

// detailInfo is what the detail pane knows beyond the snapshot row.
type detailInfo struct {
	loop      model.Loop
	ok        bool // a loop is focused
	ioRatio   int  // -1 when unknown (a replay)
	threshold int  // 0 when unknown or disabled
	now       int64
	paused    bool
	gatePhase model.Phase
	atEnd     bool // paused at the end-of-iteration boundary, not before a phase
	reason    string
	wheel     widgets.WheelView
}

// detailPane shows the focused loop: its phase ring and counters, the head
// of its task queue, the top of its scheduled heap, and the timer wheel.
type detailPane struct {
	th    *widgets.Theme
	ring  *widgets.PhaseRing
	wheel *widgets.WheelRing
	info  detailInfo
}

func newDetailPane(th *widgets.Theme) *detailPane {
	return &detailPane{th: th, ring: widgets.NewPhaseRing(th), wheel: widgets.NewWheelRing(th)}
}

func (d *detailPane) set(info detailInfo) { d.info = info }

func (d *detailPane) draw(scr tcell.Screen, x, y, w, h int) {
	th := d.th
	in := d.info
	if h <= 0 {
		return
	}
	l := in.loop
	if !in.ok {
		widgets.Rule(scr, x, y, w, []widgets.Seg{widgets.S("detail", th.Title)}, th)
		if h > 1 {
			widgets.Put(scr, x+1, y+1, w-1, "no loop yet", th.Dim)
		}
		return
	}
	tid := "no thread"
	if l.TID != 0 {
		tid = "tid " + strconv.FormatInt(l.TID, 10)
	}
	widgets.Rule(scr, x, y, w, []widgets.Seg{
		widgets.S(l.Name, th.Title),
		widgets.S(" · "+tid+" · "+l.State.String(), th.Base),
	}, th)
	y, h = y+1, h-1
	if h <= 0 {
		return
	}
	colW := min(max((w-34)/3, 14), 24)
	showWheel := in.wheel.Present
	cols := 2
	if showWheel {
		cols = 3
	}
	infoW := w - cols*(colW+1)
	d.drawInfo(scr, x, y, infoW, h)
	cx := x + infoW + 1
	d.drawQueue(scr, cx, y, colW, h)
	cx += colW + 1
	d.drawHeap(scr, cx, y, colW, h)
	cx += colW + 1
	if showWheel {
		d.wheel.Set(in.wheel)
		d.wheel.SetRect(cx, y, colW, h)
		d.wheel.Draw(scr)
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
	lines := infoLines(in, w >= 56, th)
	if in.paused {
		note := "⏸ before " + in.gatePhase.String()
		if in.atEnd {
			note = "⏸ end of iteration"
		}
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

// infoLines are the focused loop's counters, the most telling first.
func infoLines(in detailInfo, long bool, th *widgets.Theme) [][]widgets.Seg {
	l := in.loop
	c := model.Count
	kv := func(label, value string) []widgets.Seg {
		return []widgets.Seg{widgets.S(label+" ", th.Dim), widgets.S(value+"  ", th.Base)}
	}
	join := func(parts ...[]widgets.Seg) []widgets.Seg {
		var out []widgets.Seg
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	sel := c(l.SelectCnt)
	if in.threshold > 0 {
		sel += "/" + strconv.Itoa(in.threshold)
	}
	ratio := "?"
	if in.ioRatio > 0 {
		ratio = strconv.Itoa(in.ioRatio)
	}
	budget := "-"
	switch {
	case l.Budget < 0:
		budget = "unlimited"
	case l.Budget > 0:
		budget = model.Duration(l.Budget)
	}
	var lines [][]widgets.Seg
	if long {
		lines = [][]widgets.Seg{
			join(kv("selectCnt", sel), kv("max", c(l.MaxSelectCnt)), kv("premature", c(l.Premature))),
			join(kv("rebuilds", c(l.Rebuilds)), kv("migrated", c(l.Migrated)), kv("select", c(l.Selects)), kv("selectNow", c(l.SelectNows))),
			join(kv("wakeups written", c(l.WakeupsWritten)), kv("coalesced", c(l.WakeupsCoalesced)), kv("self", c(l.SelfWakeups))),
			join(kv("ioRatio", ratio), kv("task budget", budget), kv("tasks run", c(l.TasksRun)), kv("tail", c(l.TailTasksRun))),
			join(kv("64-task checks", c(l.DeadlineChecks)), kv("deadline hits", c(l.DeadlineHits)), kv("panics", c(l.TaskPanics+l.HandlerPanics)), kv("exceptions", c(l.Exceptions))),
			join(kv("channels", c(l.Channels)), kv("accepted", c(l.Accepted)), kv("read", model.Bytes(l.BytesRead)), kv("written", model.Bytes(l.BytesWritten))),
		}
	} else {
		lines = [][]widgets.Seg{
			join(kv("selCnt", sel), kv("max", c(l.MaxSelectCnt)), kv("prem", c(l.Premature))),
			join(kv("rebuilds", c(l.Rebuilds)), kv("migr", c(l.Migrated))),
			join(kv("wakeup w", c(l.WakeupsWritten)), kv("c", c(l.WakeupsCoalesced)), kv("self", c(l.SelfWakeups))),
			join(kv("ioRatio", ratio), kv("budget", budget)),
			join(kv("tasks", c(l.TasksRun)), kv("tail", c(l.TailTasksRun)), kv("panic", c(l.TaskPanics+l.HandlerPanics))),
			join(kv("64-chk", c(l.DeadlineChecks)), kv("hits", c(l.DeadlineHits)), kv("exc", c(l.Exceptions))),
			join(kv("in", model.Bytes(l.BytesRead)), kv("out", model.Bytes(l.BytesWritten)), kv("acc", c(l.Accepted))),
		}
	}
	if l.Fault != "" {
		lines = append(lines, kv("fault", l.Fault))
	}
	return lines
}

func (d *detailPane) drawQueue(scr tcell.Screen, x, y, w, h int) {
	th := d.th
	l := d.info.loop
	widgets.PutSegs(scr, x, y, w, []widgets.Seg{
		widgets.S("task queue ", th.Title), widgets.S(model.Count(l.QueueDepth), th.Base),
	})
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
		name := t.Name
		if name == "" {
			name = "task"
		}
		widgets.Put(scr, x, y+1+i, w, mark+strconv.FormatInt(t.ID, 10)+" "+name, st)
	}
	if more > 0 && len(shown) < rows {
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
		when := "due"
		if dt := t.Deadline - d.info.now; dt > 0 {
			when = model.Duration(dt)
		}
		name := t.Name
		if name == "" {
			name = "timer"
		}
		period := ""
		if t.Period != 0 {
			period = "↻"
		}
		line := []widgets.Seg{
			widgets.S(widgets.PadLeft(when, 6)+" ", th.Accent),
			widgets.S(period+name, th.Base),
		}
		widgets.PutSegs(scr, x, y+1+i, w, line)
	}
}
