package model

// TimeSplit is where a loop's last second went, in percent of it, and the
// latency the clients of its channels saw in it. Live, the run measures
// both (the loops' own clocks, the clients' histograms); a replay reads
// them from its trace's samples, and a trace without samples has the
// shares from its phase events and no latency.
type TimeSplit struct {
	Known             bool
	Select, IO, Tasks float64 // percent of the last second
	Latency           bool    // P50US and P99US hold figures
	P50US, P99US      float64
	// WorstP99US is the highest p99 the loop's clients saw in any 250 ms
	// window of the run so far (requests in flight counted at their age):
	// a stall the last second has forgotten and a run's p99 dilutes. 0
	// when not measured.
	WorstP99US float64
}

// SplitWindow is the window the shares are taken over.
const SplitWindow int64 = 1e9

// splitOf turns one timeline cell covering the last second into shares.
func splitOf(c Cell, window int64) TimeSplit {
	if !c.Known || window <= 0 {
		return TimeSplit{}
	}
	pct := func(ns int64) float64 { return min(100, max(0, 100*float64(ns)/float64(window))) }
	return TimeSplit{Known: true, Select: pct(c.Select), IO: pct(c.IO), Tasks: pct(c.Tasks)}
}
