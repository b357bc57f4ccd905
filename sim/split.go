package sim

import (
	"math"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/sim/load"
)

// splitSampler reads every loop's time split a few times a second, off the
// loops, so the share of the last second spent blocked in select, in I/O
// and in tasks can be told from the run's totals. The loops only keep
// running sums; this goroutine does the subtracting.
type splitSampler struct {
	loops   []*reactor.EventLoop
	clients []load.Histogram // per loop: the latency of its channels' clients
	now     func() time.Time // the run clock

	mu      sync.Mutex
	samples []splitSample // oldest first, at most splitKeep
	first   splitSample   // the run's start
	windows []Window      // what the clients saw in each window, oldest first
	worst   []WorstWindow // per loop: its clients' worst window so far
	worstAt WorstWindow   // every client's worst window so far
}

// WorstWindow is the highest p99 the clients saw over any one window of
// the run (WindowEvery long) and when that window began on the run clock:
// a stall that a run's p99 dilutes (a batch that holds a loop for half a
// second, once) stands out in the window that felt it. The latencies are
// charged to the window in which their answers came.
type WorstWindow struct {
	P99US float64 `json:"worst_window_p99"`
	AtNS  int64   `json:"worst_window_at_ns"`
}

// Window is what every client saw in one sampling window of the run: the
// requests answered per second and their p99. A comparison reads the
// spread of these within each run as its noise (Figures.RPSSpread).
type Window struct {
	RPS   float64
	P50US float64
	P99US float64
}

// WindowEvery is the length of a Window: window k covers the run's time
// from k·WindowEvery to (k+1)·WindowEvery.
const WindowEvery = splitEvery

// windowKeep bounds the windows kept: ten minutes' worth, the newest.
const windowKeep = 4 * 600

type splitSample struct {
	at      time.Time
	loops   []reactor.TimeSplit
	clients []*load.Counts // nil for a loop with no client answered yet
}

const (
	splitEvery = 250 * time.Millisecond
	splitKeep  = int(time.Second/splitEvery) + 2 // a full second back from the newest
)

func newSplitSampler(loops []*reactor.EventLoop, clients []load.Histogram, now func() time.Time) *splitSampler {
	return &splitSampler{loops: loops, clients: clients, now: now, worst: make([]WorstWindow, len(loops))}
}

// run samples until stop is closed.
func (s *splitSampler) run(stop <-chan struct{}) {
	s.sample(false)
	t := time.NewTicker(splitEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.sample(true)
		}
	}
}

// sample reads every loop's split now, on the run clock: while the run is
// held the clock stands still and no sample is taken, so the last second
// is the last second the run ran, not the pause. window says whether the
// time since the last sample was a full window of load (the ticker's), not
// the shutdown's tail.
func (s *splitSampler) sample(window bool) {
	at := s.now()
	s.mu.Lock()
	same := len(s.samples) > 0 && !at.After(s.samples[len(s.samples)-1].at)
	s.mu.Unlock()
	if same {
		return
	}
	sm := splitSample{at: at, loops: make([]reactor.TimeSplit, len(s.loops)),
		clients: make([]*load.Counts, len(s.loops))}
	for i, l := range s.loops {
		sm.loops[i] = l.TimeSplit()
		if i < len(s.clients) && s.clients[i].Count() > 0 {
			sm.clients[i] = s.clients[i].Snapshot()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first.at.IsZero() {
		s.first = sm
	}
	if n := len(s.samples); window && n > 0 {
		s.addWindow(s.samples[n-1], sm)
	}
	s.samples = append(s.samples, sm)
	if len(s.samples) > splitKeep {
		s.samples = append(s.samples[:0], s.samples[len(s.samples)-splitKeep:]...)
	}
}

// TimeShares is how a loop's time divided over a window, in percent of
// the window's wall time. What the three leave is the rest of the
// iteration: selectNow polls, gates, the Go scheduler.
type TimeShares struct {
	Select float64 `json:"select"`
	IO     float64 `json:"io"`
	Tasks  float64 `json:"tasks"`
}

// Busy is the share of the window the loop was working: I/O and tasks.
func (t TimeShares) Busy() float64 { return t.IO + t.Tasks }

func shares(from, to reactor.TimeSplit, wall time.Duration) TimeShares {
	if wall <= 0 {
		return TimeShares{}
	}
	pct := func(a, b int64) float64 {
		return math.Round(min(100, max(0, 100*float64(b-a)/float64(wall)))*10) / 10
	}
	return TimeShares{Select: pct(from.SelectNanos, to.SelectNanos), IO: pct(from.IONanos, to.IONanos),
		Tasks: pct(from.TaskNanos, to.TaskNanos)}
}

// window returns loop i's shares over the last second sampled and since
// the first sample, and its clients' latency over that last second (nil
// when none was answered).
func (s *splitSampler) window(i int) (last, all TimeShares, lastClients *LoopClients) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) < 2 || i < 0 || i >= len(s.loops) {
		return TimeShares{}, TimeShares{}, nil
	}
	newest := s.samples[len(s.samples)-1]
	old := s.samples[0]
	for _, sm := range s.samples {
		if newest.at.Sub(sm.at) < time.Second {
			break
		}
		old = sm
	}
	last = shares(old.loops[i], newest.loops[i], newest.at.Sub(old.at))
	all = shares(s.first.loops[i], newest.loops[i], newest.at.Sub(s.first.at))
	if c := newest.clients[i]; c != nil {
		if d := c.Since(old.clients[i]); d.N() > 0 {
			lastClients = &LoopClients{Requests: int64(d.N()), LatencyUS: LatencySummary{
				P50: d.Quantile(0.5), P90: d.Quantile(0.9), P99: d.Quantile(0.99), P999: d.Quantile(0.999), Max: d.Quantile(1)}}
		}
	}
	return last, all, lastClients
}

// addWindow appends the window between two samples: the clients of every
// loop merged. s.mu is held.
func (s *splitSampler) addWindow(old, now splitSample) {
	wall := now.at.Sub(old.at)
	if wall < splitEvery/2 {
		return
	}
	// The worst window counts, besides the window's answers, the
	// requests still in flight at its end at their age: a closed-loop
	// client held by a stalled loop sends nothing else, so its one slow
	// answer, when it comes, is lost among the catch-up that follows.
	at := int64(old.at.Sub(s.first.at))
	var d, felt load.Counts
	for i := range now.clients {
		if now.clients[i] == nil {
			continue
		}
		one := now.clients[i].Since(old.clients[i])
		d.Add(one)
		withWaits := *one
		if i < len(s.clients) {
			s.clients[i].Waiting(now.at, &withWaits)
		}
		felt.Add(&withWaits)
		if p := withWaits.Quantile(0.99); withWaits.N() > 0 && i < len(s.worst) && p > s.worst[i].P99US {
			s.worst[i] = WorstWindow{P99US: p, AtNS: at}
		}
	}
	w := Window{RPS: float64(d.N()) / wall.Seconds(), P50US: d.Quantile(0.5), P99US: d.Quantile(0.99)}
	if p := felt.Quantile(0.99); felt.N() > 0 && p > s.worstAt.P99US {
		s.worstAt = WorstWindow{P99US: p, AtNS: at}
	}
	s.windows = append(s.windows, w)
	if len(s.windows) > windowKeep {
		s.windows = append(s.windows[:0], s.windows[len(s.windows)-windowKeep:]...)
	}
}

// worstWindow is loop i's clients' worst window so far (i < 0: every
// client's); ok is false before any window had an answer.
func (s *splitSampler) worstWindow(i int) (WorstWindow, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.worstAt
	if i >= 0 {
		if i >= len(s.worst) {
			return WorstWindow{}, false
		}
		w = s.worst[i]
	}
	return w, w.P99US > 0
}

// takeWindows returns a copy of the windows so far.
func (s *splitSampler) takeWindows() []Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Window(nil), s.windows...)
}
