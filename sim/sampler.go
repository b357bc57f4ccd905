package sim

import (
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// SampleEvery is the sampler's period: a run takes a sample (its loops'
// counters, gates and clocks, the wheel, the clients' histograms) this
// often, besides those it takes at a pause, a step, a script action and
// the end. Four a second keep the samples a few percent of a trace.
const SampleEvery = 250 * time.Millisecond

// Window is what every client saw in one sampling window of the run: the
// requests answered per second and their p99. A comparison reads the
// spread of these within each run as its noise (compare.Figures.RPSSpread).
type Window struct {
	RPS   float64
	P50US float64
	P99US float64
}

// WindowEvery is the length of a Window: window k covers the run's time
// from k·WindowEvery to (k+1)·WindowEvery.
const WindowEvery = SampleEvery

// windowKeep bounds the windows kept: ten minutes' worth, the newest.
const windowKeep = 4 * 600

// splitKeep is how many periodic samples the fold keeps: a full second back
// from the newest.
const splitKeep = int(time.Second/SampleEvery) + 2

// Samples folds a run's samples, in stream order, into what the summary
// reads beside the latest sample: each loop's share of the last second and
// of the run, its clients' latency over the last second, and the clients'
// windows. It also works out the worst windows so far and writes them into
// each sample it folds (sample.Loop.Worst, sample.Clients.Worst), where the
// summary and the screens read them. A live run folds the samples it takes;
// a replay the samples of its trace; so both read the same figures. Safe
// for concurrent use.
type Samples struct {
	mu      sync.Mutex
	latest  *sample.Sample
	ticks   []*sample.Sample // periodic and end samples, oldest first, at most splitKeep
	first   *sample.Sample   // the run's first
	windows []Window
}

// WorstWindow is the highest p99 the clients saw over any one window of
// the run (WindowEvery long) and when that window began on the run clock:
// a stall that a run's p99 dilutes (a batch that holds a loop for half a
// second, once) stands out in the window that felt it. A window counts the
// answers that came in it and, at their age, the requests still in flight
// at its end (sample.Loop.Waiting).
type WorstWindow struct {
	P99US float64 `json:"worst_window_p99"`
	AtNS  int64   `json:"worst_window_at_ns"`
}

// Add folds the next sample of the stream. s's worst windows become the
// previous sample's, raised by the window s closes.
func (f *Samples) Add(s *sample.Sample) {
	f.mu.Lock()
	defer f.mu.Unlock()
	carryWorst(f.latest, s)
	f.latest = s
	if !s.Periodic() {
		return
	}
	n := len(f.ticks)
	if n > 0 && s.Time <= f.ticks[n-1].Time {
		return // the clock stood still: the run was held
	}
	if f.first == nil {
		f.first = s
	}
	if s.Reason == sample.Tick && n > 0 {
		f.addWindow(f.ticks[n-1], s)
	}
	f.ticks = append(f.ticks, s)
	if len(f.ticks) > splitKeep {
		f.ticks = append(f.ticks[:0], f.ticks[len(f.ticks)-splitKeep:]...)
	}
}

// Latest returns the latest sample folded, nil before the first.
func (f *Samples) Latest() *sample.Sample {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.latest
}

// TimeShares is how a loop's time divided over a window (sample.Shares).
type TimeShares = sample.Shares

// LoopTime returns trace loop i's time split and its clients' latency so
// far, as the samples folded tell them; nil before the first sample or for
// a loop they do not hold.
func (f *Samples) LoopTime(i int) *LoopTime {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, ok := f.latest.Loop(i)
	if !ok {
		return nil
	}
	t := &LoopTime{SelectNanos: cur.Split.SelectNS}
	if cur.Clients.N > 0 {
		t.Clients = &LoopClients{Requests: int64(cur.Clients.N), LatencyUS: latencyOf(&cur.Clients)}
		t.Clients.LatencyUS.WorstWindow = WorstOf(cur.Worst)
	}
	old, newest, ok := sample.LastWindow(f.ticks, int64(time.Second))
	if !ok {
		return t
	}
	sh, d, ok1 := sample.Over(old, newest, i)
	run, _, ok2 := sample.Over(f.first, newest, i)
	if !ok1 || !ok2 {
		return t
	}
	t.LastSecond, t.Run = sh, run
	if d.N > 0 {
		t.ClientsLastSecond = &LoopClients{Requests: int64(d.N), LatencyUS: latencyOf(&d)}
	}
	return t
}

// latencyOf is a histogram's quantiles.
func latencyOf(h *sample.Hist) LatencySummary {
	return LatencySummary{P50: h.Quantile(0.5), P90: h.Quantile(0.9), P99: h.Quantile(0.99),
		P999: h.Quantile(0.999), Max: h.Quantile(1)}
}

// addWindow appends the window between two periodic samples, the clients
// of every loop merged, and raises now's worst windows with it: each
// loop's clients' and every client's, the requests still in flight at the
// window's end counted at their age. f.mu is held.
func (f *Samples) addWindow(old, now *sample.Sample) {
	wall := time.Duration(now.Time - old.Time)
	if wall < SampleEvery/2 {
		return
	}
	var answered, felt sample.Hist
	for j := range now.Loops {
		a := sample.Felt(old, now, j, false)
		answered.Add(&a)
		w := sample.Felt(old, now, j, true)
		felt.Add(&w)
		now.Loops[j].Worst = raiseWorst(now.Loops[j].Worst, &w, old.Elapsed)
	}
	now.Clients.Worst = raiseWorst(now.Clients.Worst, &felt, old.Elapsed)
	f.windows = append(f.windows, Window{RPS: float64(answered.N) / wall.Seconds(), P50US: answered.Quantile(0.5), P99US: answered.Quantile(0.99)})
	if len(f.windows) > windowKeep {
		f.windows = append(f.windows[:0], f.windows[len(f.windows)-windowKeep:]...)
	}
}

// carryWorst starts s's worst windows at prev's (none before the first
// sample). A sample already delivered is never changed: a raised window
// is a new Worst.
func carryWorst(prev, s *sample.Sample) {
	s.Clients.Worst = nil
	if prev != nil {
		s.Clients.Worst = prev.Clients.Worst
	}
	for i := range s.Loops {
		l := &s.Loops[i]
		l.Worst = nil
		if pl, ok := prev.Loop(l.Index); ok {
			l.Worst = pl.Worst
		}
	}
}

// raiseWorst returns the worst window once the window felt, which began
// at (run clock since the start), is counted: felt when its p99 is higher
// than cur's, cur otherwise.
func raiseWorst(cur *sample.Worst, felt *sample.Hist, at int64) *sample.Worst {
	if felt.N == 0 {
		return cur
	}
	p := felt.Quantile(0.99)
	if p <= 0 || (cur != nil && p <= cur.P99US) {
		return cur
	}
	return &sample.Worst{P99US: p, AtNS: at}
}

// WorstOf is a sample's worst window as a summary reports it; nil without
// one.
func WorstOf(w *sample.Worst) *WorstWindow {
	if w == nil {
		return nil
	}
	return &WorstWindow{P99US: w.P99US, AtNS: w.AtNS}
}

// Windows returns a copy of the windows so far.
func (f *Samples) Windows() []Window {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Window(nil), f.windows...)
}

// sampler takes the run's samples and puts them in its stream.
type sampler struct {
	r     *Run
	mu    sync.Mutex // one sample at a time, in order
	fold  Samples
	nudge chan sample.Reason

	firedMu sync.Mutex
	fired   []sample.Fired // played, not yet in a sample
}

// fire notes a script action just played; the sampler's goroutine puts it
// in the stream with a sample of the moment, so the timeline never waits
// for the collector (a flood's events may be being written).
func (s *sampler) fire(f sample.Fired) {
	s.firedMu.Lock()
	s.fired = append(s.fired, f)
	s.firedMu.Unlock()
	s.soon(sample.Fire)
}

// run samples every SampleEvery, and when nudged, until stop is closed.
func (s *sampler) run(stop <-chan struct{}) {
	s.take(sample.Tick)
	t := time.NewTicker(SampleEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.take(sample.Tick)
		case why := <-s.nudge:
			s.take(why)
		}
	}
}

// soon asks the sampler's goroutine for a sample: a pause or a park seen
// on a goroutine that must not wait for the collector (the UI's, a loop's).
func (s *sampler) soon(why sample.Reason) {
	select {
	case s.nudge <- why:
	default: // one is coming already
	}
}

// take reads every figure of the run now, with the script actions played
// since the last sample, folds it and delivers it after the events
// collected so far. A periodic sample is skipped while the run is held:
// its clock stands still.
func (s *sampler) take(why sample.Reason) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.r
	now := r.coll.Clock().Now()
	s.firedMu.Lock()
	fired := s.fired
	s.fired = nil
	s.firedMu.Unlock()
	if len(fired) > 0 && why == sample.Tick {
		why = sample.Fire
	}
	if last := s.fold.Latest(); why == sample.Tick && last != nil && now <= last.Time {
		return
	}
	sm := &sample.Sample{Time: now, Reason: why, Elapsed: int64(r.Elapsed()), Active: int64(r.activeElapsed()),
		Held: r.ClockHeld(), Dropped: r.coll.Dropped(), Fired: fired}
	sm.Loops = make([]sample.Loop, len(r.loops))
	for i, l := range r.loops {
		g, ts := l.GateStatus(), l.TimeSplit()
		state := l.State()
		if l.TID() == 0 {
			state = trace.StateNotStarted
		}
		sm.Loops[i] = sample.Loop{Index: i, TID: int64(l.TID()), State: state, Stats: l.Stats(),
			Gate:    sample.Gate{Paused: g.Paused, Waiting: g.Waiting, Phase: g.Phase, Reason: g.Reason, Break: g.Break},
			IORatio: l.IORatio(), Split: sample.Split{SelectNS: ts.SelectNanos, IONS: ts.IONanos, TaskNS: ts.TaskNanos}}
		if i < len(r.served.hists) {
			sm.Loops[i].Clients = r.served.hists[i].Hist()
			sm.Loops[i].Waiting = r.served.hists[i].Waiting(r.runNow())
		}
		if c, ok := r.cpu[l.Name()]; ok && why == sample.End {
			sm.Loops[i].CPU = &sample.CPU{RunNS: c.RunNS, WaitNS: c.WaitNS}
		}
	}
	sm.Clients = r.clientSample()
	if r.wheel != nil {
		ws, st := r.wheel.Snapshot(), r.wheel.Stats()
		sm.Wheel = &sample.Wheel{Tick: ws.Tick, Cursor: ws.Cursor, Slots: ws.Slots, Queued: ws.Queued,
			TickNS: int64(ws.TickDuration), Ticks: st.Ticks, Expired: int64(st.Expired),
			Cancelled: int64(st.Cancelled), Pending: st.Pending}
	}
	if r.pool != nil {
		sm.Pool = sample.Pool{Size: len(r.pool.queues), TasksRun: r.pool.ran.Load()}
	}
	s.fold.Add(sm)
	r.coll.Deliver(sm)
}
