package compare

import (
	"cmp"
	"slices"

	"github.com/reactorviz/reactorviz/sim"
)

// OpenSpans are the windows a side-by-side replay of the runs' recordings
// may open at: from 20 ms, where one loop's iterations and gaps show, to
// 1 s, where a busy loop is a solid bar whatever its model.
var OpenSpans = []int64{20e6, 50e6, 100e6, 200e6, 500e6, 1e9}

// openMoments is how many window ends per span WhereRunsDiffer tries,
// evenly over the load.
const openMoments = 12

// ServingShare is the busy share of a window below which a lane counts as
// idle: an idle boss is not where models differ.
const ServingShare = 0.05

// minOpenScore is the least difference worth opening on.
const minOpenScore = 0.15

// Lane is one of a run's lanes in a window, as a replay draws it in
// cells: its share of the window in I/O and tasks, the cells that hold
// something known, those drawn busy (I/O or tasks dominant) and those that
// carry a mark (a cut batch, a wakeup).
type Lane struct {
	Busy                     float64
	Known, BusyCells, Marked int
}

// lanesLook is how a run's serving lanes look in a window: the share of
// their cells drawn busy and the share that carry a mark, averaged over
// the lanes busy at least ServingShare.
func lanesLook(lanes []Lane) (busy, marked float64) {
	n := 0
	for _, l := range lanes {
		if l.Busy < ServingShare || l.Known == 0 {
			continue
		}
		n++
		busy += float64(l.BusyCells) / float64(l.Known)
		marked += float64(l.Marked) / float64(l.Known)
	}
	if n == 0 {
		return 0, 0
	}
	return busy / float64(n), marked / float64(n)
}

// MarksDiffer says whether the runs differ in the marks on their lanes.
func MarksDiffer(runs [][]Lane) bool {
	var ms []float64
	for _, lanes := range runs {
		_, m := lanesLook(lanes)
		ms = append(ms, m)
	}
	return rangeOf(ms) >= 0.1
}

// LoadEnd is where every run still had its load: the earliest end of a
// recording (ends, each on the shared clock since its run's start), and
// of the clients' windows where known. Past it one run drains or shuts
// down while another has stopped, which differs for no reason worth
// showing.
func LoadEnd(ends []int64, windows [][]sim.Window) int64 {
	end := slices.Min(ends)
	for _, ws := range windows {
		if n := len(ws); n > 0 {
			end = min(end, int64(n)*int64(sim.WindowEvery))
		}
	}
	return end
}

// moment is one window WhereRunsDiffer tried: how far apart the runs' busy
// cells and their marks were there.
type moment struct {
	span, t      int64
	busy, marked float64
}

func (m moment) score() float64 { return m.busy + m.marked }

// WhereRunsDiffer finds the window, of one of spans ending at a moment of
// the load (up to last), where the recordings differ most; look gives
// every run's lanes in the window of span ending at t. A span scores by
// how far apart the runs' serving lanes look: the share of their cells
// drawn busy, taken at its median over the moments (a difference of
// models lasts; one preempted loop's hiccup does not), plus the share of
// cells marked (a cut batch, a wakeup) at its most, since a design's marks
// come where its work comes. Of the spans within a twentieth of the best,
// the widest wins: the most context for the same difference; in it, the
// moment that differs most. ok is false when no span scores
// minOpenScore: the lanes look alike at every zoom.
func WhereRunsDiffer(spans []int64, last int64, look func(span, t int64) [][]Lane) (span, t int64, ok bool) {
	if len(spans) == 0 {
		return 0, 0, false
	}
	bySpan := map[int64][]moment{}
	for _, span := range spans {
		for k := 1; k <= openMoments; k++ {
			m := moment{span: span, t: span + (last-span)*int64(k)/openMoments}
			var busy, marked []float64
			for _, lanes := range look(span, m.t) {
				b, mk := lanesLook(lanes)
				busy, marked = append(busy, b), append(marked, mk)
			}
			m.busy, m.marked = rangeOf(busy), rangeOf(marked)
			bySpan[span] = append(bySpan[span], m)
		}
	}
	score := func(span int64) float64 { return spanScore(bySpan[span]) }
	top := slices.MaxFunc(spans, func(a, b int64) int { return cmp.Compare(score(a), score(b)) })
	if score(top) < minOpenScore {
		return 0, 0, false
	}
	pick := top
	for _, span := range spans {
		if score(span) >= score(top)-0.05 && span > pick {
			pick = span
		}
	}
	best := slices.MaxFunc(bySpan[pick], func(a, b moment) int { return cmp.Compare(a.score(), b.score()) })
	return pick, best.t, true
}

// spanScore is a span's score over its moments: the median spread of
// busy cells, plus the largest spread of marked ones.
func spanScore(ms []moment) float64 {
	if len(ms) == 0 {
		return 0
	}
	busy := make([]float64, 0, len(ms))
	marked := 0.0
	for _, m := range ms {
		busy = append(busy, m.busy)
		marked = max(marked, m.marked)
	}
	slices.Sort(busy)
	return busy[len(busy)/2] + marked
}

// rangeOf is how far apart the values are: the largest less the smallest.
func rangeOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	return slices.Max(vs) - slices.Min(vs)
}
