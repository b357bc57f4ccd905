package tui

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/sim"
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

// column is one model of the comparison. The driver goroutine writes it
// under compareView.mu; the UI reads a copy.
type column struct {
	model   string
	state   colState
	err     error
	run     Session
	mdl     *model.Model
	elapsed time.Duration
	total   time.Duration
	clients sim.ClientStats
	stats   colStats
	summary *sim.Summary
	rec     recording // its events, for the lockstep replay
}

// colStats are the loop numbers a column shows, from the model's snapshot.
type colStats struct {
	loops, started   int
	groups           []groupStats
	queueNow, maxQ   int64
	queueHist        []int64
	wakeups, rebuilt int64
	busy             int64 // ns in io and tasks, all loops
	perLoop          []loopStats
}

type loopStats struct {
	name    string
	busy    int64
	started bool
}

type groupStats struct {
	name           string
	loops, started int
	busy           int64
}

// RunCompare runs the same workload under each model, one after another so
// the runs do not compete for the CPU, and shows them side by side: the
// running one live, the finished ones frozen, and a final table. It
// returns when the user quits; quitting stops the running model gracefully.
func RunCompare(models []string, newRun NewModelRun, o Options) error {
	return runCompare(models, newRun, nil, o)
}

// runCompare is RunCompare with a judge: given the finished models'
// summaries, it returns the verdict line (sim.Judge's); nil for none.
func runCompare(models []string, newRun NewModelRun, judge func([]*sim.Summary) string, o Options) error {
	if newRun == nil {
		return errors.New("tui: no run")
	}
	if len(models) == 0 {
		models = sim.Models
	}
	sh := newShell(o)
	v := &compareView{sh: sh, newRun: newRun, skip: make(chan struct{}, 1), quit: make(chan struct{}),
		header: widgets.NewBar(sh.th, sh.th.Header), judge: judge}
	for _, m := range models {
		v.cols = append(v.cols, column{model: m})
	}
	v.driver.Add(1)
	go v.drive(o.stopTimeout())
	err := sh.run(v)
	v.stopOnce.Do(func() { close(v.quit) })
	v.driver.Wait()
	return err
}

type compareView struct {
	sh       *shell
	newRun   NewModelRun
	skip     chan struct{}
	quit     chan struct{}
	stopOnce sync.Once
	quitting atomic.Bool
	driver   sync.WaitGroup
	lastDraw atomic.Int64

	mu   sync.Mutex
	cols []column
	done bool
	// judge computes the verdict once every model has run; verdict holds
	// it (under mu).
	judge   func([]*sim.Summary) string
	verdict string

	// UI goroutine.
	view        []column
	verdictView string
	header      *widgets.Bar
	lock        *lockstep // the lockstep replay, while it is shown
	doneView    bool
}

func (v *compareView) kind() screenKind { return onCompare }
func (v *compareView) title() string    { return "compare" }

// drive runs the models in turn on its own goroutine.
func (v *compareView) drive(timeout time.Duration) {
	defer v.driver.Done()
	for i := range v.cols {
		select {
		case <-v.quit:
			return
		default:
		}
		v.runOne(i, timeout)
		v.sh.redraw()
	}
	v.mu.Lock()
	v.done = true
	v.verdict = v.judgeLocked()
	v.mu.Unlock()
	v.sh.redraw()
}

func (v *compareView) runOne(i int, timeout time.Duration) {
	v.mu.Lock()
	name := v.cols[i].model
	v.mu.Unlock()
	mdl := model.New(nil)
	rec := &recorder{}
	run, err := startRun(func(trace.Sink) (Session, error) { return v.newRun(name, tee{mdl: mdl, rec: rec}) }, mdl)
	v.mu.Lock()
	if err != nil {
		v.cols[i].state, v.cols[i].err = colFailed, err
		v.mu.Unlock()
		return
	}
	v.cols[i].state, v.cols[i].run, v.cols[i].mdl, v.cols[i].total = colRunning, run, mdl, run.Duration()
	v.mu.Unlock()
	v.sh.redraw()

	state := colSkipped
	select {
	case <-run.Done():
		state = colFinished
	case <-v.skip:
	case <-v.quit:
	}
	if state == colSkipped {
		stopSession(run, timeout)
	}
	// A skip pressed while this run was ending (or again while it shut
	// down) meant this model; left in the channel it would skip the next.
	select {
	case <-v.skip:
	default:
	}
	// Freeze the column with the run's last numbers.
	c := sampleColumn(run, mdl)
	v.mu.Lock()
	col := &v.cols[i]
	col.elapsed, col.clients, col.stats = c.elapsed, c.clients, c.stats
	col.summary = run.Summary()
	col.state, col.run = state, nil
	col.rec = recording{model: name, loops: loopTable(run)}
	col.rec.events, col.rec.cut = rec.take()
	v.mu.Unlock()
}

// sampleColumn reads a run's live numbers and folds its model's snapshot.
func sampleColumn(run Session, mdl *model.Model) column {
	c := column{elapsed: run.Elapsed(), clients: run.Clients()}
	f := model.NewFrame(mdl.Snapshot(model.Query{Focus: -1}), probeOf(run), model.Settings{IORatio: -1})
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
			st.groups = append(st.groups, groupStats{name: l.Group})
		}
		g := &st.groups[gi]
		g.loops++
		if l.TID != 0 {
			st.started++
			g.started++
		}
		busy := l.IONanos + l.TaskNanos
		g.busy += busy
		st.busy += busy
		st.perLoop = append(st.perLoop, loopStats{name: l.Name, busy: busy, started: l.TID != 0})
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
	v.mu.Lock()
	running := false
	for _, c := range v.cols {
		running = running || c.state == colRunning
	}
	v.mu.Unlock()
	if v.lock != nil && v.lock.playing {
		return true
	}
	return running && time.Now().UnixNano()-v.lastDraw.Load() >= int64(250*time.Millisecond)
}

func (v *compareView) refresh() {
	v.lastDraw.Store(time.Now().UnixNano())
	v.mu.Lock()
	v.view = append(v.view[:0], v.cols...)
	done := v.done
	v.doneView = done
	v.verdictView = v.verdict
	v.mu.Unlock()
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
	status := "all models done"
	switch {
	case running != "":
		status = "running " + running
	case !done:
		status = "starting…"
	}
	left := []widgets.Seg{widgets.S(" reactorviz ", hs.Bold(true)), widgets.S("COMPARE ", hs.Bold(true)),
		widgets.S("· one model after another · "+status, hs)}
	v.header.Set(left, nil)
}

func (v *compareView) act(a action) {
	if a == actLockstep {
		v.toggleLockstep()
		return
	}
	if v.lock != nil && v.lock.act(a) {
		return
	}
	switch a {
	case actSkip:
		select {
		case v.skip <- struct{}{}:
		default:
		}
	case actQuit:
		if v.quitting.CompareAndSwap(false, true) {
			v.sh.say("stopping… (graceful shutdown)")
			go func() {
				v.stopOnce.Do(func() { close(v.quit) })
				v.driver.Wait()
				v.sh.stop()
			}()
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
	tableH := min(len(v.view)+3, h/2)
	if v.judge != nil {
		tableH = min(len(v.view)+4, h/2) // a second row for a long verdict
	}
	colsH := h - 1 - tableH
	colW := (w - (n - 1)) / n
	for i := range v.view {
		cx := x + i*(colW+1)
		v.drawColumn(scr, cx, y+1, colW, colsH, &v.view[i])
		if i > 0 {
			for j := range colsH {
				scr.SetContent(cx-1, y+1+j, '│', nil, th.Rule)
			}
		}
	}
	v.drawTable(scr, x, y+1+colsH, w, tableH)
}

func (v *compareView) drawColumn(scr tcell.Screen, x, y, w, h int, c *column) {
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
	widgets.Rule(scr, x, y, w, []widgets.Seg{widgets.S(c.model, th.Title)}, th)
	lines := [][]widgets.Seg{{widgets.S(state, st)}}
	kv := func(label, value string) []widgets.Seg {
		return []widgets.Seg{widgets.S(widgets.Pad(label, 10), th.Dim), widgets.S(value, th.Bold)}
	}
	if c.state != colWaiting && c.state != colFailed {
		cs := c.clients
		s := c.stats
		lines = append(lines,
			kv("req/s", model.Count(int64(cs.ThroughputRPS))),
			kv("p50", usText(cs.P50us)),
			kv("p99", usText(cs.P99us)),
			kv("requests", model.Count(cs.Requests)+"  err "+model.Count(cs.Errors)),
			kv("loops", strconv.Itoa(s.started)+"/"+strconv.Itoa(s.loops)+" started"),
		)
		for _, g := range s.groups {
			u := util(g.busy, g.loops, c.elapsed)
			bw := max(w-10-6, 4)
			lines = append(lines, []widgets.Seg{
				widgets.S(widgets.Pad(g.name, 10), th.Dim),
				widgets.S(bar(u, bw), th.Accent),
				widgets.S(" "+strconv.Itoa(int(u*100+0.5))+"%", th.Base),
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
		if len(lines)+1 < h-1 {
			lines = append(lines, []widgets.Seg{widgets.S("per loop", th.Dim)})
		}
		for _, l := range s.perLoop {
			bw := max(w-12-6, 4)
			u := util(l.busy, 1, c.elapsed)
			name := widgets.Pad(" "+l.name, 12)
			st := th.Accent
			if !l.started {
				st = th.Dim
			}
			lines = append(lines, []widgets.Seg{widgets.S(name, th.Dim), widgets.S(bar(u, bw), st),
				widgets.S(" "+strconv.Itoa(int(u*100+0.5))+"%", th.Base)})
		}
	}
	for i, l := range lines {
		if 1+i >= h {
			break
		}
		widgets.PutSegs(scr, x+1, y+1+i, w-1, l)
	}
}

// util is the share of the run the loops spent in io and tasks.
func util(busy int64, loops int, elapsed time.Duration) float64 {
	if loops == 0 || elapsed <= 0 {
		return 0
	}
	return min(float64(busy)/(float64(elapsed)*float64(loops)), 1)
}

func bar(frac float64, w int) string {
	full := int(frac*float64(w) + 0.5)
	out := make([]rune, w)
	for i := range out {
		out[i] = '░'
		if i < full {
			out[i] = '█'
		}
	}
	return string(out)
}

func usText(us float64) string {
	if us <= 0 {
		return "-"
	}
	return model.Duration(int64(us * 1000))
}

// drawTable is the final table: one row per model, frozen numbers for the
// finished ones.
func (v *compareView) drawTable(scr tcell.Screen, x, y, w, h int) {
	th := v.sh.th
	if h <= 0 {
		return
	}
	widgets.Rule(scr, x, y, w, []widgets.Seg{widgets.S("results", th.Title),
		widgets.S(" · same workload, models run one after another", th.Base)}, th)
	cols := []struct {
		name string
		w    int
	}{{"model", 12}, {"req/s", 7}, {"p50", 7}, {"p99", 7}, {"errors", 6}, {"loops", 6}, {"util", 5}, {"max q", 6}, {"expect", 6}}
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
		expect := "-"
		if c.summary != nil && len(c.summary.Expect) > 0 {
			expect = fmt.Sprintf("%d/%d", len(c.summary.Expect)-c.summary.Failed(), len(c.summary.Expect))
		}
		st := th.Base
		if c.state == colRunning {
			st = th.Good
		}
		s := c.stats
		row(y+2+i, []string{
			c.model, model.Count(int64(c.clients.ThroughputRPS)), usText(c.clients.P50us), usText(c.clients.P99us),
			model.Count(c.clients.Errors), strconv.Itoa(s.started) + "/" + strconv.Itoa(s.loops),
			strconv.Itoa(int(util(s.busy, s.loops, c.elapsed)*100+0.5)) + "%", model.Count(s.maxQ), expect,
		}, st)
	}
	v.drawVerdict(scr, x, y+2+len(v.view), w, y+h)
}
