package model

import (
	"sort"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// Replay bounds: how often the fold is checkpointed, and how far back the
// log search looks for a filter that matches rarely.
const (
	minCheckpointEvery = 4096
	maxCheckpoints     = 512
	replayLogScan      = 1 << 18
)

// Replay rebuilds the state of a recorded run at any event. Stepping
// backwards restores the nearest checkpoint at or before the target and
// folds forward from it, so any seek folds fewer than one checkpoint
// interval of events. A Replay is used from one goroutine (the UI's).
type Replay struct {
	events []trace.Event
	every  int
	ckpts  []*State // ckpts[i]: the state after events[:i*every]
	cur    *State
	pos    int // events folded into cur

	// The timeline is the fold of events[:tlPos], as the live model's is
	// of the events so far: a playing replay folds only the events the
	// cursor passed, and a seek backwards restores the latest checkpoint
	// at or before it (tlCkpts[i]: the fold of events[:i*tlEvery], taken
	// as the fold first passes there) and folds forward from it.
	tl       laneFold
	tlPos    int
	tlEvery  int
	tlCkpts  []laneFold
	tlFolded uint64 // events folded into the timeline, for the benchmarks

	followed followCache
	samples  sampleLog
}

// AddSample adds a sample of the trace, which came after its first events
// events. Samples are added in stream order.
func (r *Replay) AddSample(events int, s *sample.Sample) {
	r.samples.add(uint64(max(events, 0)), s)
}

// NewReplay folds the whole trace once, keeping checkpoints, and stands at
// the start. dropped is the run's own count of lost events (the trace's
// end line), shown alongside the drop events.
func NewReplay(loops []trace.LoopInfo, events []trace.Event, dropped uint64) *Replay {
	every := max(minCheckpointEvery, (len(events)+maxCheckpoints-1)/maxCheckpoints)
	r := &Replay{events: events, every: every,
		tlEvery: max(minTimelineEvery, (len(events)+maxTimelineCheckpoints-1)/maxTimelineCheckpoints)}
	st := NewState(loops)
	st.NoteDropped(dropped)
	for i := range events {
		if i%every == 0 {
			r.ckpts = append(r.ckpts, st.Clone())
		}
		st.apply(&events[i])
	}
	if len(events)%every == 0 {
		r.ckpts = append(r.ckpts, st.Clone())
	}
	r.cur, r.pos = st, len(events)
	r.Seek(0)
	return r
}

// Len returns the number of events in the trace.
func (r *Replay) Len() int { return len(r.events) }

// Pos returns how many events are folded: the state shown is the one right
// after event Pos (1-based); 0 is before the first event.
func (r *Replay) Pos() int { return r.pos }

// Event returns event i (0-based). ok is false out of range.
func (r *Replay) Event(i int) (trace.Event, bool) {
	if i < 0 || i >= len(r.events) {
		return trace.Event{}, false
	}
	return r.events[i], true
}

// Time returns the time of the latest folded event (0 at the start).
func (r *Replay) Time() int64 { return r.timeAt(r.pos) }

// EndTime returns the time of the last event.
func (r *Replay) EndTime() int64 { return r.timeAt(len(r.events)) }

// timeAt returns the time of event n (1-based, as Pos), 0 for none.
func (r *Replay) timeAt(n int) int64 {
	if n == 0 {
		return 0
	}
	return r.events[n-1].Time
}

// Seek moves to the state after n events, clamped to [0, Len].
func (r *Replay) Seek(n int) {
	n = min(max(n, 0), len(r.events))
	if n == r.pos {
		return
	}
	base := min(n/r.every, len(r.ckpts)-1)
	if n < r.pos || base*r.every > r.pos {
		r.cur, r.pos = r.ckpts[base].Clone(), base*r.every
	}
	for ; r.pos < n; r.pos++ {
		r.cur.apply(&r.events[r.pos])
	}
}

// SeekTime moves forward to the last event at or before time t; it never
// moves backwards, so a playing replay only folds new events.
func (r *Replay) SeekTime(t int64) {
	n := r.pos
	for n < len(r.events) && r.events[n].Time <= t {
		n++
	}
	r.Seek(n)
}

// PosAtTime returns the position of the last event at or before time t,
// by binary search: the collector delivers events in time order.
func (r *Replay) PosAtTime(t int64) int {
	return sort.Search(len(r.events), func(i int) bool { return r.events[i].Time > t })
}

// State returns the current fold, for tests. It must not be modified.
func (r *Replay) State() *State { return r.cur }

// Snapshot copies the state at the current position; its log is the
// latest matching events up to it.
func (r *Replay) Snapshot(q Query) *Snapshot {
	s := r.cur.snapshot(q)
	if q.Timeline.End == 0 {
		q.Timeline.End = r.Time() // the current event's, not the latest of those folded
	}
	r.timeline(q.Timeline)
	r.tl.fill(s, q.Timeline)
	r.samples.fill(s, uint64(r.pos))
	if fq := q.Follow; fq.Max > 0 && fq.Field != "" {
		s.FollowLog = r.follow(fq)
	}
	if sq := q.Slice; sq.Max > 0 {
		s.SliceLog = r.slice(sq)
	}
	if q.Log <= 0 {
		return s
	}
	mt := q.Filter.compile(r.cur.names())
	inScan := func(i int) bool { return r.pos-1-i < replayLogScan }
	s.Log = eventsUpTo(r.events, r.pos).lines(q.Log, r.pos, mt.match, inScan, r.cur)
	return s
}

// slice lists the latest sq.Max events of one loop in [From, To) up to
// the current event, as the live model's inspect query does; the whole
// trace is at hand, so nothing is ever missing from its start.
func (r *Replay) slice(sq SliceQuery) []LogLine {
	hi := min(sort.Search(r.pos, func(i int) bool { return r.events[i].Time >= sq.To }), r.pos)
	in := func(e *trace.Event) bool { return int(e.Loop) == sq.Loop }
	since := func(i int) bool { return r.events[i].Time >= sq.From }
	return eventsUpTo(r.events, r.pos).lines(sq.Max, hi, in, since, r.cur)
}

// follow lists the followed item's path up to the current event, from
// its first, as the live log gives it.
func (r *Replay) follow(fq FollowQuery) []LogLine {
	// The path reads every event up to the current one: a stopped replay,
	// drawn again and again at one event, reads them once.
	if c := &r.followed; c.ok && c.q == fq && c.pos == r.pos {
		return c.lines
	}
	lines := pathLines(fq.followPath(eventsUpTo(r.events, r.pos).from(0)), r.cur.LoopName)
	r.followed = followCache{ok: true, q: fq, pos: r.pos, lines: lines}
	return lines
}

// followCache is the latest followed path a replay listed, and for what.
type followCache struct {
	ok    bool
	q     FollowQuery
	pos   int
	lines []LogLine
}

// Breaks are the conditions the breakpoint menu offers. In a live run the
// loops' step gates judge them; in a replay FindBreak picks the events to
// jump to. Both apply the one rule of counters.Breakpoints.
type Breaks = counters.Breakpoints

// FindBreak returns the position (1-based, as Pos) of the first event after
// the current one at which a breakpoint fires, searching forward, or of the
// latest before the current one, searching backward. An event fires when
// folding it into its loop's counters makes b's rule fire, the rule the
// live gate applies at each boundary; reason is the rule's. ok is false
// when there is none.
func (r *Replay) FindBreak(forward bool, b Breaks) (pos int, reason string, ok bool) {
	if !b.Any() {
		return 0, "", false
	}
	if forward {
		return r.breakIn(r.cur, r.pos, len(r.events), b, true)
	}
	end := r.pos - 1 // the current event is events[pos-1]
	// Walk back one checkpoint interval at a time, each folded forward
	// from its checkpoint, and take the latest hit of the nearest one.
	for k := min((end-1)/r.every, len(r.ckpts)-1); k >= 0; k-- {
		if pos, reason, ok := r.breakIn(r.ckpts[k], k*r.every, min(end, (k+1)*r.every), b, false); ok {
			return pos, reason, true
		}
	}
	return 0, "", false
}

// breakIn folds events[from:to] into the counters of st, which stands at
// from, and returns the first (or, with first false, the last) position at
// which b fires, and why.
func (r *Replay) breakIn(st *State, from, to int, b Breaks, first bool) (pos int, reason string, ok bool) {
	r.scanBreaks(st, from, to, b, func(p int, why string) bool {
		pos, reason, ok = p, why, true
		return !first
	})
	return pos, reason, ok
}

// scanBreaks folds events[from:to] into the counters of st, which stands
// at from, and calls hit with each position at which b fires, until hit
// returns false.
func (r *Replay) scanBreaks(st *State, from, to int, b Breaks, hit func(pos int, why string) bool) {
	loops := make([]counters.Loop, len(st.loops))
	for i, l := range st.loops {
		loops[i] = counters.NewLoop()
		if l != nil {
			loops[i] = l.fold
		}
	}
	for i := from; i < to; i++ {
		e := &r.events[i]
		for int(e.Loop) >= len(loops) {
			loops = append(loops, counters.NewLoop())
		}
		l := &loops[e.Loop]
		prev := l.Stats
		l.Fold(e, st.LoopName(e.Loop))
		if why := b.Reason(&prev, &l.Stats); why != "" && !hit(i+1, why) {
			return
		}
	}
}

// BreakPositions returns the position (as Pos) of every event at which a
// breakpoint of b fires, in order, for the progress bar's marks; at most
// limit of them. It folds the whole trace once.
func (r *Replay) BreakPositions(b Breaks, limit int) []int {
	if !b.Any() || len(r.ckpts) == 0 || limit <= 0 {
		return nil
	}
	var out []int
	r.scanBreaks(r.ckpts[0], 0, len(r.events), b, func(pos int, _ string) bool {
		out = append(out, pos)
		return len(out) < limit
	})
	return out
}

// Replay timeline bounds: the lanes are large (tens of KiB a loop), so
// their checkpoints are fewer than the state's.
const (
	minTimelineEvery       = 1 << 16
	maxTimelineCheckpoints = 32
)

// laneFold is a timeline that folds its events itself, with where each
// loop stands at its own position: a replay's lanes may stand at an event
// before its state's (a query looking back), so they cannot read the
// state's standings as the live model's do.
type laneFold struct {
	tl timeline
	at []standing // by trace loop index
}

// apply folds one event of the loop named loop.
func (f *laneFold) apply(e *trace.Event, loop string) {
	if !moves(e.Kind) {
		return
	}
	for int(e.Loop) >= len(f.at) {
		f.at = append(f.at, standing{})
	}
	if mv, ok := f.at[e.Loop].fold(e, loop); ok {
		f.tl.record(e, mv)
	}
}

// standing returns where trace loop i stands.
func (f *laneFold) standing(i int) standing {
	if i < 0 || i >= len(f.at) {
		return standing{}
	}
	return f.at[i]
}

// fill draws a snapshot's lanes and splits, as timeline.fill.
func (f *laneFold) fill(s *Snapshot, q TimelineQuery) { f.tl.fill(s, q, f.standing) }

// clone returns an independent copy, for replay checkpoints.
func (f *laneFold) clone() laneFold {
	var c laneFold
	c.restore(f)
	return c
}

// restore makes f a copy of src, reusing f's lanes.
func (f *laneFold) restore(src *laneFold) {
	f.tl.restore(&src.tl)
	f.at = append(f.at[:0], src.at...)
}

// timeline brings the replay's timeline to the window a query asks for:
// the fold of the events up to the current one or, looking back, up to
// the last before the window's end.
func (r *Replay) timeline(q TimelineQuery) {
	if !q.wanted() {
		return
	}
	to := r.pos
	if end := q.end(r.Time()); q.Back > 0 || q.End != r.Time() {
		to = sort.Search(r.pos, func(i int) bool { return r.events[i].Time > end })
	}
	if to < r.tlPos {
		// Checkpoint 0 (the empty fold) was taken when the fold first
		// left position 0, so there is one at or before to.
		k := min(to/r.tlEvery, len(r.tlCkpts)-1)
		r.tl.restore(&r.tlCkpts[k])
		r.tlPos = k * r.tlEvery
	}
	for ; r.tlPos < to; r.tlPos++ {
		if r.tlPos%r.tlEvery == 0 && r.tlPos/r.tlEvery == len(r.tlCkpts) {
			r.tlCkpts = append(r.tlCkpts, r.tl.clone())
		}
		e := &r.events[r.tlPos]
		r.tl.apply(e, r.cur.LoopName(e.Loop)) // the names are the table's at any event
		r.tlFolded++
	}
}
