package tui

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// compareRecordCap bounds the events kept per model for the lockstep
// replay; a longer run keeps its first events and says it was cut.
const compareRecordCap = 1 << 18

// recorder keeps a model's events for the lockstep replay. It runs on the
// collector's goroutine, after the fold, never on a loop's.
type recorder struct {
	mu      sync.Mutex
	events  []trace.Event
	samples []jsonl.Placed
	cut     bool
}

// ConsumeRecord keeps a sample in its place among the events.
func (r *recorder) ConsumeRecord(rec any) {
	s, ok := rec.(*sample.Sample)
	if !ok || s == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.cut {
		r.samples = append(r.samples, jsonl.Placed{Events: len(r.events), Sample: s})
	}
}

func (r *recorder) Consume(batch []trace.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	room := compareRecordCap - len(r.events)
	if len(batch) > room {
		batch, r.cut = batch[:max(room, 0)], true
	}
	r.events = append(r.events, batch...)
}

func (r *recorder) take() ([]trace.Event, []jsonl.Placed, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events, r.samples, r.cut
}

// tee feeds a model's fold and its recorder.
type tee struct {
	mdl *model.Model
	rec *recorder
}

func (t tee) Consume(batch []trace.Event) {
	t.mdl.Consume(batch)
	t.rec.Consume(batch)
}

// ConsumeRecord feeds a sample to both, as the collector delivers it.
func (t tee) ConsumeRecord(rec any) {
	t.mdl.ConsumeRecord(rec)
	t.rec.ConsumeRecord(rec)
}

// recording is one model's run, kept for the lockstep replay.
type recording struct {
	model   string
	loops   []trace.LoopInfo
	events  []trace.Event
	samples []jsonl.Placed
	cut     bool
	windows []sim.Window // what its clients saw, per sim.WindowEvery
	// start is when the run started on its events' clock: its load began
	// then, and its windows count from it. Runs bind their servers before
	// they start, master-slave's two ports longer than one, so the same
	// moment of the workload sits at a different event time in each.
	start int64
	// worst is its clients' worst window (sim.WorstWindow); nil before
	// a window had an answer.
	worst *sim.WorstWindow
}

// builtinRecording is a built-in recording of a model's run for the
// lockstep replay: its events and samples, and what its clients saw in
// each window and at their worst, folded from its samples as a run's
// summary folds them.
func builtinRecording(model string, tr *jsonl.Trace) recording {
	r := recording{model: model, loops: tr.Header.Loops, events: tr.Events, samples: tr.Samples, start: firstAccept(tr.Events)}
	var f sim.Samples
	for _, p := range tr.Samples {
		// The fold stamps each sample it adds with the worst windows so
		// far: it stamps copies, the trace is the caller's.
		s := *p.Sample
		s.Loops = slices.Clone(s.Loops)
		f.Add(&s)
	}
	r.windows = f.Windows()
	if last := f.Latest(); last != nil {
		r.worst = sim.WorstOf(last.Clients.Worst)
	}
	return r
}

// firstAccept is when a recording's clients began: its first accept (a
// trace does not carry the run's start; the clients dial at once).
func firstAccept(evs []trace.Event) int64 {
	for i := range evs {
		if evs[i].Kind == trace.KindAccept {
			return evs[i].Time
		}
	}
	return 0
}

// lockstep replays the models' recordings on one clock: each run's time
// since its own start, so the learner watches single fall behind where
// multi keeps up. Stepping, playing and zooming move every timeline.
type lockstep struct {
	recs    []recording     // each run's; its events, by time, give the lanes' select counts
	reps    []*model.Replay // each recording's replay
	caption string          // what to look at, where the replay opened
	source  string          // whose runs these are, when not this machine's
	t       int64           // the shared clock, ns since each run's start
	end     int64           // the longest recording's end, on that clock
	tl      timelineView

	playing  bool
	playWall time.Time
	playFrom int64
}

func newLockstep(recs []recording) *lockstep {
	ls := &lockstep{recs: recs, tl: newTimelineView()}
	for _, r := range recs {
		rep := model.NewReplay(r.loops, r.events, 0)
		for _, ps := range r.samples {
			rep.AddSample(ps.Events, ps.Sample)
		}
		ls.reps = append(ls.reps, rep)
		ls.end = max(ls.end, rep.EndTime()-r.start)
	}
	ls.t = min(ls.tl.span(), ls.end)
	return ls
}

// seekAll moves every replay to the shared clock.
func (ls *lockstep) seekAll() {
	ls.t = min(max(ls.t, 0), ls.end)
	for i, r := range ls.reps {
		r.Seek(r.PosAtTime(ls.recs[i].start + ls.t))
	}
}

// tick advances a playing lockstep at the recorded pace.
func (ls *lockstep) tick() {
	if !ls.playing {
		return
	}
	ls.t = ls.playFrom + int64(time.Since(ls.playWall))
	if ls.t >= ls.end {
		ls.playing = false
	}
	ls.seekAll()
}

// act handles a key; it reports false for keys it leaves to the screen.
func (ls *lockstep) act(a action) bool {
	step := ls.tl.span() / 20
	switch a {
	case actPlay:
		ls.playing = !ls.playing
		if ls.t >= ls.end {
			ls.t = 0
		}
		ls.playWall, ls.playFrom = time.Now(), ls.t
	case actFwd:
		ls.playing, ls.t = false, ls.t+step
	case actBack:
		ls.playing, ls.t = false, ls.t-step
	case actStart:
		ls.playing, ls.t = false, 0
	case actEnd:
		ls.playing, ls.t = false, ls.end
	case actZoomIn, actZoomOut:
		ls.tl.act(a)
	default:
		return false
	}
	ls.seekAll()
	return true
}

// laneStatsW is the width of the figures beside each lane: its busy
// share of the window and its task queue, and on the title row the run's
// client p50/p99 at that moment.
const laneStatsW = 30

// draw stacks the models' timelines under a status line and the caption,
// each lane with its figures beside it.
func (ls *lockstep) draw(scr tcell.Screen, th *widgets.Theme, x, y, w, h int) {
	state := "■ stopped"
	if ls.playing {
		state = "▶ playing"
	}
	clock := "t " + model.Duration(ls.t) + " of " + model.Duration(ls.end)
	status := "lockstep replay · " + clock + " since each run's start · " + model.Duration(ls.tl.span()) + " window · " + state
	if widgets.Width(status) > w-1 {
		status = "lockstep · " + clock + " · " + model.Duration(ls.tl.span()) + " window · " + state
	}
	widgets.Put(scr, x+1, y, w-1, status, th.Bold)
	y, h = y+1, h-1
	if ls.source != "" && h > 5 {
		// Whose runs these are is never cut: it is why the figures
		// differ from the columns the learner just read.
		n := putWrapped(scr, x, y, w, ls.source, 2, th.Warn)
		y, h = y+n, h-n
	}
	if ls.caption != "" && h > 6 {
		n := putWrapped(scr, x, y, w, ls.caption, 5, th.Accent)
		y, h = y+n, h-n
	}
	if len(ls.reps) == 0 || h <= 0 {
		return
	}
	each := h / len(ls.reps)
	paneW := w
	if w >= 80 {
		paneW = w - laneStatsW
	}
	for i, lv := range ls.views(widgets.TimelineCols(paneW), each-1) {
		title := []widgets.Seg{widgets.S(ls.recs[i].model, th.Title)}
		if ls.recs[i].cut {
			title = append(title, widgets.S(" · recording cut at "+model.Count(compareRecordCap)+" events", th.Warn))
		}
		pane := widgets.NewTimeline(th)
		pane.Set(title, lv.lanes)
		pane.SetRect(x, y+i*each, paneW, each)
		pane.Draw(scr)
		if paneW < w {
			ls.drawStats(scr, th, x+paneW, y+i*each, w-paneW, lv)
		}
	}
}

// laneView is one model's lanes at the shared clock, with the figures
// the learner reads beside them.
type laneView struct {
	lanes  []widgets.TimelineLane
	busy   []float64    // each lane's share of the window in I/O and tasks
	queue  []int64      // each lane's task queue at the window's end
	ring   []model.Ring // each io_uring lane's queues at its latest enter
	waits  []int        // each lane's blocking selects begun in the window
	client sim.Window
	hasWin bool
	// pastWindows: t is after the run's last full window (the stretch
	// between its last periodic sample and its end is no window).
	pastWindows bool
	worst       *sim.WorstWindow // the run's worst window, when it has one
}

// views builds every model's lanes for a window of span ending at ls.t,
// each replay seeked there.
func (ls *lockstep) views(cols, n int) []laneView {
	out := make([]laneView, len(ls.reps))
	for i, r := range ls.reps {
		rec := &ls.recs[i]
		end := rec.start + max(ls.t, 1)
		q := model.Query{Focus: -1, Timeline: model.TimelineQuery{Cols: cols, Span: ls.tl.span(), End: end}}
		f := &model.Frame{Snapshot: r.Snapshot(q)}
		lv := laneView{lanes: serverLanes(f, n)}
		waits := selectsIn(rec.events, end-ls.tl.span(), end)
		for _, l := range lv.lanes {
			lv.waits = append(lv.waits, waits[l.Index])
			lv.busy = append(lv.busy, busyShare(l.Lane, ls.tl.span()))
			loop, _ := loopAt(f.Snapshot, l.Index)
			lv.queue, lv.ring = append(lv.queue, loop.QueueDepth), append(lv.ring, loop.Ring)
		}
		lv.client, lv.hasWin = windowAt(rec.windows, ls.t)
		lv.pastWindows = len(rec.windows) > 0 && ls.t >= int64(len(rec.windows))*int64(sim.WindowEvery)
		lv.worst = rec.worst
		out[i] = lv
	}
	return out
}

// drawStats writes a model's figures beside its pane: the clients' p50
// and p99 at that moment on the title row, each lane's busy share and
// queue on its row.
func (ls *lockstep) drawStats(scr tcell.Screen, th *widgets.Theme, x, y, w int, lv laneView) {
	widgets.Put(scr, x+1, y, w-1, ls.statsHead(lv, w-1), th.Bold)
	for j := range lv.lanes {
		st := th.Base
		if lv.busy[j] >= 0.9 {
			st = th.Warn
		}
		text := fmt.Sprintf("busy %3.0f%% q %s sel %s", 100*lv.busy[j], model.Count(lv.queue[j]), model.Count(int64(lv.waits[j])))
		if r := lv.ring[j]; r.Enters > 0 {
			// The ring's queues at its latest enter: what it submitted,
			// what completions it found, and what is still in flight.
			text = fmt.Sprintf("busy %3.0f%% sq %d cq %d fly %d", 100*lv.busy[j], r.SQ, r.CQ, r.InFlight)
		}
		widgets.Put(scr, x+1, y+1+j, w-1, text, st)
	}
}

// putWrapped writes text wrapped to the width from x+1, at most rows
// lines, and returns how many it wrote.
func putWrapped(scr tcell.Screen, x, y, w int, text string, rows int, st tcell.Style) int {
	lines := widgets.Wrap(text, max(w-2, 10))
	lines = lines[:min(len(lines), rows)]
	for i, l := range lines {
		widgets.Put(scr, x+1, y+i, w-1, l, st)
	}
	return len(lines)
}

// statsHead is a model's clients at the shared clock and its worst window,
// in the longest form that fits w cells: a cut figure would read as
// another figure.
func (ls *lockstep) statsHead(lv laneView, w int) string {
	now := "clients: no answers then"
	if lv.hasWin {
		now = "p50 " + usText(lv.client.P50US) + "  p99 " + usText(lv.client.P99US)
	} else if lv.pastWindows {
		// The run's last full window ended before t: its clients were
		// answered, but no whole window holds t.
		now = "clients: past its last window"
	}
	if lv.worst == nil {
		return now
	}
	// The run's worst window, so a calm moment is not read as the run's
	// whole story; "◀" while the shared clock is in it.
	worst := "worst " + usText(lv.worst.P99US)
	when := " @" + model.Duration(lv.worst.AtNS)
	if in := ls.t - lv.worst.AtNS; in >= 0 && in < int64(sim.WindowEvery) {
		when = " ◀"
	}
	for _, head := range []string{now + "  " + worst + when, now + " " + worst + when, now + " " + worst} {
		if widgets.Width(head) <= w {
			return head
		}
	}
	return now
}

// selectsIn counts each loop's blocking selects begun in (from, to]: an
// idle loop's wakes, which its lane of · does not show (4.1.43 wakes every
// second, 4.1 blocks until woken).
func selectsIn(evs []trace.Event, from, to int64) map[int]int {
	out := map[int]int{}
	lo := sort.Search(len(evs), func(i int) bool { return evs[i].Time > from })
	for i := lo; i < len(evs) && evs[i].Time <= to; i++ {
		if e := &evs[i]; e.Kind == trace.KindSelectBegin && e.Str != "select_now" {
			out[int(e.Loop)]++
		}
	}
	return out
}

// busyShare is the share of the window a lane spent in I/O and tasks.
func busyShare(l model.Lane, span int64) float64 {
	if span <= 0 {
		return 0
	}
	var busy int64
	for _, c := range l.Cells {
		busy += c.IO + c.Tasks
	}
	return min(float64(busy)/float64(span), 1)
}

// windowAt is what the clients saw in the window holding t.
func windowAt(ws []sim.Window, t int64) (sim.Window, bool) {
	k := int(t / int64(sim.WindowEvery))
	if k < 0 || k >= len(ws) {
		return sim.Window{}, false
	}
	return ws[k], ws[k].RPS > 0
}

// serverLanes are a model's lanes without the client group: the load
// generator is not the server under comparison.
func serverLanes(f *model.Frame, n int) []widgets.TimelineLane {
	var out []widgets.TimelineLane
	for _, l := range timelineLanes(f, -1, len(f.Loops)) {
		if len(out) == n {
			break
		}
		if loop, ok := loopAt(f.Snapshot, l.Index); ok && loop.Group == "client" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// toggleLockstep opens the lockstep replay once every model has run, or
// goes back to the columns.
func (v *compareView) toggleLockstep() {
	if v.lock != nil {
		v.lock = nil
		return
	}
	if !v.doneView {
		v.sh.say("the lockstep replay opens once every model has run")
		return
	}
	var recs []recording
	for _, c := range v.view {
		if len(c.rec.events) > 0 {
			recs = append(recs, c.rec)
		}
	}
	if len(recs) == 0 {
		v.sh.say("no recording to replay")
		return
	}
	v.lock = newLockstep(recs)
	v.lock.openAtDifference()
}
