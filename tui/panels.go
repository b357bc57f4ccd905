package tui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// minLogQuery is how many log lines a snapshot asks for at least: the
// snapshot is taken before the layout of the frame that shows it, so after
// a resize the log must already hold enough lines for the new height.
const minLogQuery = 120

// mainPanels is the body shared by the live and replay screens: a panel
// per group, the detail pane of the focused loop, and the event log.
type mainPanels struct {
	th       *widgets.Theme
	tables   []*widgets.LoopTable
	groups   [][]int // per table, the trace index of each row
	detail   *detailPane
	log      *widgets.EventLog
	logRows  int
	logTitle []widgets.Seg
	onFocus  func(index int)

	timeline *widgets.Timeline
	tl       timelineView
	frame    *model.Frame // the latest shown, whose lanes the timeline draws
	focus    int
	// followed marks, per trace loop index, the columns holding an event
	// of the followed item.
	followed map[int][]bool
	// sc is the scenario shown, whose concepts the concept block counts;
	// nil for none.
	sc *scenarios.Scenario
	// lessonTable is the lesson layout's compact rows, every group's
	// loops in one; lessonIdx the trace index of each row.
	lessonTable *widgets.LoopTable
	lessonIdx   []int
}

func newMainPanels(th *widgets.Theme) *mainPanels {
	return &mainPanels{th: th, detail: newDetailPane(th), log: widgets.NewEventLog(th), logRows: 40,
		timeline: widgets.NewTimeline(th), tl: newTimelineView()}
}

// panelsScreen is what the live and the replay screens share: the header,
// the panels, the focus, the log's filter, the item followed, and the
// frame and caption on screen. UI goroutine.
type panelsScreen struct {
	sh      *shell
	header  *widgets.Bar
	body    *mainPanels
	focus   int
	filter  model.Filter
	follow  model.FollowQuery // the task or channel followed; Field "" for none
	frame   *model.Frame
	caption captionView
	pager   captionPager // the page of a long caption
}

func newPanelsScreen(sh *shell) panelsScreen {
	return panelsScreen{sh: sh, focus: -1, header: widgets.NewBar(sh.th, sh.th.Header), body: newMainPanels(sh.th)}
}

// showFrame hands the frame to the panels, its log the followed item's
// path from its start, or the events of the slice under the timeline's
// cursor, else held (nil: the frame's own); empty is what a log with
// nothing to show says, emptyFollowed a path with nothing. It reports
// whether the log shows its own lines, whose title a screen may add to.
func (p *panelsScreen) showFrame(sc *scenarios.Scenario, held []model.LogLine, empty, emptyFollowed string) bool {
	f := p.frame
	following := p.follow.Field != ""
	p.body.markFollowed(f.Snapshot.FollowLog, f.Snapshot.Time)
	inspect := p.body.tl.cursorOn && p.body.tl.end > 0 && !following
	switch {
	case following:
		// A task's submit, a channel's accept and register0 come first.
		f.Log = f.Log[:min(len(f.Log), max(p.body.logRows-1, 1))]
		empty = emptyFollowed
	case inspect:
		f.Log = f.Snapshot.SliceLog
		empty = "no event of this loop in the slice under the cursor (←→ move it, c hides it)"
	case held != nil:
		f.Log = held
	}
	p.body.sc = sc
	p.body.show(f, p.focus, p.filter, empty)
	p.body.point(p.caption)
	switch {
	case following:
		p.body.followTitle(p.follow, len(f.Snapshot.FollowLog))
	case inspect:
		p.body.inspectTitle(f, p.focus)
	default:
		return true
	}
	return false
}

// actOnPanels handles the keys the live and the replay screens handle
// alike; it reports false for a key that is not one.
func (p *panelsScreen) actOnPanels(a action) bool {
	switch a {
	case actNextLoop, actPrevLoop:
		dir := 1
		if a == actPrevLoop {
			dir = -1
		}
		p.focus = focusStep(p.frame.Snapshot, p.focus, dir)
	case actFollow:
		p.follow = toggleFollow(p.follow, p.frame.Log, p.sh.say)
	case actFollowHead:
		p.follow = followHead(p.follow, p.frame, p.focus, p.sh.say)
	case actTurnCaption:
		p.pager.turn()
	default:
		return p.body.tl.act(a)
	}
	return true
}

// drawBody draws, from y down, the warnings line, the caption and the
// panels; bars are the rows above y the screen's own bars took of h.
func (p *panelsScreen) drawBody(scr tcell.Screen, x, y, w, h, bars int) {
	cols, rows := scr.Size()
	p.body.tl.small = lessonSmall(cols, rows)
	wr := p.sh.drawWarnings(scr, x, y, w)
	y, h = y+wr, h-wr
	fit := fitCaption(p.caption, w, h, p.body.lessonSpare(w, h-bars))
	drawCaption(scr, p.sh.th, p.caption, fit, &p.pager, x, y, w)
	p.body.draw(scr, x, y+fit.rows(), w, h-bars-fit.rows())
}

func (p *panelsScreen) mouse(action tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) bool {
	return p.body.mouse(action, ev, setFocus)
}

// show hands one frame to the widgets: a table per group, the focused
// loop's detail and the log. The live and replay screens draw only this.
func (p *mainPanels) show(f *model.Frame, focus int, filter model.Filter, empty string) {
	p.setLoops(f, focus)
	p.frame, p.focus = f, focus
	p.detail.set(detailOf(f, focus))
	p.logTitle = logTitle(p.th, filter, f.Events, f.Dropped)
	p.log.Set(p.logTitle, f.Log, empty)
}

// query is the frame's query of a screen that shows the panels: the
// focused loop, the log, the timeline's window ending at end (trace time;
// origin is the run clock's zero), the slice under the cursor, which the
// live and replay inspect panels list alike, and the item followed.
func (p *mainPanels) query(focus int, filter model.Filter, follow model.FollowQuery, end, origin int64) model.Query {
	q := model.Query{Focus: focus, Head: detailHead, Log: max(p.logRows, minLogQuery), Filter: filter,
		Timeline: p.tl.query()}
	q.Timeline.End = end
	q.Timeline = q.Timeline.Aligned()
	p.tl.end, p.tl.origin = q.Timeline.End, origin
	if from, to, ok := p.tl.cursorSlice(0); ok {
		q.Slice = model.SliceQuery{Loop: focus, From: from, To: to, Max: max(p.logRows, minLogQuery)}
	}
	if follow.Field != "" {
		q.Follow = follow
		q.Follow.Max = model.LogCap
	}
	return q
}

// point shows what the caption talks about: the log's lines of the
// events that count its figures, and the focused loop's queued or
// scheduled tasks the latest script action put there.
func (p *mainPanels) point(c captionView) {
	p.log.SetMark(pointedLines(c.points))
	loop := p.detail.info.loop.Index
	p.detail.info.putQueue = func(name string) bool { return c.marked(loop, false, name) }
	p.detail.info.putHeap = func(name string) bool { return c.marked(loop, true, name) }
}

// inspectTitle titles the event pane as the inspect panel of the
// timeline cursor's slice on the focused loop: when, how busy, what
// happened; the pane lists the slice's events.
func (p *mainPanels) inspectTitle(f *model.Frame, focus int) {
	from, to, ok := p.tl.cursorSlice(f.Snapshot.Time)
	if !ok {
		return
	}
	at := func(t int64) string { return model.Clock(t - p.tl.origin) }
	segs := []widgets.Seg{widgets.S("slice ", p.th.Title), widgets.S(at(from)+"–"+at(to), p.th.Bold)}
	if l, ok := loopAt(f.Snapshot, focus); ok && p.tl.cursor < len(l.Lane.Cells) {
		c := l.Lane.Cells[p.tl.cursor]
		segs = append(segs, widgets.S(" · "+l.Name, p.th.Base))
		if c.Width > 0 {
			pct := func(ns int64) string { return strconv.Itoa(int(100*ns/c.Width)) + "%" }
			segs = append(segs, widgets.S(" · busy "+pct(c.IO+c.Tasks)+" (io "+pct(c.IO)+", tasks "+pct(c.Tasks)+") · select "+pct(c.Select), p.th.Base))
			if c.Parked > 0 {
				segs = append(segs, widgets.S(" · stopped "+pct(c.Parked), p.th.Warn))
			}
		}
		if names := widgets.MarkNames(c.Marks); len(names) > 0 {
			segs = append(segs, widgets.S(" · "+strings.Join(names, ", "), p.th.Bad))
		}
	}
	if f.Snapshot.SliceOlder {
		segs = append(segs, widgets.S(" · older than the log keeps", p.th.Dim))
	}
	p.logTitle = segs
	p.log.SetTitle(segs)
}

// followTitle titles the event pane as the followed item's path.
func (p *mainPanels) followTitle(fq model.FollowQuery, n int) {
	what := "task id=" + strconv.FormatInt(fq.ID, 10)
	if fq.Field == "channel" {
		what = "channel " + strconv.FormatInt(fq.ID, 10)
	}
	segs := []widgets.Seg{widgets.S("following ", p.th.Title), widgets.S(what, p.th.Bold),
		widgets.S(" · "+strconv.Itoa(n)+" events, ◆ on the lanes · f stops", p.th.Base)}
	p.logTitle = segs
	p.log.SetTitle(segs)
}

// markFollowed marks the columns of the followed item's events on their
// lanes, from its log lines in trace time.
func (p *mainPanels) markFollowed(lines []model.LogLine, snapTime int64) {
	p.followed = nil
	start, span, cols, ok := p.tl.grid(snapTime)
	if !ok || len(lines) == 0 {
		return
	}
	p.followed = map[int][]bool{}
	for _, l := range lines {
		c := int((l.Event.Time - start) * int64(cols) / span)
		if c < 0 || c >= cols {
			continue
		}
		i := int(l.Event.Loop)
		if p.followed[i] == nil {
			p.followed[i] = make([]bool, cols)
		}
		p.followed[i][c] = true
	}
}

// logTitleMore adds to the log's title after show.
func (p *mainPanels) logTitleMore(segs []widgets.Seg) {
	if len(segs) > 0 {
		p.logTitle = append(p.logTitle, segs...)
		p.log.SetTitle(p.logTitle)
	}
}

// setLoops fills one table per group from a frame.
func (p *mainPanels) setLoops(f *model.Frame, focus int) {
	snap, now := f.Snapshot, f.Now
	for len(p.tables) < len(snap.Groups) {
		t := widgets.NewLoopTable(p.th)
		ti := len(p.tables)
		t.OnClick(func(r int) {
			if p.onFocus != nil && ti < len(p.groups) && r < len(p.groups[ti]) {
				p.onFocus(p.groups[ti][r])
			}
		})
		p.tables = append(p.tables, t)
	}
	p.tables = p.tables[:len(snap.Groups)]
	p.groups = p.groups[:0]
	for gi, g := range snap.Groups {
		rows, idx, at := tableRows(f, g.Loops, focus, nil) // p.groups keeps each
		p.groups = append(p.groups, idx)
		// The lesson layout shows the focused loop's table alone, with
		// the column header.
		header := gi == 0 || (at >= 0 && p.tl.current() == layoutLesson)
		p.tables[gi].Set(append(groupTitle(g, p.th), ioRatioSegs(rows, p.th)...), rows, at, now, header)
	}
}

// tableRows are the rows of a table of the frame's loops in order (indexes
// into its loops), their trace indexes, put in idx's array when it has the
// room, and the row of focus; -1 for none.
func tableRows(f *model.Frame, order []int, focus int, idx []int) ([]widgets.LoopRow, []int, int) {
	rows, idx, at := make([]widgets.LoopRow, 0, len(order)), slices.Grow(idx[:0], len(order)), -1
	for i, li := range order {
		rows = append(rows, f.Rows[li])
		idx = append(idx, f.Rows[li].Index)
		if f.Rows[li].Index == focus {
			at = i
		}
	}
	return rows, idx, at
}

func groupTitle(g model.Group, th *widgets.Theme) []widgets.Seg {
	name := g.Name
	if name == "" {
		name = "loops"
	}
	n := len(g.Loops)
	word := " loops"
	if n == 1 {
		word = " loop"
	}
	return []widgets.Seg{
		widgets.S(name, th.Title),
		widgets.S(" · "+strconv.Itoa(n)+word+" · chooser "+g.Chooser, th.Base),
	}
}

// draw lays out tables, timeline, detail, concepts and log in (x, y, w,
// h): the detail pane a third of the height (7–11 rows), the concept block
// what its counters need (lessonMaxRows at most), the log at least 4 rows,
// the timeline its rule and two lanes at least, the tables what they need
// of the rest, scrolling when there is not enough. The timeline then takes
// a lane per loop while the log keeps its 4 rows. The layout key trades
// the detail pane for more lanes, or drops the timeline, or shows the
// lesson layout.
func (p *mainPanels) draw(scr tcell.Screen, x, y, w, h int) {
	if p.tl.current() == layoutLesson {
		p.drawLesson(scr, x, y, w, h)
		return
	}
	detailH := min(max(h/3, 7), 11)
	if p.tl.current() == layoutLanes {
		detailH = 0
	}
	tlWant, tlMin := p.timelineWant()
	const logMin = 4
	avail := max(h-detailH-logMin-tlMin, 0)
	heights := p.tableHeights(avail)
	cy := y
	for i, t := range p.tables {
		if heights[i] <= 0 {
			continue
		}
		t.SetRect(x, cy, w, heights[i])
		t.Draw(scr)
		cy += heights[i]
	}
	rest := y + h - cy
	// The concept block comes before the timeline's lanes past two (and
	// its ruler, where the cursor shows) and the detail pane's rows past
	// 7, and leaves out what the pane shows.
	// Its rows are counted beside the least detail pane it leaves, so a
	// pane that keeps more rows leaves the log a row or two more.
	lessonH := min(p.lessonRows(w, p.detail.shownLabels(w, min(detailH, 7))), max(rest-min(tlWant, 4)-min(detailH, 7)-logMin, 0))
	th := min(tlWant, max(rest-detailH-lessonH-logMin, 0))
	if floor := min(tlWant, 4); lessonH > 0 && th < floor {
		// The block took rows: the detail pane gives up its rows past 7
		// before the timeline its ruler.
		th = min(floor, max(rest-lessonH-logMin-min(detailH, 7), 0))
	}
	if th < tlMin {
		th = min(tlMin, max(rest-logMin, 0))
	}
	p.drawTimeline(scr, x, cy, w, th)
	cy += th
	dh := min(detailH, max(rest-th-lessonH-logMin, 0))
	p.detail.draw(scr, x, cy, w, dh)
	cy += dh
	skip := p.detail.shownLabels(w, dh)
	lh := min(lessonH, p.lessonRows(w, skip), max(y+h-cy-logMin, 0))
	p.drawConcepts(scr, x, cy, w, lh, skip, false)
	cy += lh
	p.log.SetRect(x, cy, w, y+h-cy)
	p.log.Draw(scr)
	p.logRows = max(p.log.Rows(), 1)
}

// tableHeights deals avail rows to the loop tables.
func (p *mainPanels) tableHeights(avail int) []int {
	heights := make([]int, len(p.tables))
	want := 0
	for _, t := range p.tables {
		want += t.Want()
	}
	if want <= avail {
		for i, t := range p.tables {
			heights[i] = t.Want()
		}
		return heights
	}
	// Every table gets its title, header and one row, then rows are
	// dealt out in turn to the tables that want more.
	left := avail
	for i, t := range p.tables {
		base := min(t.Want(), 2)
		if i == 0 {
			base = min(t.Want(), 3)
		}
		heights[i] = min(base, left)
		left -= heights[i]
	}
	for left > 0 {
		gave := false
		for i, t := range p.tables {
			if left > 0 && heights[i] < t.Want() {
				heights[i]++
				left--
				gave = true
			}
		}
		if !gave {
			break
		}
	}
	return heights
}

// timelineWant is the rows the timeline would like (its rule and a lane
// per loop) and the least it takes (its rule and two lanes).
func (p *mainPanels) timelineWant() (want, least int) {
	if l := p.tl.current(); l == layoutClassic || l == layoutLesson || p.frame == nil {
		return 0, 0
	}
	want = 2 + len(p.frame.Loops) // the rule, the lanes and the ruler
	return want, min(want, 3)
}

func (p *mainPanels) drawTimeline(scr tcell.Screen, x, y, w, h int) {
	if h <= 0 {
		p.timeline.SetRect(0, 0, 0, 0) // no clicks land on a pane not drawn
		return
	}
	p.tl.cols = widgets.TimelineCols(w)
	cursor := -1
	if p.tl.cursorOn {
		p.tl.cursor = min(p.tl.cursor, max(p.tl.cols-1, 0))
		cursor = p.tl.cursor
	}
	lanes := h - 1
	ruler := ""
	if h >= 4 {
		ruler, lanes = p.tl.ruler(p.frame.Snapshot.Time), h-2
	}
	p.timeline.SetRuler(ruler, cursor)
	ls := timelineLanes(p.frame, p.focus, lanes)
	for i := range ls {
		ls[i].Follow = p.followed[ls[i].Index]
	}
	p.timeline.SetBare(false)
	p.timeline.Set(p.tl.title(p.th, w), ls)
	p.timeline.SetRect(x, y, w, h)
	p.timeline.Draw(scr)
}

// mouse routes a click to the loop table under it.
func (p *mainPanels) mouse(action tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) bool {
	if i, ok := p.timeline.LaneAt(ev.Position()); ok {
		if action == tview.MouseLeftClick && p.onFocus != nil {
			p.onFocus(i)
			px, _ := ev.Position()
			if c, ok := p.timeline.ColumnAt(px); ok {
				p.tl.cursorOn, p.tl.cursor = true, c
			}
		}
		return true
	}
	tables := p.tables
	if p.lessonTable != nil && p.tl.current() == layoutLesson {
		tables = []*widgets.LoopTable{p.lessonTable}
	}
	for _, t := range tables {
		if t.InRect(ev.Position()) {
			consumed, _ := t.MouseHandler()(action, ev, setFocus)
			return consumed
		}
	}
	return false
}

// focusStep moves the focus one loop forward or back, in table order.
func focusStep(snap *model.Snapshot, focus, dir int) int {
	var order []int
	for _, g := range snap.Groups {
		for _, li := range g.Loops {
			order = append(order, snap.Loops[li].Index)
		}
	}
	if snap.Wheel.Present {
		// The wheel's thread comes last: its detail pane is the wheel.
		order = append(order, snap.Wheel.Index)
	}
	if len(order) == 0 {
		return -1
	}
	for i, idx := range order {
		if idx == focus {
			return order[(i+dir+len(order))%len(order)]
		}
	}
	return order[0]
}

// defaultFocus picks the loop to focus first: the first worker that has
// started, else the first loop.
func defaultFocus(snap *model.Snapshot) int {
	for _, g := range snap.Groups {
		if g.Name != "worker" {
			continue
		}
		for _, li := range g.Loops {
			return snap.Loops[li].Index
		}
	}
	if len(snap.Loops) > 0 {
		return snap.Loops[0].Index
	}
	return -1
}

// focusable reports whether focus names a loop of the snapshot or its
// wheel thread.
func focusable(snap *model.Snapshot, focus int) bool {
	if snap.Wheel.Present && focus == snap.Wheel.Index {
		return true
	}
	_, ok := loopAt(snap, focus)
	return ok
}

// loopAt returns the snapshot row of trace loop index i.
func loopAt(snap *model.Snapshot, i int) (model.Loop, bool) {
	for _, l := range snap.Loops {
		if l.Index == i {
			return l, true
		}
	}
	return model.Loop{}, false
}

// logTitle is the event log's rule: the filter and the counts.
func logTitle(th *widgets.Theme, f model.Filter, events, dropped uint64) []widgets.Seg {
	segs := []widgets.Seg{widgets.S("events", th.Title)}
	if !f.Empty() {
		segs = append(segs, widgets.S(" · filter ", th.Base), widgets.S(f.String(), th.Warn))
	}
	segs = append(segs, widgets.S(" · "+model.Count(int64(events))+" seen", th.Base))
	if events > model.LogCap {
		segs = append(segs, widgets.S(" · last "+model.Count(model.LogCap)+" kept", th.Dim))
	}
	if dropped > 0 {
		// Dropped are trace events, not work: a loop never waits for the
		// screen, so a full ring loses the event and counts it.
		segs = append(segs, widgets.S(" · "+model.Count(int64(dropped))+" events dropped (no task lost)", th.Bad))
	}
	return segs
}

// headerParts is a screen's top bar, its pieces in order of importance, so
// that a narrow terminal drops the least useful first.
type headerParts struct {
	brand  string   // "reactorviz", dropped before the status is cut
	what   string   // scenario · model
	status string   // RUNNING, PAUSED · reason, ...
	right  []string // the clock first; later ones go first when short of room
}

func (p headerParts) segs(w int, th *widgets.Theme) (left, right []widgets.Seg) {
	hs := th.Header
	brand := p.brand
	leftW := func() int {
		n := widgets.Width(p.what) + 1 + widgets.Width(p.status) + 1
		if brand != "" {
			n += widgets.Width(brand) + 2
		}
		return n
	}
	parts := p.right
	joined := func() string {
		if len(parts) == 0 {
			return ""
		}
		return strings.Join(parts, " · ") + " "
	}
	// widgets.Bar keeps the right part only while it fits in half the row:
	// drop the later parts first so the clock always stays.
	for len(parts) > 1 && (leftW()+widgets.Width(joined()) > w || widgets.Width(joined())+1 > w/2) {
		parts = parts[:len(parts)-1]
	}
	if leftW()+widgets.Width(joined()) > w {
		brand = ""
	}
	// Then the scenario's description gives up its parts from the last
	// (the transport, the model, the name) before the status, which may
	// name the breakpoint that stopped a loop, is cut.
	for what := strings.Split(p.what, " · "); p.what != "" && leftW()+widgets.Width(joined()) > w; {
		what = what[:len(what)-1]
		p.what = strings.Join(what, " · ")
	}
	if brand != "" {
		left = append(left, widgets.S(" "+brand+" ", hs.Bold(true)))
	} else {
		left = append(left, widgets.S(" ", hs))
	}
	if p.what != "" {
		left = append(left, widgets.S(p.what+" ", hs))
	}
	left = append(left, widgets.S(p.status, hs.Bold(true)))
	if j := joined(); j != "" {
		right = []widgets.Seg{widgets.S(j, hs)}
	}
	return left, right
}
