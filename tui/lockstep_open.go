package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tui/model"
)

// openCols is the lane width the opening scores at; the drawing's may
// differ, the shape of the difference does not.
const openCols = 80

// openAtDifference moves the lockstep replay to the zoom and the moment
// where the recordings differ most (compare.WhereRunsDiffer), and
// captions what to look at there.
func (ls *lockstep) openAtDifference() {
	if len(ls.reps) < 2 || ls.end <= 0 {
		ls.seekAll()
		return
	}
	last := ls.loadEnd()
	var spans []int64
	for _, span := range compare.OpenSpans {
		if slices.Contains(zoomSteps, span) && span <= last {
			spans = append(spans, span)
		}
	}
	if len(spans) == 0 {
		ls.seekAll()
		return
	}
	span, t, ok := compare.WhereRunsDiffer(spans, last, ls.lookAt)
	if !ok {
		// The lanes look alike at every zoom: open on the middle of the
		// load at the default window, and say where the difference is.
		ls.tl.zoom, ls.t = defaultZoom, min(last/2+zoomSteps[defaultZoom]/2, last)
		ls.seekAll()
		ls.caption = ringNote(ls.views(openCols, 16)) + "The runs' lanes look alike at every zoom from 20ms to 1s: their loops were as busy, moment by moment (on a loaded machine, every loop waits for a CPU alike). What tells the runs apart, if anything, is in the verdict and the counters (p: back to them). space plays, ←/→ step, z/Z zoom."
		return
	}
	ls.tl.zoom = slices.Index(zoomSteps, span)
	ls.t = t
	ls.seekAll()
	ls.caption = ls.captionAt(ls.views(openCols, 16))
}

// loadEnd is where every run still had its load (compare.LoadEnd).
func (ls *lockstep) loadEnd() int64 {
	ends := []int64{ls.end}
	var windows [][]sim.Window
	for i, r := range ls.reps {
		ends = append(ends, r.EndTime()-ls.recs[i].start)
		windows = append(windows, ls.recs[i].windows)
	}
	return compare.LoadEnd(ends, windows)
}

// lookAt is every run's lanes in the window of span ending at t, as the
// lockstep draws them.
func (ls *lockstep) lookAt(span, t int64) [][]compare.Lane {
	ls.tl.zoom = slices.Index(zoomSteps, span)
	ls.t = t
	ls.seekAll()
	var out [][]compare.Lane
	for _, lv := range ls.views(openCols, 16) {
		out = append(out, lanesOf(lv))
	}
	return out
}

// lanesOf counts a run's lanes' cells for the comparison: those known,
// those drawn busy (I/O or tasks dominant) and those that carry a mark.
func lanesOf(lv laneView) []compare.Lane {
	out := make([]compare.Lane, 0, len(lv.lanes))
	for j, l := range lv.lanes {
		c := compare.Lane{Busy: lv.busy[j]}
		for _, cell := range l.Lane.Cells {
			if !cell.Known {
				continue
			}
			c.Known++
			if d := cell.Dominant(); d == trace.PhaseIO || d == trace.PhaseTasks {
				c.BusyCells++
			}
			if cell.Marks != 0 {
				c.Marked++
			}
		}
		out = append(out, c)
	}
	return out
}

// captionAt says what the opening window shows: each run's serving lanes
// and how busy they were, and what the clients saw then.
func (ls *lockstep) captionAt(vs []laneView) string {
	var runs, clients []string
	for i, lv := range vs {
		var lanes []string
		for j, l := range lv.lanes {
			if lv.busy[j] >= compare.ServingShare {
				lanes = append(lanes, fmt.Sprintf("%s %.0f%%", l.Name, 100*lv.busy[j]))
			}
		}
		if len(lanes) == 0 {
			lanes = append(lanes, "every loop idle")
		}
		runs = append(runs, ls.recs[i].model+" "+strings.Join(lanes, ", "))
		if lv.hasWin {
			clients = append(clients, fmt.Sprintf("%s p99 %s", ls.recs[i].model, usText(lv.client.P99US)))
		}
	}
	out := fmt.Sprintf("Opened where the runs differ most: the %s window to %s. Busy in I/O and tasks: %s.",
		model.Duration(ls.tl.span()), model.Duration(ls.t), strings.Join(runs, "; "))
	if len(clients) > 0 {
		out += " Clients then: " + strings.Join(clients, ", ") + "."
	}
	if marked(vs) {
		out += " Marks: C a batch cut at its deadline check, + a task over budget, w a wakeup written, p a premature select."
	}
	if n := ringNote(vs); n != "" {
		out += " " + strings.TrimSpace(n)
	}
	if saturated(vs) {
		out += " A lane with no · (blocked in select, spare time) never rests: requests wait behind it."
	}
	return out + " space plays, ←/→ step, z/Z zoom."
}

// marked says whether the runs differ in the marks on their lanes.
func marked(vs []laneView) bool {
	var runs [][]compare.Lane
	for _, lv := range vs {
		runs = append(runs, lanesOf(lv))
	}
	return compare.MarksDiffer(runs)
}

// ringNote keys the figures beside io_uring's lanes, when a run has one.
func ringNote(vs []laneView) string {
	for _, lv := range vs {
		for _, r := range lv.ring {
			if r.Enters > 0 {
				return "Beside io_uring's lanes: sq the submissions its latest io_uring_enter carried, cq the completions it found, fly the operations in flight. "
			}
		}
	}
	return ""
}

// saturated says whether some run has a lane busy nine tenths of the window.
func saturated(vs []laneView) bool {
	for _, lv := range vs {
		if slices.ContainsFunc(lv.busy, func(b float64) bool { return b >= 0.9 }) {
			return true
		}
	}
	return false
}
