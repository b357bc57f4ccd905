package tui

import (
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// compareRecordCap bounds the events kept per model for the lockstep
// replay; a longer run keeps its first events and says it was cut.
const compareRecordCap = 1 << 18

// recorder keeps a model's events for the lockstep replay. It runs on the
// collector's goroutine, after the fold, never on a loop's.
type recorder struct {
	mu     sync.Mutex
	events []trace.Event
	cut    bool
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

func (r *recorder) take() ([]trace.Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events, r.cut
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

// recording is one model's run, kept for the lockstep replay.
type recording struct {
	model  string
	loops  []trace.LoopInfo
	events []trace.Event
	cut    bool
}

// lockstep replays the models' recordings on one clock: each run's time
// since its own start, so the learner watches single fall behind where
// multi keeps up. Stepping, playing and zooming move every timeline.
type lockstep struct {
	names []string
	reps  []*model.Replay
	cut   []bool
	t     int64 // the shared clock, ns since each run's start
	end   int64 // the longest recording's end
	tl    timelineView

	playing  bool
	playWall time.Time
	playFrom int64
}

func newLockstep(recs []recording) *lockstep {
	ls := &lockstep{tl: newTimelineView()}
	for _, r := range recs {
		rep := model.NewReplay(r.loops, r.events, 0)
		ls.names = append(ls.names, r.model)
		ls.reps = append(ls.reps, rep)
		ls.cut = append(ls.cut, r.cut)
		ls.end = max(ls.end, rep.EndTime())
	}
	ls.t = min(ls.tl.span(), ls.end)
	return ls
}

// seekAll moves every replay to the shared clock.
func (ls *lockstep) seekAll() {
	ls.t = min(max(ls.t, 0), ls.end)
	for _, r := range ls.reps {
		r.Seek(r.PosAtTime(ls.t))
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
		ls.playing = false
		ls.t += step
	case actBack:
		ls.playing = false
		ls.t -= step
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

// draw stacks the models' timelines under a status line.
func (ls *lockstep) draw(scr tcell.Screen, th *widgets.Theme, x, y, w, h int) {
	state := "■ stopped"
	if ls.playing {
		state = "▶ playing"
	}
	status := "lockstep replay · t " + model.Duration(ls.t) + " of " + model.Duration(ls.end) + " · " +
		model.Duration(ls.tl.span()) + " window · " + state
	widgets.Put(scr, x+1, y, w-1, status, th.Bold)
	y, h = y+1, h-1
	if len(ls.reps) == 0 || h <= 0 {
		return
	}
	each := h / len(ls.reps)
	cols := widgets.TimelineCols(w)
	for i, r := range ls.reps {
		q := model.Query{Focus: -1, Timeline: model.TimelineQuery{Cols: cols, Span: ls.tl.span(), End: max(ls.t, 1)}}
		f := &model.Frame{Snapshot: r.Snapshot(q)}
		title := []widgets.Seg{widgets.S(ls.names[i], th.Title)}
		if ls.cut[i] {
			title = append(title, widgets.S(" · recording cut at "+model.Count(compareRecordCap)+" events", th.Warn))
		}
		pane := widgets.NewTimeline(th)
		pane.Set(title, serverLanes(f, each-1))
		pane.SetRect(x, y+i*each, w, each)
		pane.Draw(scr)
	}
}

// serverLanes are a model's lanes without the client group: the load
// generator is not the server under comparison.
func serverLanes(f *model.Frame, n int) []widgets.TimelineLane {
	var out []widgets.TimelineLane
	for _, l := range timelineLanes(f, -1, len(f.Loops)) {
		if len(out) == n {
			break
		}
		if g, ok := groupOf(f, l.Index); ok && g == "client" {
			continue
		}
		out = append(out, l)
	}
	return out
}

func groupOf(f *model.Frame, index int) (string, bool) {
	for _, l := range f.Loops {
		if l.Index == index {
			return l.Group, true
		}
	}
	return "", false
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
	v.lock.seekAll()
}
