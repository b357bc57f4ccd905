package sample

import "math"

// The window maths of a run's samples, in one place: the summary's fold
// (sim.Samples) and the screens' (tui/model) both call these, so a live
// screen, a replay and the summary cannot tell two stories.

// Periodic reports whether s is a periodic or end sample: the ones a
// window of the run is measured between (a pause's, a step's or a script
// action's come at any moment).
func (s *Sample) Periodic() bool { return s.Reason == Tick || s.Reason == End }

// LastWindow picks, among the periodic samples of ss (stream order), the
// newest and the newest one at least span before it, the oldest when none
// is: the window called "the last second". ok is false with fewer than two.
func LastWindow(ss []*Sample, span int64) (old, newest *Sample, ok bool) {
	for i := len(ss) - 1; i >= 0; i-- {
		s := ss[i]
		if !s.Periodic() {
			continue
		}
		if newest == nil {
			newest = s
		}
		old = s
		if newest.Time-s.Time >= span {
			break
		}
	}
	return old, newest, newest != old
}

// Shares is how a loop's time divided over a window, in percent of the
// window's wall time. What the three leave is the rest of the iteration:
// selectNow polls, gates, the Go scheduler.
type Shares struct {
	Select float64 `json:"select"`
	IO     float64 `json:"io"`
	Tasks  float64 `json:"tasks"`
}

// Busy is the share of the window the loop was working: I/O and tasks.
func (t Shares) Busy() float64 { return t.IO + t.Tasks }

// SharesOf is the shares of wall nanoseconds between two splits of one
// loop, to 0.1 %. A sample reads its clock before its loops' splits, and
// a select still open is counted up to the split's own reading, so on a
// loaded machine a loop can account for a little more time than the
// window's wall: the window is then taken to be what the loop accounted,
// and the three shares never add up to more than the whole.
func SharesOf(from, to Split, wall int64) Shares {
	if wall <= 0 {
		return Shares{}
	}
	wall = max(wall, (to.SelectNS-from.SelectNS)+(to.IONS-from.IONS)+(to.TaskNS-from.TaskNS))
	pct := func(a, b int64) float64 {
		return math.Round(min(100, max(0, 100*float64(b-a)/float64(wall)))*10) / 10
	}
	return Shares{Select: pct(from.SelectNS, to.SelectNS), IO: pct(from.IONS, to.IONS), Tasks: pct(from.TaskNS, to.TaskNS)}
}

// Over is what trace loop i did between samples old and now: its time
// shares and its clients' answers in the window. ok is false when either
// sample lacks the loop.
func Over(old, now *Sample, i int) (sh Shares, clients Hist, ok bool) {
	nl, ok1 := now.Loop(i)
	ol, ok2 := old.Loop(i)
	if !ok1 || !ok2 {
		return Shares{}, Hist{}, false
	}
	return SharesOf(ol.Split, nl.Split, now.Time-old.Time), nl.Clients.Since(&ol.Clients), true
}

// Felt is what the clients of now's loop entry j felt since old: the
// answers in the window and, with waiting, the requests still in flight at
// its end at their age (a stalled loop answers nothing while it stalls).
// The maximum is dropped: a window's histograms are merged.
func Felt(old, now *Sample, j int, waiting bool) Hist {
	nl := &now.Loops[j]
	var prev *Hist
	if ol, ok := old.Loop(nl.Index); ok {
		prev = &ol.Clients
	}
	w := nl.Clients.Since(prev)
	if waiting {
		w.Add(nl.Waiting)
	}
	w.MaxNS = 0
	return w
}
