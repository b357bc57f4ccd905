package compare

import (
	"cmp"
	"slices"

	"github.com/reactorviz/reactorviz/sim"
)

// noiseUS is the p99 difference below which the verdict calls two models
// alike whatever their spreads: a few milliseconds is what the scheduler
// of a shared machine adds on its own.
const noiseUS = 5000

// moreRPS says whether fast served clearly more than slow: by a tenth or
// more, with the ranges of their windows apart, and not the same shape.
func moreRPS(fast, slow Figures) bool {
	if slow.RPS <= 0 || fast.RPS < 1.1*slow.RPS || sameShape(fast, slow) {
		return false
	}
	if r, ok := pairedRatio(fast.windows, slow.windows, windowRPS); ok {
		return r.Lo > 1
	}
	return apart(fast.RPSSpread, slow.RPSSpread)
}

// slowerP99 says whether slow's p99 is clearly worse than fast's: twice or
// more, by more than noiseUS, with their windows' p99 ranges apart, and
// not the same shape.
func slowerP99(slow, fast Figures) bool {
	if fast.P99US <= 0 || slow.P99US < 2*fast.P99US || slow.P99US-fast.P99US < noiseUS || sameShape(fast, slow) {
		return false
	}
	if r, ok := pairedRatio(slow.windows, fast.windows, windowP99); ok {
		return r.Lo > 1
	}
	return apart(slow.P99Spread, fast.P99Spread)
}

func windowRPS(w sim.Window) float64 { return w.RPS }

func windowP99(w sim.Window) float64 { return w.P99US }

// pairedRatio is the range of a's figure over b's window by window: the
// runs share their schedule, so window k of one meets the same load as
// window k of the other. The first window is left out and the outer tenth
// trimmed. A range that stays above 1 is a difference no window's noise
// undoes; one that straddles 1 is noise. ok is false without enough
// windows in both runs.
func pairedRatio(a, b []sim.Window, pick func(sim.Window) float64) (Spread, bool) {
	var rs []float64
	for k := 1; k < min(len(a), len(b)); k++ {
		if x, y := pick(a[k]), pick(b[k]); x > 0 && y > 0 {
			rs = append(rs, x/y)
		}
	}
	if len(rs) < minSpreadWindows {
		return Spread{}, false
	}
	return trimmed(rs), true
}

// apart says whether two ranges do not overlap; with no spread measured
// (a summary rebuilt from a trace), the fixed margins alone decide.
func apart(a, b Spread) bool { return !a.known() || !b.known() || !(a.Lo <= b.Hi && b.Lo <= a.Hi) }

// sameShape says whether two models built the same topology here.
func sameShape(a, b Figures) bool { return a.Shape.Serving > 0 && a.Shape == b.Shape }

// alike says whether nothing measured tells a from b.
func alike(a, b Figures) bool {
	return sameShape(a, b) || !(moreRPS(a, b) || moreRPS(b, a) || slowerP99(a, b) || slowerP99(b, a))
}

// anyAlike says whether f is alike with one of peers: then ranking f
// against the group would rank noise (or one shape against itself).
func anyAlike(peers []Figures, f Figures) bool {
	return slices.ContainsFunc(peers, func(p Figures) bool { return p.Model != f.Model && alike(p, f) })
}

// alikeWith lists f and the models alike with it, in the figures' order.
func alikeWith(fs []Figures, f Figures) []Figures {
	var out []Figures
	for _, g := range fs {
		if g.Model == f.Model || alike(f, g) {
			out = append(out, g)
		}
	}
	return out
}

// contendedPct is the share of the machine's CPUs (%) other processes may
// use during a run before the run measures the machine more than its
// model: on two cores, a quarter is half a core taken from the loops.
const contendedPct = 25

// contended returns the figures of the run during which other processes
// used the most CPU, when that reached contendedPct.
func contended(fs []Figures) (Figures, bool) {
	w := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.OtherCPU, b.OtherCPU) })
	return w, w.OtherCPU >= contendedPct
}

// capacityMargin is how far apart two models' capacities must be for the
// verdict to rank them on it: a tenth is what a thread's CPU per request
// moves from run to run (caches, frequency), a third is a structure.
const capacityMargin = 1.3

// worstWindowStall is the worst-window p99 from which a difference is a
// stall a learner would feel, not a scheduler's hiccup.
const worstWindowStall = 50_000

// worstApart says whether the runs' worst windows are far apart: one run
// held its clients for a stall the others did not (a batch that kept its
// loop), which a run's p99 dilutes.
func worstApart(fs []Figures) bool {
	lo := slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.WorstWindowP99US, b.WorstWindowP99US) })
	hi := slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.WorstWindowP99US, b.WorstWindowP99US) })
	return farApart(lo.WorstWindowP99US, hi.WorstWindowP99US, 3, worstWindowStall)
}

// farApart says whether hi is at least times lo and by at least by,
// lo measured.
func farApart(lo, hi, times, by float64) bool {
	return lo > 0 && hi >= times*lo && hi-lo >= by
}

// differ says whether two figures differ by at least by and by a quarter
// of the larger: a few more batches cut in one run than another is the
// scheduler's doing, not the design's.
func differ[T int64 | float64](a, b, by T) bool {
	d := max(a-b, b-a)
	return d >= by && 4*d >= max(a, b)
}

// extremes are the figures that served the most and the fewest requests,
// and those with the lowest and the highest p99.
func extremes(fs []Figures) (best, worst, low, high Figures) {
	best = slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.RPS, b.RPS) })
	worst = slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.RPS, b.RPS) })
	low = slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.P99US, b.P99US) })
	high = slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.P99US, b.P99US) })
	return best, worst, low, high
}

// rpsRanked says whether best served clearly more than worst and nothing
// measured tells worst from those alike with best: a verdict may rank them.
func rpsRanked(fs []Figures, best, worst Figures) bool {
	return moreRPS(best, worst) && !anyAlike(alikeWith(fs, best), worst)
}

// p99Ranked says whether high's p99 is clearly worse than low's and
// nothing measured tells high from those alike with low.
func p99Ranked(fs []Figures, high, low Figures) bool {
	return slowerP99(high, low) && !anyAlike(alikeWith(fs, low), high)
}

// worstFarApart says whether two runs' worst windows are far apart: five
// times and more than noiseUS.
func worstFarApart(a, b LoopTotals) bool {
	return farApart(min(a.WorstP99US, b.WorstP99US), max(a.WorstP99US, b.WorstP99US), 5, noiseUS)
}

// emptyReadsApart says whether two runs' empty reads a request differ by
// a twentieth of a read and a quarter of the larger: one reads until
// EAGAIN, the other does not.
func emptyReadsApart(ea, eb float64) bool { return differ(ea, eb, 0.05) }

// capacityRanked reads the models' capacities: the best and the worst,
// whether every model's was measured, and whether the best is
// capacityMargin ahead of the worst with another shape, with the models
// within capacityMargin of the best (ahead).
func capacityRanked(fs []Figures) (best, worst Figures, ahead []Figures, measured, ranked bool) {
	best = slices.MaxFunc(fs, func(a, b Figures) int { return cmp.Compare(a.CapacityRPS, b.CapacityRPS) })
	worst = slices.MinFunc(fs, func(a, b Figures) int { return cmp.Compare(a.CapacityRPS, b.CapacityRPS) })
	if worst.CapacityRPS <= 0 {
		return best, worst, nil, false, false
	}
	if best.CapacityRPS < capacityMargin*worst.CapacityRPS || sameShape(best, worst) {
		return best, worst, nil, true, false
	}
	for _, f := range fs {
		if f.CapacityRPS >= best.CapacityRPS/capacityMargin {
			ahead = append(ahead, f)
		}
	}
	return best, worst, ahead, true, true
}
