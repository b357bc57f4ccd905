package tui

import (
	"strconv"
	"strings"

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
	layoutLesson                 // caption, the focused row, concept counters, log (lesson.go)
	numLayouts
)

// timelineView is a screen's timeline settings: the zoom, how far back
// from the latest event the window ends, and the layout.
type timelineView struct {
	zoom   int
	back   int64
	layout layout
	// auto: no layout was picked with t yet, so the terminal's size picks
	// it: the lesson layout when small (lessonSmall), else layout. small
	// is what the last draw found.
	auto, small bool
	cols        int   // cells per lane at the last draw, for the next query
	pin         int64 // live: the window ends here, not now (a breakpoint); 0 none
	// The cursor: a column of the window, when on. Its slice is listed by
	// the inspect panel; zooming keeps it where it is.
	cursorOn bool
	cursor   int
	// Where the last query's window ended (trace time; 0: at the latest
	// event), its columns and span, and the trace time of the run clock's
	// zero, for the ruler and the cursor's slice.
	end, origin int64
	qcols       int
	qspan       int64
}

func newTimelineView() timelineView {
	return timelineView{zoom: defaultZoom, cols: widgets.TimelineCols(80), auto: true}
}

// current is the layout in force: the one picked with t, or while none
// was, the one the terminal's size calls for.
func (t *timelineView) current() layout {
	if t.auto && t.small {
		return layoutLesson
	}
	return t.layout
}

func (t *timelineView) span() int64 { return zoomSteps[t.zoom] }

// query is the timeline part of a snapshot query.
func (t *timelineView) query() model.TimelineQuery {
	if t.current() == layoutClassic {
		return model.TimelineQuery{Split: true}
	}
	t.qcols, t.qspan = t.cols, t.span()
	return model.TimelineQuery{Cols: t.cols, Span: t.span(), Back: t.back, Split: true}
}

// act applies a timeline key and reports whether a was one. Scrolling
// moves a quarter of the window; zooming keeps the cursor's time under it,
// or the window's end without a cursor.
func (t *timelineView) act(a action) bool {
	switch a {
	case actZoomIn:
		t.zoomTo(max(t.zoom-1, 0))
	case actZoomOut:
		t.zoomTo(min(t.zoom+1, len(zoomSteps)-1))
	case actCursor:
		t.cursorOn = !t.cursorOn
		t.cursor = max(t.cols-1, 0)
	case actCursorBack, actCursorFwd:
		t.moveCursor(a == actCursorFwd)
	case actScrollBack:
		t.back += t.span() / 4
	case actScrollFwd:
		if t.back == 0 {
			t.pin = 0 // forward from a held window: back to now
		}
		t.back = max(t.back-t.span()/4, 0)
	case actLayout:
		// From the layout on screen, whichever picked it; the choice then
		// stays over resizes.
		t.layout, t.auto = (t.current()+1)%numLayouts, false
	default:
		return false
	}
	return true
}

// zoomTo changes the zoom; with the cursor on, the window moves so that
// the cursor's time stays in its column.
func (t *timelineView) zoomTo(z int) {
	if !t.cursorOn || t.cols <= 0 {
		t.zoom = z
		return
	}
	// rel is how long before the window's end the cursor's column centre
	// lies, at a span.
	rel := func(span int64) int64 { return span - (2*int64(t.cursor)+1)*span/(2*int64(t.cols)) }
	before := rel(t.span())
	t.zoom = z
	back := t.back + before - rel(t.span())
	if back < 0 { // near now: the window cannot end in the future
		t.cursor = min(max(int((t.span()-before)*int64(t.cols)/t.span()), 0), t.cols-1)
		back = 0
	}
	t.back = back
}

// moveCursor moves the cursor a column; past an edge the window scrolls
// by one column instead.
func (t *timelineView) moveCursor(fwd bool) {
	if !t.cursorOn {
		t.cursorOn, t.cursor = true, max(t.cols-1, 0)
		return
	}
	w := t.span() / int64(max(t.cols, 1))
	switch {
	case fwd && t.cursor < t.cols-1:
		t.cursor++
	case fwd:
		t.back = max(t.back-w, 0)
	case t.cursor > 0:
		t.cursor--
	default:
		t.back += w
	}
}

// grid is the last query's window: its start, span and columns; false
// when unknown.
func (t *timelineView) grid(snapTime int64) (start, span int64, cols int, ok bool) {
	end := t.windowEnd(snapTime)
	if t.qcols <= 0 || t.qspan <= 0 || end <= 0 {
		return 0, 0, 0, false
	}
	span = t.qspan
	if t.end > 0 {
		span = span / int64(t.qcols) * int64(t.qcols) // the aligned query's
	}
	return end - span, span, t.qcols, true
}

// cursorSlice is the stretch of trace time under the cursor, for the
// inspect panel; false when the cursor is off or the window unknown.
func (t *timelineView) cursorSlice(snapTime int64) (from, to int64, ok bool) {
	start, span, cols, ok := t.grid(snapTime)
	if !t.cursorOn || !ok || t.cursor >= cols {
		return 0, 0, false
	}
	n := int64(cols)
	return start + span*int64(t.cursor)/n, start + span*int64(t.cursor+1)/n, true
}

// windowEnd is where the last window ended, in trace time.
func (t *timelineView) windowEnd(snapTime int64) int64 {
	if t.end > 0 {
		return t.end - t.back
	}
	return snapTime - t.back
}

// ruler is the time ruler under the lanes: a tick and the run clock's
// time every few columns, at round times, right-aligned as the lanes are.
func (t *timelineView) ruler(snapTime int64) string {
	start, span, cols, ok := t.grid(snapTime)
	if !ok {
		return ""
	}
	n := int64(cols)
	step := rulerStep(span * 12 / n) // room for a label
	line := []rune(strings.Repeat(" ", cols))
	for c := 0; c < cols; c++ {
		from, to := start+span*int64(c)/n-t.origin, start+span*int64(c+1)/n-t.origin
		tick := (from + step - 1) / step * step
		if from < 0 || tick >= to || line[c] != ' ' {
			continue
		}
		label := []rune("╵" + rulerLabel(tick, step))
		if c+len(label) > cols {
			break
		}
		copy(line[c:], label)
	}
	return strings.Repeat(" ", max(t.cols-cols, 0)) + string(line)
}

// rulerStep is the least 1-2-5 step of at least d ns.
func rulerStep(d int64) int64 {
	for s := int64(1000); ; s *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if s*m >= d {
				return s * m
			}
		}
	}
}

// rulerLabel is a run clock time in seconds with as many decimals as the
// step needs.
func rulerLabel(t, step int64) string {
	dec := 0
	for s := int64(1e9); s > step && dec < 6; s /= 10 {
		dec++
	}
	return strconv.FormatFloat(float64(t)/1e9, 'f', dec, 64) + "s"
}

// title is the timeline's rule: the window, how far back it ends, and as
// much of the legend as the width allows.
func (t *timelineView) title(th *widgets.Theme, w int) []widgets.Seg {
	segs := []widgets.Seg{
		widgets.S("timeline", th.Title),
		widgets.S(" · "+model.Duration(t.span())+" window", th.Base),
	}
	switch {
	case t.pin > 0:
		held := " · held at the breakpoint (l: now)"
		if widgets.SegsWidth(segs)+widgets.Width(held)+4 > w {
			held = " · held (l: now)" // beside the lesson layout's rows
		}
		segs = append(segs, widgets.S(held, th.Warn))
	case t.back > 0:
		segs = append(segs, widgets.S(" · ends "+model.Duration(t.back)+" ago", th.Warn))
	default:
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
			r, _ := f.Row(l.Index)
			out = append(out, widgets.TimelineLane{Index: l.Index, Name: l.Name, Focus: l.Index == focus, Watched: r.Watched, Lane: l.Lane})
		}
	}
	return out
}

// timelineEnd is where a live timeline's window ends: now on the run
// clock, which stands still while the whole run is paused, so the picture
// does too; a finished run's at its latest event, so it stays on screen
// to be scrolled back through; held where a breakpoint stopped a loop,
// while it stays stopped (or the run ended with it stopped), so its mark
// stays on screen as the others run.
func (v *liveView) timelineEnd(run Session) int64 {
	if run == nil {
		return 0
	}
	now := run.TraceNow()
	if pin := v.body.tl.pin; pin > 0 && pin < now {
		return pin
	}
	select {
	case <-run.Done():
		return 0
	default:
	}
	return now
}
