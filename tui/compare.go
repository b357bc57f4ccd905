package tui

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// colState is where one model's run stands.
type colState int

const (
	colWaiting colState = iota
	colRunning
	colFinished
	colSkipped
	colFailed
)

// column is one model of the comparison. The runner writes it under its
// lock; the UI reads a copy.
type column struct {
	model   string
	state   colState
	err     error
	run     Session
	mdl     *model.Model
	elapsed time.Duration
	total   time.Duration
	clients model.Clients
	stats   colStats
	summary *sim.Summary
	rec     recording // its events, for the lockstep replay
}

// colStats are the loop numbers a column shows, from the model's snapshot.
type colStats struct {
	loops, started   int
	groups           []busyStats
	queueNow, maxQ   int64
	queueHist        []int64
	wakeups, rebuilt int64
	busy             int64 // ns in io and tasks, all loops
	perLoop          []busyStats
}

// busyStats are the loops of a group, or one loop, and their time in io
// and tasks.
type busyStats struct {
	name           string
	loops, started int
	busy           int64
}

// runCompare runs the same workload under each variant along axis, one
// after another so the runs do not compete for the CPU, and shows them
// side by side: the running one live, the finished ones frozen, and a
// final table. judge, given the finished runs' summaries, returns the
// verdict, the cause lines and the compare clauses (compare.Judge's); nil
// for none. It returns when the user quits; quitting stops the running
// variant gracefully.
func runCompare(axis Axis, models []string, newRun NewModelRun, judge func([]*sim.Summary) compare.Judgement, o Options) error {
	if newRun == nil {
		return errors.New("tui: no run")
	}
	if len(models) == 0 {
		models = compare.Models
	}
	sh := newShell(o)
	v := &compareView{sh: sh, axis: axis, run: startCompare(models, newRun, judge, o, sh.redraw),
		header: widgets.NewBar(sh.th, sh.th.Header), recorded: o.Recorded}
	err := sh.run(v)
	v.run.close()
	return err
}

// compareView shows what its runner holds: each model's column, the
// results table and the verdict, or the lockstep replay of them.
type compareView struct {
	sh       *shell
	axis     Axis
	run      *compareRunner
	lastDraw atomic.Int64
	playing  atomic.Bool // the lockstep replay plays

	// UI goroutine.
	view        []column
	verdictView compare.Judgement
	// verdictScroll is where the verdict's lines are read from when they
	// are more than its rows.
	verdictScroll widgets.ScrollText
	header        *widgets.Bar
	lock          *lockstep // the lockstep replay, while it is shown
	doneView      bool
	// recorded opens a variant's built-in recording (Options.Recorded).
	recorded func(variant string) (*jsonl.Trace, bool)
}

func (v *compareView) kind() screenKind { return onCompare }
func (v *compareView) title() string    { return "compare" }

// scenario is nil: the compare screen runs one workload under several.
func (v *compareView) scenario() *scenarios.Scenario { return nil }

// sampleColumn reads a run's live numbers and folds its model's snapshot.
func sampleColumn(run Session, mdl *model.Model) column {
	f := model.NewFrame(mdl.Snapshot(model.Query{Focus: -1}), model.Settings{IORatio: -1})
	c := column{elapsed: run.Elapsed(), clients: f.Clients}
	var st colStats
	at := map[string]int{}
	for _, l := range f.Rows {
		if l.Group == "client" {
			continue // the load generator, not the server under test
		}
		st.loops++
		gi, ok := at[l.Group]
		if !ok {
			gi = len(st.groups)
			at[l.Group] = gi
			st.groups = append(st.groups, busyStats{name: l.Group})
		}
		g := &st.groups[gi]
		one := busyStats{name: l.Name, loops: 1, busy: l.IONanos + l.TaskNanos}
		if l.TID != 0 {
			one.started = 1
		}
		g.loops, g.started, g.busy = g.loops+1, g.started+one.started, g.busy+one.busy
		st.started, st.busy = st.started+one.started, st.busy+one.busy
		st.perLoop = append(st.perLoop, one)
		st.queueNow += l.QueueDepth
		st.maxQ = max(st.maxQ, l.MaxQueueDepth)
		st.wakeups += l.WakeupsWritten
		st.rebuilt += l.Rebuilds
		for j, d := range l.History {
			k := len(st.queueHist) - len(l.History) + j
			if k < 0 {
				st.queueHist = append(make([]int64, -k), st.queueHist...)
				k = 0
			}
			st.queueHist[k] += d
		}
	}
	c.stats = st
	return c
}

// needsRedraw: the running column's numbers move all the time, so the
// compare screen simply redraws four times a second while one runs.
func (v *compareView) needsRedraw() bool {
	if v.playing.Load() {
		return true
	}
	return v.run.running() && time.Now().UnixNano()-v.lastDraw.Load() >= int64(250*time.Millisecond)
}

func (v *compareView) refresh() {
	v.lastDraw.Store(time.Now().UnixNano())
	v.view, v.doneView, v.verdictView = v.run.columns(v.view)
	v.playing.Store(v.lock != nil && v.lock.playing) // for needsRedraw, on the ticker's goroutine
	running := ""
	for i := range v.view {
		c := &v.view[i]
		if c.state == colRunning && c.run != nil {
			s := sampleColumn(c.run, c.mdl)
			c.elapsed, c.clients, c.stats = s.elapsed, s.clients, s.stats
			running = c.model
		}
	}
	th := v.sh.th
	hs := th.Header
	status := "all " + string(v.axis) + "s done"
	switch {
	case running != "":
		status = "running " + running
	case !v.doneView:
		status = "starting…"
	}
	left := []widgets.Seg{widgets.S(" reactorviz ", hs.Bold(true)), widgets.S("COMPARE ", hs.Bold(true)),
		widgets.S("· one "+string(v.axis)+" after another · "+status, hs)}
	v.header.Set(left, nil)
}

func (v *compareView) act(a action) {
	switch {
	case a == actLockstep:
		v.toggleLockstep()
	case a == actQuietRecording:
		v.toggleQuietRecording()
	case v.lock != nil && v.lock.act(a):
		// the lockstep replay's key
	case a == actFwdPage:
		v.verdictScroll.Scroll(widgets.Page)
	case a == actBackPage:
		v.verdictScroll.Scroll(-widgets.Page)
	case a == actSkip:
		v.run.skip()
	case a == actQuit:
		if v.run.quit(v.sh.stop) {
			v.sh.say("stopping… (graceful shutdown)")
		}
	}
}

func (v *compareView) draw(scr tcell.Screen, x, y, w, h int) {
	th := v.sh.th
	v.header.SetRect(x, y, w, 1)
	v.header.Draw(scr)
	if v.lock != nil {
		v.lock.tick()
		v.lock.draw(scr, th, x, y+1, w, h-3)
		v.drawVerdict(scr, x, y+h-2, w, y+h)
		return
	}
	n := max(len(v.view), 1)
	colW := (w - (n - 1)) / n
	// The columns take the rows they fill; what they leave goes to the
	// results, the verdict, the causes and the compare clauses.
	need := 0
	for i := range v.view {
		need = max(need, len(v.columnLines(&v.view[i], colW))+1)
	}
	// The verdict keeps six rows at least: it scrolls when it needs more.
	colsH := min(need, h-1-(len(v.view)+2)-6)
	colsH = max(colsH, min(6, h-1))
	for i := range v.view {
		cx := x + i*(colW+1)
		v.drawColumn(scr, cx, y+1, colW, colsH, &v.view[i])
		if i > 0 {
			for j := range colsH {
				scr.SetContent(cx-1, y+1+j, '│', nil, th.Rule)
			}
		}
	}
	v.drawTable(scr, x, y+1+colsH, w, h-1-colsH)
}

func (v *compareView) drawColumn(scr tcell.Screen, x, y, w, h int, c *column) {
	widgets.Rule(scr, x, y, w, []widgets.Seg{widgets.S(c.model, v.sh.th.Title)}, v.sh.th)
	for i, l := range v.columnLines(c, w) {
		if 1+i >= h {
			break
		}
		widgets.PutSegs(scr, x+1, y+1+i, w-1, l)
	}
}

// columnLines are the rows of one column under its title.
func (v *compareView) columnLines(c *column, w int) [][]widgets.Seg {
	th := v.sh.th
	var state string
	st := th.Base
	switch c.state {
	case colWaiting:
		state, st = "waiting", th.Dim
	case colRunning:
		state, st = "▶ running "+model.ClockTenths(int64(c.elapsed)), th.Good
		if c.total > 0 {
			state += "/" + model.ClockTenths(int64(c.total))
		}
	case colFinished:
		state = "■ finished"
	case colSkipped:
		state, st = "■ stopped early", th.Warn
	case colFailed:
		state, st = "✗ "+errText(c.err), th.Bad
	}
	lines := [][]widgets.Seg{{widgets.S(state, st)}}
	kv := func(label, value string) []widgets.Seg {
		return []widgets.Seg{widgets.S(widgets.Pad(label, 10), th.Dim), widgets.S(value, th.Bold)}
	}
	if c.state != colWaiting && c.state != colFailed {
		cs := c.clients
		s := c.stats
		if st := structureText(s, w-2); st != "" {
			lines = append(lines, []widgets.Seg{widgets.S(st, th.Accent)})
		}
		lines = append(lines,
			kv("req/s", rate(cs.ThroughputRPS)),
			kv("p50", usText(cs.P50US)),
			kv("p99", usText(cs.P99US)),
		)
		// Once the run is done: its worst 250 ms window, and what it could
		// serve with a core per loop (its loops' own CPU, which a busy
		// machine does not change).
		if wc := worstCell(c.summary); wc != "" {
			lines = append(lines, kv("worst p99", wc))
		}
		if cc := capacityCell(c.summary, w-11); cc != "" {
			lines = append(lines, kv("capacity", cc))
		}
		lines = append(lines,
			kv("requests", model.Count(cs.Requests)+"  err "+model.Count(cs.Errors)),
			kv("loops", strconv.Itoa(s.started)+"/"+strconv.Itoa(s.loops)+" started"),
		)
		for _, g := range s.groups {
			u := util(g.busy, g.loops, c.elapsed)
			bw := max(w-10-6, 4)
			lines = append(lines, []widgets.Seg{
				widgets.S(widgets.Pad(g.name, 10), th.Dim),
				widgets.S(bar(u, bw), th.Accent),
				widgets.S(" "+percent(u), th.Base),
			})
		}
		sw := max(w-10-7, 4)
		lines = append(lines,
			[]widgets.Seg{widgets.S(widgets.Pad("queue", 10), th.Dim), widgets.S(widgets.PadLeft(model.Count(s.queueNow), 4)+" ", th.Base),
				widgets.S(widgets.Sparkline(s.queueHist, sw), th.Accent)},
			kv("max queue", model.Count(s.maxQ)),
			kv("wakeups", model.Count(s.wakeups)+"  rebuilds "+model.Count(s.rebuilt)),
		)
		// Each loop's share, while there is room: an idle boss loop (C3)
		// or an uneven worker spread shows here.
		head := "per loop"
		cpu := loopCPU(c.summary)
		if len(cpu) > 0 {
			head += " · busy · CPU per request"
		}
		lines = append(lines, []widgets.Seg{widgets.S(head, th.Dim)})
		for _, l := range s.perLoop {
			perReq := cpu[l.name]
			bw := max(w-12-6-len([]rune(perReq)), 4)
			u := util(l.busy, 1, c.elapsed)
			name := widgets.Pad(" "+l.name, 12)
			st := th.Accent
			if l.started == 0 {
				st = th.Dim
			}
			lines = append(lines, []widgets.Seg{widgets.S(name, th.Dim), widgets.S(bar(u, bw), st),
				widgets.S(" "+percent(u), th.Base), widgets.S(perReq, th.Bold)})
		}
	}
	return lines
}

// structureText is the model's shape as the lesson states it, whatever
// the machine's load: who runs the handlers.
func structureText(s colStats, w int) string {
	long, short := structure(s)
	if widgets.Width(long) > w {
		return short // an 80-column screen's third
	}
	return long
}

// structure is who runs the handlers, said in full and in short.
func structure(s colStats) (long, short string) {
	for _, g := range s.groups {
		switch {
		case g.name == "reactor" && g.loops == 1:
			return "one loop runs every handler", "all handlers on 1 loop"
		case g.name == "worker" && g.loops > 1:
			n := strconv.Itoa(g.loops)
			return n + " workers share the handlers", "handlers on " + n + " workers"
		case g.name == "worker":
			return "one worker runs every handler", "handlers on 1 worker"
		}
	}
	return "", ""
}

// worstCell is a finished run's worst 250 ms window: its p99 and when it
// began; "" before the run ends or without one.
func worstCell(s *sim.Summary) string {
	if s == nil || s.Clients.LatencyUS.WorstWindow == nil {
		return ""
	}
	w := s.Clients.LatencyUS.WorstWindow
	return usText(w.P99US) + " @" + model.Duration(w.AtNS)
}

// capacityCell is the rate a finished run's model could serve with a
// core per loop, from its loops' own CPU time: the figure a busy machine
// does not change.
func capacityCell(s *sim.Summary, w int) string {
	if s == nil || s.CapacityRPS <= 0 {
		return ""
	}
	cell := rate(s.CapacityRPS) + " req/s, a core a loop"
	if widgets.Width(cell) > w {
		cell = rate(s.CapacityRPS) + " req/s" // the help says the rest
	}
	return cell
}

// rate is a per-second figure rounded as the verdict writes it (%.0f),
// so a column and the sentence under it never differ by one.
func rate(v float64) string { return model.Count(int64(math.Round(v))) }

// loopCPU is each loop's CPU per request of a finished run, by name,
// for the per-loop rows: " 410µs/req".
func loopCPU(s *sim.Summary) map[string]string {
	out := map[string]string{}
	if s == nil {
		return out
	}
	for _, l := range s.Loops {
		if l.LoopCPU != nil && l.CPUNanosPerRequest > 0 {
			out[l.Name] = " " + model.Duration(l.CPUNanosPerRequest) + "/req"
		}
	}
	return out
}

// util is the share of the run the loops spent in io and tasks.
func util(busy int64, loops int, elapsed time.Duration) float64 {
	if loops == 0 || elapsed <= 0 {
		return 0
	}
	return min(float64(busy)/(float64(elapsed)*float64(loops)), 1)
}

// percent is a share as a whole percentage: "42%".
func percent(frac float64) string { return strconv.Itoa(int(frac*100+0.5)) + "%" }

// bar is a share drawn w cells wide, full cells first.
func bar(frac float64, w int) string {
	full := min(max(int(frac*float64(w)+0.5), 0), w)
	return strings.Repeat("█", full) + strings.Repeat("░", w-full)
}

// drawTable is the final table: one row per model, frozen numbers for the
// finished ones.
func (v *compareView) drawTable(scr tcell.Screen, x, y, w, h int) {
	th := v.sh.th
	if h <= 0 {
		return
	}
	widgets.Rule(scr, x, y, w, []widgets.Seg{widgets.S("results", th.Title),
		widgets.S(" · same workload, "+string(v.axis)+"s run one after another", th.Base)}, th)
	cols := []struct {
		name string
		w    int
	}{{string(v.axis), 12}, {"req/s", 7}, {"p50", 7}, {"p99", 7}, {"errors", 6}, {"loops", 6}, {"util", 5}, {"max q", 6}, {"expect", 6}}
	row := func(yy int, cells []string, st tcell.Style) {
		cx := x + 1
		for i, c := range cols {
			if cx >= x+w {
				break
			}
			text := widgets.PadLeft(cells[i], c.w)
			if i == 0 {
				text = widgets.Pad(cells[i], c.w)
			}
			widgets.Put(scr, cx, yy, min(c.w, x+w-cx), text, st)
			cx += c.w + 1
		}
	}
	if h < 2 {
		return
	}
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.name
	}
	row(y+1, head, th.Dim)
	for i := range v.view {
		if 2+i >= h {
			break
		}
		c := &v.view[i]
		if c.state == colWaiting || c.state == colFailed {
			row(y+2+i, []string{c.model, "-", "-", "-", "-", "-", "-", "-", "-"}, th.Dim)
			continue
		}
		expect := v.expectText(c)
		st := th.Base
		if c.state == colRunning {
			st = th.Good
		}
		s := c.stats
		row(y+2+i, []string{
			c.model, rate(c.clients.ThroughputRPS), usText(c.clients.P50US), usText(c.clients.P99US),
			model.Count(c.clients.Errors), strconv.Itoa(s.started) + "/" + strconv.Itoa(s.loops),
			percent(util(s.busy, s.loops, c.elapsed)), model.Count(s.maxQ), expect,
		}, st)
	}
	v.drawVerdict(scr, x, y+2+len(v.view), w, y+h)
}

// expectText is a column's expect cell: its own expectations and the
// compare clauses that name it, held of asked; "…" until the clauses are
// checked, "-" with neither.
func (v *compareView) expectText(c *column) string {
	ok, n := v.verdictView.Tally(c.model)
	if c.summary != nil {
		ok, n = ok+len(c.summary.Expect)-c.summary.Failed(), n+len(c.summary.Expect)
	}
	switch {
	case n > 0:
		return fmt.Sprintf("%d/%d", ok, n)
	case !v.doneView && v.run.judge != nil:
		return "…"
	}
	return "-"
}

// drawVerdict writes the verdict, the lines that name each difference's
// cause and the compare clauses with their results, wrapped to the rows
// left before bottom, scrolling when they need more; until every run is
// done, it says so.
func (v *compareView) drawVerdict(scr tcell.Screen, x, y, w, bottom int) {
	th := v.sh.th
	if y >= bottom || v.run.judge == nil {
		return
	}
	j := v.verdictView
	if j.Verdict == "" {
		widgets.Put(scr, x+1, y, w-1, "verdict: once every "+string(v.axis)+" has run", th.Dim)
		return
	}
	var lines [][]widgets.Seg
	put := func(text string, st tcell.Style, indent string) {
		for i, l := range widgets.Wrap(text, max(w-2-len(indent), 10)) {
			if i > 0 {
				l = indent + l
			}
			lines = append(lines, []widgets.Seg{widgets.S(l, st)})
		}
	}
	label := "verdict: "
	if v.lock != nil && v.lock.source == quietSource {
		// The lanes above are the quiet machine's; the verdict is still
		// about the runs made here.
		label = "this machine's verdict: "
	}
	put(label+j.Verdict, th.Bold, "")
	if j.MachineBusy && v.recorded != nil && v.hasRecording() {
		put("R: the same comparison recorded on a quiet machine (built-in recording) — the columns above are this machine's runs", th.Warn, "   ")
	}
	if len(j.Causes) > 0 {
		put("why they differ:", th.Title, "")
		for _, c := range j.Causes {
			put("· "+c, th.Base, "  ")
		}
	}
	if len(j.Checks) > 0 {
		held := 0
		for _, e := range j.Checks {
			if e.OK {
				held++
			}
		}
		put(fmt.Sprintf("compare clauses (%d of %d hold):", held, len(j.Checks)), th.Title, "")
		for _, e := range j.Checks {
			mark, st := "ok ", th.Good
			if !e.OK {
				mark, st = "FAIL ", th.Bad
			}
			put(mark+e.Expr+sim.ObservedText(e), st, "     ")
		}
	}
	v.verdictScroll.Draw(scr, x+1, y, w-1, bottom-y, lines, "PgDn/PgUp or ] [ scroll", th)
}

// hasRecording says whether every variant has a built-in recording.
func (v *compareView) hasRecording() bool {
	if len(v.view) == 0 {
		return false
	}
	for _, c := range v.view {
		if _, ok := v.recorded(c.model); !ok {
			return false
		}
	}
	return true
}

// quietSource labels a lockstep of built-in recordings: its figures are
// not this machine's runs.
const quietSource = "built-in recordings, made on a quiet machine: these lanes and figures are theirs, not this machine's runs (R: back)"

// toggleQuietRecording opens the built-in recording of the same
// comparison in the lockstep replay, or goes back to this machine's runs.
func (v *compareView) toggleQuietRecording() {
	if v.lock != nil && v.lock.source == quietSource {
		v.lock = nil
		return
	}
	if v.recorded == nil {
		v.sh.say("no built-in recording of this comparison")
		return
	}
	var recs []recording
	for _, c := range v.view {
		tr, ok := v.recorded(c.model)
		if !ok {
			v.sh.say("no built-in recording of " + c.model + " on this workload")
			return
		}
		recs = append(recs, builtinRecording(c.model, tr))
	}
	v.lock = newLockstep(recs)
	v.lock.source = quietSource
	v.lock.openAtDifference()
}
