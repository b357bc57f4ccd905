package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/model"
)

// openSpans are the windows the lockstep replay may open at: from 20 ms,
// where one loop's iterations and gaps show, to 1 s, where a busy loop is
// a solid bar whatever its model.
var openSpans = []int64{20e6, 50e6, 100e6, 200e6, 500e6, 1e9}

// openMoments is how many window ends per span the opening tries, evenly
// over the longest recording.
const openMoments = 12

// openCols is the lane width the opening scores at; the drawing's may
// differ, the shape of the difference does not.
const openCols = 80

// servingShare is the busy share below which a lane counts as idle for
// the opening's score: an idle boss is not where models differ.
const servingShare = 0.05

// candidate is one window the opening tried: how far apart the runs'
// busy cells and their marks were there.
type candidate struct {
	span, t      int64
	busy, marked float64
}

func (c candidate) score() float64 { return c.busy + c.marked }

// openAtDifference moves the lockstep replay to the zoom and the moment
// where the recordings differ most, and captions what to look at there.
// A span scores by how far apart the runs' serving lanes look: the share
// of their cells drawn busy, taken at its median over the moments (a
// difference of models lasts; one preempted loop's hiccup does not), plus
// the share of cells marked (a cut batch, a wakeup) at its most, since a
// design's marks come where its work comes. Of the spans within a
// twentieth of the best, the widest wins: the most context for the same
// difference; in it, the moment that differs most.
func (ls *lockstep) openAtDifference() {
	if len(ls.reps) < 2 || ls.end <= 0 {
		ls.seekAll()
		return
	}
	last := ls.loadEnd()
	bySpan := map[int64][]candidate{}
	var spans []int64
	for _, span := range openSpans {
		if !slices.Contains(zoomSteps, span) || span > last {
			continue
		}
		spans = append(spans, span)
		for k := 1; k <= openMoments; k++ {
			t := span + (last-span)*int64(k)/openMoments
			c := candidate{span: span, t: t}
			c.busy, c.marked = ls.lookAt(span, t)
			bySpan[span] = append(bySpan[span], c)
		}
	}
	if len(spans) == 0 {
		ls.seekAll()
		return
	}
	score := func(span int64) float64 { return spanScore(bySpan[span]) }
	top := slices.MaxFunc(spans, func(a, b int64) int { return cmp.Compare(score(a), score(b)) })
	if score(top) < minOpenScore {
		// The lanes look alike at every zoom: open on the middle of the
		// load at the default window, and say where the difference is.
		ls.tl.zoom, ls.t = defaultZoom, min(last/2+zoomSteps[defaultZoom]/2, last)
		ls.seekAll()
		ls.caption = ringNote(ls.views(openCols, 16)) + "The runs' lanes look alike at every zoom from 20ms to 1s: their loops were as busy, moment by moment (on a loaded machine, every loop waits for a CPU alike). What tells the runs apart, if anything, is in the verdict and the counters (p: back to them). space plays, ←/→ step, z/Z zoom."
		return
	}
	pick := top
	for _, span := range spans {
		if score(span) >= score(top)-0.05 && span > pick {
			pick = span
		}
	}
	best := slices.MaxFunc(bySpan[pick], func(a, b candidate) int { return cmp.Compare(a.score(), b.score()) })
	ls.tl.zoom = slices.Index(zoomSteps, pick)
	ls.t = best.t
	ls.seekAll()
	ls.caption = ls.captionAt(ls.views(openCols, 16))
}

// spanScore is a span's score over its moments: the median spread of
// busy cells, plus the largest spread of marked ones.
func spanScore(cs []candidate) float64 {
	if len(cs) == 0 {
		return 0
	}
	busy := make([]float64, 0, len(cs))
	marked := 0.0
	for _, c := range cs {
		busy = append(busy, c.busy)
		marked = max(marked, c.marked)
	}
	slices.Sort(busy)
	return busy[len(busy)/2] + marked
}

// minOpenScore is the least difference worth opening on.
const minOpenScore = 0.15

// loadEnd is where every run still had its load: the earliest end of a
// recording, and of the clients' windows where known. Past it one run
// drains or shuts down while another has stopped, which differs for no
// reason worth showing.
func (ls *lockstep) loadEnd() int64 {
	end := ls.end
	for i, r := range ls.reps {
		end = min(end, r.EndTime()-ls.starts[i])
		if n := len(ls.windows[i]); n > 0 {
			end = min(end, int64(n)*int64(sim.WindowEvery))
		}
	}
	return end
}

// lookAt is how far apart the runs look in the window of span ending at
// t: the spread of their busy cells and of their marked cells.
func (ls *lockstep) lookAt(span, t int64) (busySpread, markSpread float64) {
	ls.tl.zoom = slices.Index(zoomSteps, span)
	ls.t = t
	ls.seekAll()
	var busy, marked []float64
	for _, lv := range ls.views(openCols, 16) {
		b, m := looks(lv)
		busy, marked = append(busy, b), append(marked, m)
	}
	return spreadOf(busy), spreadOf(marked)
}

// looks is how a run's serving lanes look: the share of their cells drawn
// busy (I/O or tasks dominant) and the share that carry a mark.
func looks(lv laneView) (busy, marked float64) {
	n := 0
	for j, l := range lv.lanes {
		if lv.busy[j] < servingShare {
			continue
		}
		var b, m, known int
		for _, c := range l.Lane.Cells {
			if !c.Known {
				continue
			}
			known++
			if d := c.Dominant(); d == trace.PhaseIO || d == trace.PhaseTasks {
				b++
			}
			if c.Marks != 0 {
				m++
			}
		}
		if known == 0 {
			continue
		}
		n++
		busy += float64(b) / float64(known)
		marked += float64(m) / float64(known)
	}
	if n == 0 {
		return 0, 0
	}
	return busy / float64(n), marked / float64(n)
}

func spreadOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	return slices.Max(vs) - slices.Min(vs)
}

// captionAt says what the opening window shows: each run's serving lanes
// and how busy they were, and what the clients saw then.
func (ls *lockstep) captionAt(vs []laneView) string {
	var runs, clients []string
	for i, lv := range vs {
		var lanes []string
		for j, l := range lv.lanes {
			if lv.busy[j] >= servingShare {
				lanes = append(lanes, fmt.Sprintf("%s %.0f%%", l.Name, 100*lv.busy[j]))
			}
		}
		if len(lanes) == 0 {
			lanes = append(lanes, "every loop idle")
		}
		runs = append(runs, ls.names[i]+" "+strings.Join(lanes, ", "))
		if lv.hasWin {
			clients = append(clients, fmt.Sprintf("%s p99 %s", ls.names[i], usText(lv.client.P99US)))
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
	var ms []float64
	for _, lv := range vs {
		_, m := looks(lv)
		ms = append(ms, m)
	}
	return spreadOf(ms) >= 0.1
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
