package model

import (
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
}

// liveSamples is how many samples a live model keeps: enough for the last
// second's window at any sampling rate the sampler uses, and a few pauses.
const liveSamples = 64

// maxFired bounds the actions kept: a scenario's timeline is far shorter.
const maxFired = 256

func (l *sampleLog) add(events uint64, s *sample.Sample) {
	l.at = append(l.at, events)
	l.s = append(l.s, s)
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

// fill puts into a snapshot at event n what the samples up to there say:
// the latest sample, the actions fired, and each loop's last second from
// the loops' own clocks and its clients' histograms.
func (l *sampleLog) fill(s *Snapshot, n uint64) {
	k := sort.Search(len(l.at), func(i int) bool { return l.at[i] > n }) // the samples up to n
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
	old, newest, ok := sample.LastWindow(l.s[:k], SplitWindow)
	if !ok {
		return
	}
	for i := range s.Loops {
		sh, d, ok := sample.Over(old, newest, s.Loops[i].Index)
		if !ok {
			continue
		}
		sp := TimeSplit{Known: true, Select: sh.Select, IO: sh.IO, Tasks: sh.Tasks}
		if d.N > 0 {
			sp.Latency, sp.P50US, sp.P99US = true, d.Quantile(0.5), d.Quantile(0.99)
		}
		if nl, _ := newest.Loop(s.Loops[i].Index); nl.Worst != nil {
			sp.WorstP99US = nl.Worst.P99US
		}
		if sp.Select+sp.IO+sp.Tasks == 0 && !sp.Latency {
			continue // nothing measured (a loop not started): the events may say more
		}
		s.Loops[i].Split = sp
	}
}
