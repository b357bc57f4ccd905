package model

import (
	"slices"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
)

// Timeline bounds. The track (package phases) keeps the latest spans and
// marks exactly; for what is older the lane keeps three rings of time
// buckets, so a screen can span from about 100 µs to 10 s whatever the
// loop's rate.
const bucketN = 512

// bucketWidths are the widths of the bucket rings, finest first: 51 ms,
// 1 s, 20 s and 256 s of history, so a finished run can be scrolled back
// to its start at the widest zoom.
var bucketWidths = [...]int64{100e3, 2e6, 40e6, 500e6}

// Cell is one column of a lane: how long the loop spent in each phase in
// it, how long it stood parked at its step gate while the run clock ran
// (a breakpoint, a step, a timeline pause), and what happened. Width is
// how much of the column has happened: the column's span, less what of it
// lies after now. Known is false where the fold has no history.
type Cell struct {
	Select, IO, Tasks int64 // ns
	Parked            int64 // ns
	Width             int64 // ns
	Marks             phases.Mark
	Known             bool
}

// Busy is the share of the column's time the loop spent working, in I/O
// and in tasks: 0 to 1.
func (c Cell) Busy() float64 {
	if c.Width <= 0 {
		return 0
	}
	return min(float64(c.IO+c.Tasks)/float64(c.Width), 1)
}

// Dominant returns the phase the loop spent most of the column in, or
// PhaseNone when it spent none in any.
func (c Cell) Dominant() trace.Phase {
	switch {
	case c.Select == 0 && c.IO == 0 && c.Tasks == 0:
		return trace.PhaseNone
	case c.Tasks >= c.IO && c.Tasks >= c.Select:
		return trace.PhaseTasks
	case c.IO >= c.Select:
		return trace.PhaseIO
	}
	return trace.PhaseSelect
}

// TimelineQuery asks a snapshot for each loop's lane: Cols columns
// covering Span ns and ending Back ns before End, or before the snapshot's
// time when End is 0. A live screen sets End to the run's clock, so a loop
// asleep in select is drawn up to now, not up to its last event.
type TimelineQuery struct {
	Cols int
	Span int64
	Back int64
	End  int64
	// Now, if set, is where time stops: the window may end after it (an
	// aligned query's does), and nothing is drawn past it.
	Now int64
	// Split asks for each loop's time split over the last second before
	// the window's end, from its phase events.
	Split bool
}

// Aligned returns the query with its columns on a fixed grid of time: a
// whole number of nanoseconds per column, and a window ending on a
// column's edge (rounded up). As the clock moves by less than a column,
// every column but the last keeps its exact span, so a live picture
// shifts by whole columns or not at all: a step changes only the columns
// it ran in. End must be set.
func (q TimelineQuery) Aligned() TimelineQuery {
	if q.Cols <= 0 || q.Span < int64(q.Cols) || q.End <= 0 {
		return q
	}
	w := q.Span / int64(q.Cols)
	q.Span = w * int64(q.Cols)
	end := q.End - max(q.Back, 0)
	q.Now = q.End
	q.End += (w - end%w) % w
	return q
}

func (q TimelineQuery) wanted() bool { return q.Cols > 0 || q.Split }

// end is where the window ends for a snapshot taken at now.
func (q TimelineQuery) end(now int64) int64 {
	if q.End > 0 {
		now = q.End
	}
	return now - max(q.Back, 0)
}

// bucketRing holds the latest bucketN buckets of one width.
type bucketRing [bucketN]bucket

type bucket struct {
	n     int64 // the bucket's number (time / width); a slot holding another is stale
	ns    [3]int32
	marks phases.Mark
	// The first and last mark's offsets into the bucket: a column drawn
	// from a bucket wider than itself gets the marks only when it meets
	// that stretch, so a burst is not smeared over a bucket's width.
	mlo, mhi int32
}

// drawn are the marks a lane draws: all of them, the loop's termination
// too, so the blank after it has a cause on screen.
const drawn = ^phases.Mark(0)

// parkN bounds the parked stretches a lane remembers.
const parkN = 64

// park is one stretch the loop stood parked at its step gate.
type park struct{ from, to int64 }

// lane is the timeline of one loop: its latest spans and marks (the
// track), the bucket rings and its latest parked stretches. Where the
// loop stands now (the phase open, the park not yet ended) is its
// standing's, which the lane is drawn with. Its arrays are fixed, so
// recording an event costs the same and allocates nothing, however long
// the run.
type lane struct {
	track   phases.Track
	buckets [len(bucketWidths)]bucketRing
	parks   [parkN]park
	nParks  int // parks ever ended; the latest parkN are kept
	seen    bool
	last    int64
}

// timeline keeps phase spans, marks and parks per loop, by trace loop
// index: what each event did to where its loop stands. It folds no event
// itself: the live model's State folds each loop's standing, once (a
// replay's laneFold its own), and the timeline records the moves.
type timeline struct {
	lanes []*lane
}

func (tl *timeline) lane(i uint16) *lane {
	for int(i) >= len(tl.lanes) {
		tl.lanes = append(tl.lanes, nil)
	}
	if tl.lanes[i] == nil {
		tl.lanes[i] = &lane{}
	}
	return tl.lanes[i]
}

// record keeps what event e did to where its loop stands (m, from
// standing.fold): the stretch parked it ended, and the span it closed and
// its marks on the run's clock.
func (tl *timeline) record(e *trace.Event, m move) {
	l := tl.lane(e.Loop)
	if m.ended {
		l.parks[l.nParks%parkN] = m.park
		l.nParks++
	}
	st := m.step
	if !st.Read || !onClock(e.Time) {
		return // a replayed file may hold anything; the run's clock starts at 0
	}
	l.seen = true
	l.last = max(l.last, e.Time)
	if m := st.Mark & drawn; m != 0 {
		l.mark(e.Time, m)
	}
	if st.Closed && onClock(st.Span.Start) && st.Span.End > st.Span.Start {
		l.add(st.Span)
	}
}

// addParked adds to each column the time the loop stood parked in it, up
// to now; at is where the loop stands.
func (l *lane) addParked(at *standing, out []Cell, colAt func(int) int64, now int64) {
	add := func(from, to int64) {
		for c := range out {
			lo, hi := max(from, colAt(c)), min(to, colAt(c+1), now)
			if hi > lo {
				out[c].Parked += hi - lo
			}
		}
	}
	for i := max(l.nParks-parkN, 0); i < l.nParks; i++ {
		p := l.parks[i%parkN]
		if p.to > colAt(0) && p.from < colAt(len(out)) {
			add(p.from, p.to)
		}
	}
	if at.parked {
		add(at.parkedAt, now)
	}
}

// onClock reports whether t is a time the lanes can draw.
func onClock(t int64) bool { return t >= 0 && t <= maxTime }

func (l *lane) add(s phases.Span) {
	l.track.AddSpan(s)
	for k, w := range bucketWidths {
		ring := &l.buckets[k]
		first := max(s.Start/w, (s.End-1)/w-bucketN+1)
		for n := first; n <= (s.End-1)/w; n++ {
			b := ring.at(n)
			from, to := max(s.Start, n*w), min(s.End, (n+1)*w)
			b.ns[s.Phase] += int32(to - from)
		}
	}
}

func (l *lane) mark(t int64, m phases.Mark) {
	l.track.AddMark(t, m)
	for k, w := range bucketWidths {
		b := l.buckets[k].at(t / w)
		off := int32(t - b.n*w)
		if b.marks == 0 {
			b.mlo, b.mhi = off, off
		}
		b.marks |= m
		b.mlo, b.mhi = min(b.mlo, off), max(b.mhi, off)
	}
}

// at returns bucket n, reset if its slot held an older one.
func (r *bucketRing) at(n int64) *bucket {
	b := &r[n%bucketN]
	if b.n != n {
		*b = bucket{n: n}
	}
	return b
}

// cells draws the lane into cols columns over [end-span, end). Each column
// is read from the finest record that reaches back to its start: the
// slices and marks, then each bucket ring in turn. The phase still open,
// and a park, as the loop's standing at says, are drawn up to now (end
// when now is 0). A nil lane, a loop not seen, draws blank.
func (l *lane) cells(at *standing, cols int, span, end, now int64) []Cell {
	out := make([]Cell, cols)
	if l == nil || !l.seen || cols <= 0 || span <= 0 || span > maxTime/int64(cols) {
		return out
	}
	start := end - span
	colAt := func(c int) int64 { return start + span*int64(c)/int64(cols) }
	if now <= 0 || now > end {
		now = end
	}
	sliceFrom, markFrom := l.oldestSlice(at), l.oldestMark()
	exact := cols // the first column the slices cover
	for c := range out {
		from, to := colAt(c), max(colAt(c+1), colAt(c)+1)
		if from >= sliceFrom {
			exact = c
			break
		}
		l.fromBuckets(&out[c], from, to)
	}
	// One pass over the spans that reach the window, found by the track's
	// index, each spread over the columns it meets.
	colOf := func(t int64) int { return int((t - start) * int64(cols) / span) }
	for i := l.track.Find(colAt(exact)); i < l.track.Spans(); i++ {
		s := l.track.Span(i)
		if s.End <= colAt(exact) || s.Start >= end {
			continue
		}
		for c := max(colOf(s.Start), exact); c < cols && colAt(c) < s.End; c++ {
			out[c].addOverlap(s.Phase, max(s.Start, colAt(c)), min(s.End, colAt(c+1)))
		}
	}
	if p, since := at.cur.Open(); p != trace.PhaseNone && onClock(since) {
		until := now // a parked loop's open phase stopped when it parked
		if at.parked && at.parkedAt >= since {
			until = min(until, at.parkedAt)
		}
		for c := max(colOf(since), 0); c < cols; c++ {
			out[c].Known = true
			out[c].addOverlap(p, max(since, colAt(c)), min(colAt(c+1), until))
		}
	}
	l.addParked(at, out, colAt, now)
	for c := range out {
		out[c].Width = max(min(colAt(c+1), now)-colAt(c), 0)
		out[c].Known = out[c].Known || c >= exact
		// Marks: exact from the ring where it reaches; before that, from the
		// buckets (a burst of marks outruns the ring long before the slices).
		switch {
		case colAt(c) >= markFrom:
			out[c].Marks = 0
		case c >= exact:
			var b Cell
			l.fromBuckets(&b, colAt(c), max(colAt(c+1), colAt(c)+1))
			out[c].Marks = b.Marks
		}
	}
	for i := range l.track.Marks() {
		m := l.track.Mark(i)
		// The window's end is inclusive for marks: the event a replay
		// stands at is drawn.
		if m.T >= start && m.T <= end && m.T >= markFrom {
			if c := min(colOf(m.T), cols-1); c >= 0 {
				out[c].Marks |= m.M
			}
		}
	}
	return out
}

// oldestSlice is where the exact record begins: the oldest span kept, or
// the open phase's start (at's) before any span closed.
func (l *lane) oldestSlice(at *standing) int64 {
	if t, ok := l.track.OldestSpan(); ok {
		return t
	}
	_, since := at.cur.Open()
	return since
}

// oldestMark is where the mark ring's record begins.
func (l *lane) oldestMark() int64 {
	if !l.track.MarksFull() {
		return minTime
	}
	return l.track.Mark(0).T
}

// Times the fold takes: bucket arithmetic stays far from overflow.
const (
	minTime = -1 << 62
	maxTime = 1 << 60
)

// fromBuckets fills c from the finest bucket ring that reaches back to
// from, spreading each bucket over the column in proportion.
func (l *lane) fromBuckets(c *Cell, from, to int64) {
	if to <= 0 {
		return // before the run's clock started
	}
	from = max(from, 0)
	for k, w := range bucketWidths {
		ring := &l.buckets[k]
		newest := l.last / w
		if from/w <= newest-bucketN {
			continue
		}
		c.Known = true
		for n := from / w; n*w < to; n++ {
			b := &ring[n%bucketN]
			if b.n != n {
				continue
			}
			lo, hi := max(from, n*w), min(to, (n+1)*w)
			if hi <= lo {
				continue
			}
			c.Select += int64(b.ns[0]) * (hi - lo) / w
			c.IO += int64(b.ns[1]) * (hi - lo) / w
			c.Tasks += int64(b.ns[2]) * (hi - lo) / w
			if n*w+int64(b.mlo) < to && n*w+int64(b.mhi) >= from {
				c.Marks |= b.marks
			}
		}
		return
	}
}

func (c *Cell) addOverlap(p trace.Phase, lo, hi int64) {
	if hi <= lo {
		return
	}
	switch p {
	case trace.PhaseSelect:
		c.Select += hi - lo
	case trace.PhaseIO:
		c.IO += hi - lo
	case trace.PhaseTasks:
		c.Tasks += hi - lo
	}
}

// Lane is one loop's timeline in a snapshot.
type Lane struct {
	Cells []Cell
	Drops bool // the loop dropped events inside the window: slices may be missing
}

// fill draws every loop's lane of a snapshot, and its split of the last
// second before the window's end; at says where trace loop i stands.
func (tl *timeline) fill(s *Snapshot, q TimelineQuery, at func(i int) standing) {
	if !q.wanted() {
		return
	}
	for i := range s.Loops {
		idx := s.Loops[i].Index
		var l *lane // none for a loop not seen
		if idx < len(tl.lanes) {
			l = tl.lanes[idx]
		}
		st := at(idx)
		if q.Cols > 0 {
			ln := Lane{Cells: l.cells(&st, q.Cols, q.Span, q.end(s.Time), q.Now)}
			ln.Drops = slices.ContainsFunc(ln.Cells, func(c Cell) bool { return c.Marks&phases.MarkDrop != 0 })
			s.Loops[i].Lane = ln
		}
		if l != nil && l.seen { // else no split: the zero TimeSplit, and no cell to allocate
			s.Loops[i].Split = splitOf(l.cells(&st, 1, SplitWindow, q.end(s.Time), 0)[0], SplitWindow)
		}
	}
}

// restore makes tl a copy of src, reusing tl's lanes: a replay stepping
// back restores a checkpoint on every step.
func (tl *timeline) restore(src *timeline) {
	for len(tl.lanes) < len(src.lanes) {
		tl.lanes = append(tl.lanes, nil)
	}
	tl.lanes = tl.lanes[:len(src.lanes)]
	for i, l := range src.lanes {
		switch {
		case l == nil:
			tl.lanes[i] = nil
		case tl.lanes[i] == nil:
			cp := *l
			tl.lanes[i] = &cp
		default:
			*tl.lanes[i] = *l
		}
	}
}
