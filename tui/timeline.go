package tui

import (
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// zoomSteps are the timeline's windows, from about 100 µs to 10 s per
// screen: 1-2-5 steps, as on an oscilloscope.
var zoomSteps = []int64{
	100e3, 200e3, 500e3,
	1e6, 2e6, 5e6, 10e6, 20e6, 50e6, 100e6, 200e6, 500e6,
	1e9, 2e9, 5e9, 10e9,
}

// defaultZoom is 1 s per screen: a few iterations of an idle loop, the
// texture of a busy one.
const defaultZoom = 12

// layout says which panes share the body under the loop tables.
type layout uint8

const (
	layoutTimeline layout = iota // timeline, detail pane and log
	layoutLanes                  // timeline with every lane, and the log
	layoutClassic                // detail pane and log, no timeline
	numLayouts
)

// timelineView is a screen's timeline settings: the zoom, how far back
// from the latest event the window ends, and the layout.
type timelineView struct {
	zoom   int
	back   int64
	layout layout
	cols   int // cells per lane at the last draw, for the next query
}

func newTimelineView() timelineView {
	return timelineView{zoom: defaultZoom, cols: widgets.TimelineCols(80)}
}

func (t *timelineView) span() int64 { return zoomSteps[t.zoom] }

// query is the timeline part of a snapshot query.
func (t *timelineView) query() model.TimelineQuery {
	if t.layout == layoutClassic {
		return model.TimelineQuery{Split: true}
	}
	return model.TimelineQuery{Cols: t.cols, Span: t.span(), Back: t.back, Split: true}
}

// act applies a timeline key and reports whether a was one. Scrolling
// moves a quarter of the window; zooming keeps the window's end.
func (t *timelineView) act(a action) bool {
	switch a {
	case actZoomIn:
		t.zoom = max(t.zoom-1, 0)
	case actZoomOut:
		t.zoom = min(t.zoom+1, len(zoomSteps)-1)
	case actScrollBack:
		t.back += t.span() / 4
	case actScrollFwd:
		t.back = max(t.back-t.span()/4, 0)
	case actLayout:
		t.layout = (t.layout + 1) % numLayouts
	default:
		return false
	}
	return true
}

// title is the timeline's rule: the window, how far back it ends, and as
// much of the legend as the width allows.
func (t *timelineView) title(th *widgets.Theme, w int) []widgets.Seg {
	segs := []widgets.Seg{
		widgets.S("timeline", th.Title),
		widgets.S(" · "+model.Duration(t.span())+" window", th.Base),
	}
	if t.back > 0 {
		segs = append(segs, widgets.S(" · ends "+model.Duration(t.back)+" ago", th.Warn))
	} else {
		segs = append(segs, widgets.S(" · now", th.Base))
	}
	if legend := " · " + widgets.TimelineKey(); widgets.SegsWidth(segs)+widgets.Width(legend)+4 <= w {
		segs = append(segs, widgets.S(legend, th.Dim))
	}
	return segs
}

// timelineLanes picks the lanes a pane of n rows shows, in table order:
// all of them when they fit, else the focused loop and its group first,
// then the other groups.
func timelineLanes(f *model.Frame, focus, n int) []widgets.TimelineLane {
	if n <= 0 || f == nil {
		return nil
	}
	var order []int // indexes into f.Loops, in table order
	focusGroup := ""
	for _, g := range f.Groups {
		for _, li := range g.Loops {
			order = append(order, li)
			if f.Loops[li].Index == focus {
				focusGroup = g.Name
			}
		}
	}
	keep := make(map[int]bool, n)
	pick := func(ok func(l *model.Loop) bool) {
		for _, li := range order {
			if len(keep) < n && ok(&f.Loops[li]) {
				keep[li] = true
			}
		}
	}
	pick(func(l *model.Loop) bool { return l.Index == focus })
	pick(func(l *model.Loop) bool { return l.Group == focusGroup })
	pick(func(*model.Loop) bool { return true })
	out := make([]widgets.TimelineLane, 0, len(keep))
	for _, li := range order {
		if keep[li] {
			l := &f.Loops[li]
			out = append(out, widgets.TimelineLane{Index: l.Index, Name: l.Name, Focus: l.Index == focus, Lane: l.Lane})
		}
	}
	return out
}

// traceNow reads the clock the run's events are stamped with; ok is false
// when the session has none (a test's fake).
func traceNow(s Session) (int64, bool) {
	cs, ok := s.(collectorSession)
	if !ok || cs.Collector() == nil {
		return 0, false
	}
	return cs.Collector().Clock().Now(), true
}

// timelineEnd is where a live timeline's window ends: now on the trace's
// clock while anything runs; while every loop is paused, at the latest
// event, so the window stands still to be scrolled back through.
func (v *liveView) timelineEnd(run Session) int64 {
	now, ok := traceNow(run)
	if !ok {
		return 0
	}
	f := v.frame
	allPaused, started := true, 0
	if f != nil {
		for _, r := range f.Rows {
			if r.State == trace.StateStarted {
				started++
				allPaused = allPaused && r.Pause == model.PausePaused
			}
		}
	}
	allPaused = allPaused && started > 0
	if !allPaused {
		return now
	}
	return 0 // the latest event: parked loops emit none, so it stands still
}

// loopTimer is what a session may offer to say where each loop's time
// went: *sim.Run samples the loops' clocks and its clients' latency.
type loopTimer interface {
	LoopTime(i int) *sim.LoopTime
}

// splitOf reads loop i's last second from a run that measures it.
func splitOf(run Session, i int) model.TimeSplit {
	lt, ok := run.(loopTimer)
	if !ok {
		return model.TimeSplit{}
	}
	t := lt.LoopTime(i)
	if t == nil {
		return model.TimeSplit{}
	}
	s := t.LastSecond
	out := model.TimeSplit{Known: s.Select+s.IO+s.Tasks > 0, Select: s.Select, IO: s.IO, Tasks: s.Tasks}
	if c := t.ClientsLastSecond; c != nil && c.Requests > 0 {
		out.Latency, out.P50US, out.P99US = true, c.LatencyUS.P50, c.LatencyUS.P99
	}
	return out
}
