package sim

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/sim/load"
)

// The fold writes the worst windows so far into every sample: a loop
// whose clients wait through a stall has it in the window the stall
// filled, by the requests' ages, though it answered nothing there; a
// pause's sample carries the worst windows on without closing a window; a
// sample already folded keeps what it said; the summary reads the latest.
func TestSamplesWorstWindow(t *testing.T) {
	const ms = int64(time.Millisecond)
	var served [2]load.Histogram // each loop's clients, over the run
	record := func(loop, n int, d time.Duration) {
		for range n {
			served[loop].Record(d)
		}
	}
	take := func(at int64, why sample.Reason, waiting *sample.Hist) *sample.Sample {
		s := &sample.Sample{Time: at, Elapsed: at, Active: at, Reason: why}
		for i := range served {
			s.Loops = append(s.Loops, sample.Loop{Index: i, State: trace.StateStarted, Clients: served[i].Hist()})
		}
		s.Loops[1].Waiting = waiting
		return s
	}
	var f Samples
	f.Add(take(0, sample.Tick, nil))
	record(0, 100, 100*time.Microsecond)
	record(1, 10, 200*time.Microsecond)
	first := take(250*ms, sample.Tick, nil)
	f.Add(first)
	// From 250ms loop 1 stalls: its 8 clients wait, 300ms old at 500ms.
	record(0, 100, 100*time.Microsecond)
	stall := &sample.Hist{N: 8, Counts: []uint64{uint64(sample.BucketOf(300_000)), 8}}
	stalled := take(500*ms, sample.Tick, stall)
	f.Add(stalled)
	stalledAt := func(w *sample.Worst) bool {
		return w != nil && w.P99US >= 290_000 && w.P99US <= 300_000 && w.AtNS == 250*ms
	}
	if w := stalled.Loops[1].Worst; !stalledAt(w) {
		t.Errorf("loop 1's worst window %+v, want the stall's 300ms from 250ms", w)
	}
	if w := stalled.Clients.Worst; !stalledAt(w) {
		t.Errorf("every client's worst window %+v, want the stall's 300ms from 250ms", w)
	}
	if w := stalled.Loops[0].Worst; w == nil || w.P99US != 100 {
		t.Errorf("loop 0's worst window %+v, want 100µs", w)
	}
	if ws := f.Windows(); len(ws) != 2 || ws[1].P99US != 100 {
		t.Errorf("windows %+v: the stalled window's answers are loop 0's 100µs, the stall is only in the worst", ws)
	}
	paused := take(600*ms, sample.Pause, stall)
	f.Add(paused)
	if paused.Loops[1].Worst != stalled.Loops[1].Worst || paused.Clients.Worst != stalled.Clients.Worst || len(f.Windows()) != 2 {
		t.Errorf("a pause's sample: worst %+v, %d windows; want the last tick's worst and no window", paused.Loops[1].Worst, len(f.Windows()))
	}
	// Loop 1 catches up fast; loop 0 slows to 1ms, its worst so far.
	record(0, 100, time.Millisecond)
	record(1, 8, 200*time.Microsecond)
	f.Add(take(750*ms, sample.Tick, nil))
	end := take(1000*ms, sample.End, nil)
	f.Add(end)
	if w := end.Loops[0].Worst; w == nil || w.P99US < 1000 || w.AtNS != 500*ms {
		t.Errorf("loop 0's worst window %+v, want 1ms from 500ms", w)
	}
	if w := stalled.Loops[0].Worst; w.P99US != 100 {
		t.Errorf("a folded sample changed: loop 0's worst then reads %+v", w)
	}
	if w := end.Loops[1].Worst; !stalledAt(w) {
		t.Errorf("loop 1's worst window at the end %+v, want the stall's", w)
	}
	var s Summary
	s.fromSamples(&f, []trace.LoopInfo{{Name: "worker-0", Group: "worker"}, {Name: "worker-1", Group: "worker"}})
	if w := s.Clients.LatencyUS.WorstWindow; w == nil || w.AtNS != 250*ms || w.P99US != end.Clients.Worst.P99US {
		t.Errorf("summary: clients' worst window %+v, the end sample's %+v", w, end.Clients.Worst)
	}
	if w := s.Loops[1].Time.Clients.LatencyUS.WorstWindow; w == nil || w.AtNS != 250*ms {
		t.Errorf("summary: worker-1's worst window %+v, want the stall's", w)
	}
}
