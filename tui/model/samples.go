package model

import (
	"math"
	"sort"

	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// sampleLog holds a run's samples (reactor/trace/sample) with their place in
// the stream: sample k came after the first at[k] events. Live, the model
// adds each as the collector delivers it, after the events before it; a
// replay has its trace's. A snapshot at event n reads the samples up to n,
// so a live screen and a replay of its trace at the same event read the
// same figures.
type sampleLog struct {
	at    []uint64
	s     []*sample.Sample
	keep  int            // live: how many to keep (0: all)
	fired []sample.Fired // live: every action fired, kept past the trim
	total int            // samples added, the trimmed ones included
}

// liveSamples is how many samples a live model keeps: enough for the last
// second's window at any sampling rate the sampler uses, and a few pauses.
const liveSamples = 64

// maxFired bounds the actions kept: a scenario's timeline is far shorter.
const maxFired = 256

func (l *sampleLog) add(events uint64, s *sample.Sample) {
	l.at = append(l.at, events)
	l.s = append(l.s, s)
	l.total++
	if l.keep > 0 {
		for _, f := range s.Fired {
			if len(l.fired) < maxFired {
				l.fired = append(l.fired, f)
			}
		}
		if n := len(l.s); n > 2*l.keep {
			l.at = append(l.at[:0], l.at[n-l.keep:]...)
			l.s = append(l.s[:0], l.s[n-l.keep:]...)
		}
	}
}

// upTo returns how many samples came after no more than n events.
func (l *sampleLog) upTo(n uint64) int {
	return sort.Search(len(l.at), func(i int) bool { return l.at[i] > n })
}

// fill puts into a snapshot at event n what the samples up to there say:
// the latest sample, the actions fired, and each loop's last second from
// the loops' own clocks and its clients' histograms.
//
// most, when positive, reads no more than the run's first most samples:
// a replay shown at the moment a live screen was, which had the events up
// to n but not yet a sample that came after them.
func (l *sampleLog) fill(s *Snapshot, n uint64, most int) {
	k := l.upTo(n)
	if most > 0 && l.keep == 0 {
		k = min(k, most)
	}
	s.SampleCount = l.total - (len(l.s) - k)
	if k == 0 {
		return
	}
	latest := l.s[k-1]
	s.Sample = latest
	if l.keep > 0 {
		s.Fired = append([]sample.Fired(nil), l.fired...)
	} else {
		for _, sm := range l.s[:k] {
			s.Fired = append(s.Fired, sm.Fired...)
		}
	}
	s.Dropped = max(s.Dropped, latest.Dropped)
	// The window: the newest periodic (or end) sample and the oldest one
	// at most a second before it.
	var newest, old *sample.Sample
	for i := k - 1; i >= 0; i-- {
		sm := l.s[i]
		if sm.Reason != sample.Tick && sm.Reason != sample.End {
			continue
		}
		if newest == nil {
			newest, old = sm, sm
			continue
		}
		old = sm
		if newest.Time-sm.Time >= SplitWindow {
			break
		}
	}
	if newest == nil || newest == old {
		return
	}
	wall := float64(newest.Time - old.Time)
	pct := func(a, b int64) float64 {
		return math.Round(min(100, max(0, 100*float64(b-a)/wall))*10) / 10
	}
	for i := range s.Loops {
		nl, ok1 := newest.Loop(s.Loops[i].Index)
		ol, ok2 := old.Loop(s.Loops[i].Index)
		if !ok1 || !ok2 {
			continue
		}
		sp := TimeSplit{Known: true, Select: pct(ol.Split.SelectNS, nl.Split.SelectNS),
			IO: pct(ol.Split.IONS, nl.Split.IONS), Tasks: pct(ol.Split.TaskNS, nl.Split.TaskNS)}
		if d := nl.Clients.Since(&ol.Clients); d.N > 0 {
			sp.Latency, sp.P50US, sp.P99US = true, d.Quantile(0.5), d.Quantile(0.99)
		}
		if w := nl.Worst; w != nil {
			sp.WorstP99US, sp.WorstAtNS = w.P99US, w.AtNS
		}
		if sp.Select+sp.IO+sp.Tasks == 0 && !sp.Latency {
			continue // nothing measured (a loop not started): the events may say more
		}
		s.Loops[i].Split = sp
	}
}
