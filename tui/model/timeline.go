package model

import "github.com/reactorviz/reactorviz/reactor/trace"

// Mark is a set of things that happened on a loop at one moment of its
// timeline, drawn as a glyph over the phase slices.
type Mark uint8

// Marks, from the least to the most urgent: a column that holds several
// draws the most urgent.
const (
	MarkWakeup     Mark = 1 << iota // another thread wrote the loop's eventfd (C9)
	MarkPremature                   // select returned with nothing ready (C11)
	MarkOverBudget                  // one task ran longer than the batch's ioRatio budget (C7)
	MarkCut                         // the 64-task deadline check stopped a batch (C8)
	MarkRebuild                     // the selector was rebuilt (C12)
	MarkPanic                       // a task panicked (C14)
	MarkDrop                        // the loop's ring dropped events here
)

// Timeline bounds. The fold keeps the latest phase slices exactly and, for
// what is older, three rings of time buckets, so a screen can span from
// about 100 µs to 10 s whatever the loop's rate.
const (
	sliceRing = 1024
	markRing  = 256
	bucketN   = 512
)

// bucketWidths are the widths of the bucket rings, finest first: 51 ms,
// 1 s and 20 s of history.
var bucketWidths = [...]int64{100e3, 2e6, 40e6}

// Cell is one column of a lane: how long the loop spent in each phase in
// it, and what happened. Known is false where the fold has no history.
type Cell struct {
	Select, IO, Tasks int64 // ns
	Marks             Mark
	Known             bool
}

// Dominant returns the phase the loop spent most of the column in, or
// PhaseNone when it spent none in any.
func (c Cell) Dominant() Phase {
	switch {
	case c.Select == 0 && c.IO == 0 && c.Tasks == 0:
		return PhaseNone
	case c.Tasks >= c.IO && c.Tasks >= c.Select:
		return PhaseTasks
	case c.IO >= c.Select:
		return PhaseIO
	}
	return PhaseSelect
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
	// Split asks for each loop's time split over the last second before
	// the window's end, from its phase events.
	Split bool
}

func (q TimelineQuery) wanted() bool { return q.Cols > 0 || q.Split }

// end is where the window ends for a snapshot taken at now.
func (q TimelineQuery) end(now int64) int64 {
	if q.End > 0 {
		now = q.End
	}
	return now - max(q.Back, 0)
}

type slice struct {
	from, to int64
	phase    Phase
}

type markAt struct {
	t int64
	m Mark
}

// bucketRing holds the latest bucketN buckets of one width.
type bucketRing [bucketN]bucket

type bucket struct {
	n     int64 // the bucket's number (time / width); a slot holding another is stale
	ns    [3]int32
	marks Mark
}

// lane is the timeline fold of one loop: the phase it is in since when,
// the latest slices and marks, and the bucket rings. Its arrays are fixed,
// so folding an event costs the same and allocates nothing, however long
// the run.
type lane struct {
	phase  Phase
	since  int64
	budget int64 // budget_ns of the current runAllTasks; <=0 none
	last   int64

	slices  [sliceRing]slice
	nslices int
	marks   [markRing]markAt
	nmarks  int
	buckets [len(bucketWidths)]bucketRing
	seen    bool
	origin  int64 // nothing before it was folded (a replay's window)
}

// timeline folds phase slices and marks per loop, by trace loop index.
type timeline struct {
	lanes  []*lane
	origin int64
}

func (tl *timeline) lane(i uint16) *lane {
	for int(i) >= len(tl.lanes) {
		tl.lanes = append(tl.lanes, nil)
	}
	if tl.lanes[i] == nil {
		tl.lanes[i] = &lane{origin: tl.origin}
	}
	return tl.lanes[i]
}

// apply folds one event. Only the events of the iteration of
// NioEventLoop.run and its marks are read; every other kind is skipped.
func (tl *timeline) apply(e *trace.Event) {
	var to Phase
	var m Mark
	switch e.Kind {
	case trace.KindSelectBegin:
		to = PhaseSelect
	case trace.KindIOBegin:
		to = PhaseIO
	case trace.KindTasksBegin:
		to = PhaseTasks
	case trace.KindSelectEnd:
		if e.Flag {
			m = MarkPremature
		}
	case trace.KindIOEnd, trace.KindTasksEnd:
	case trace.KindDeadlineCheck:
		if e.Flag {
			m = MarkCut
		}
	case trace.KindTaskRun:
	case trace.KindWakeup:
		if e.Flag {
			m = MarkWakeup
		}
	case trace.KindRebuildBegin, trace.KindRebuildEnd:
		m = MarkRebuild
	case trace.KindTaskPanic:
		m = MarkPanic
	case trace.KindDrop:
		m = MarkDrop
	case trace.KindState:
		if trace.State(e.B) < trace.StateTerminated {
			return
		}
	default:
		return
	}
	if e.Time < 0 || e.Time > maxTime {
		return // a replayed file may hold anything; the run's clock starts at 0
	}
	l := tl.lane(e.Loop)
	l.seen = true
	l.last = max(l.last, e.Time)
	switch e.Kind {
	case trace.KindTasksBegin:
		l.budget = e.B
	case trace.KindTaskRun:
		if l.budget > 0 && e.B > l.budget {
			m = MarkOverBudget
		}
	}
	if m != 0 {
		l.mark(e.Time, m)
	}
	switch e.Kind {
	case trace.KindSelectBegin, trace.KindIOBegin, trace.KindTasksBegin,
		trace.KindSelectEnd, trace.KindIOEnd, trace.KindTasksEnd, trace.KindState:
		l.enter(to, e.Time)
	}
}

// enter closes the open slice at t and opens one of phase p (PhaseNone: a
// gap between phases, or the end of the loop).
func (l *lane) enter(p Phase, t int64) {
	if l.phase != PhaseNone && t > l.since {
		l.add(slice{from: l.since, to: t, phase: l.phase})
	}
	l.phase, l.since = p, t
}

func (l *lane) add(s slice) {
	l.slices[l.nslices%sliceRing] = s
	l.nslices = wrapCount(l.nslices, sliceRing)
	for k, w := range bucketWidths {
		ring := &l.buckets[k]
		first := max(s.from/w, (s.to-1)/w-bucketN+1)
		for n := first; n <= (s.to-1)/w; n++ {
			b := ring.at(n)
			from, to := max(s.from, n*w), min(s.to, (n+1)*w)
			b.ns[s.phase-PhaseSelect] += int32(to - from)
		}
	}
}

func (l *lane) mark(t int64, m Mark) {
	l.marks[l.nmarks%markRing] = markAt{t: t, m: m}
	l.nmarks = wrapCount(l.nmarks, markRing)
	for k, w := range bucketWidths {
		l.buckets[k].at(t / w).marks |= m
	}
}

// wrapCount advances a ring's count, keeping it bounded without losing the
// ring's position.
func wrapCount(n, size int) int {
	n++
	if n >= 2*size {
		n -= size
	}
	return n
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
// slices and marks, then each bucket ring in turn. The phase still open is
// drawn up to end.
func (l *lane) cells(cols int, span, end int64) []Cell {
	out := make([]Cell, cols)
	if cols <= 0 || span <= 0 || span > maxTime/int64(cols) || !l.seen {
		return out
	}
	start := end - span
	colAt := func(c int) int64 { return start + span*int64(c)/int64(cols) }
	sliceFrom, markFrom := l.oldestSlice(), l.oldestMark()
	exact := cols // the first column the slices cover
	for c := range out {
		from, to := colAt(c), max(colAt(c+1), colAt(c)+1)
		if from >= sliceFrom {
			exact = c
			break
		}
		l.fromBuckets(&out[c], from, to)
	}
	for c := exact; c < cols; c++ {
		out[c].Known = true
	}
	defer func() {
		for c := range out {
			if colAt(c+1) <= l.origin {
				out[c] = Cell{}
			}
		}
	}()
	// One pass over the slices, each spread over the columns it meets.
	colOf := func(t int64) int { return int((t - start) * int64(cols) / span) }
	for i := range min(l.nslices, sliceRing) {
		s := &l.slices[i]
		if s.to <= colAt(exact) || s.from >= end {
			continue
		}
		for c := max(colOf(s.from), exact); c < cols && colAt(c) < s.to; c++ {
			out[c].addOverlap(s.phase, max(s.from, colAt(c)), min(s.to, colAt(c+1)))
		}
	}
	if l.phase != PhaseNone {
		for c := max(colOf(l.since), 0); c < cols; c++ {
			out[c].Known = true
			out[c].addOverlap(l.phase, max(l.since, colAt(c)), colAt(c+1))
		}
	}
	// Marks: exact from the ring where it reaches; before that, from the
	// buckets (a burst of marks outruns the ring long before the slices).
	for c := range out {
		switch {
		case colAt(c) >= markFrom:
			out[c].Marks = 0
		case c >= exact:
			out[c].Marks = l.bucketMarks(colAt(c), max(colAt(c+1), colAt(c)+1))
		}
	}
	for i := range min(l.nmarks, markRing) {
		m := &l.marks[i]
		// The window's end is inclusive for marks: the event a replay
		// stands at is drawn.
		if m.t >= start && m.t <= end && m.t >= markFrom {
			if c := min(colOf(m.t), cols-1); c >= 0 {
				out[c].Marks |= m.m
			}
		}
	}
	return out
}

func (l *lane) oldestSlice() int64 {
	if l.nslices == 0 {
		return l.since
	}
	if l.nslices < sliceRing {
		return l.slices[0].from
	}
	return l.slices[l.nslices%sliceRing].from
}

func (l *lane) oldestMark() int64 {
	if l.nmarks < markRing {
		return minTime
	}
	return l.marks[l.nmarks%markRing].t
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
			c.Marks |= b.marks
		}
		return
	}
}

// bucketMarks returns the marks of [from, to) from the finest bucket ring
// that reaches back to from.
func (l *lane) bucketMarks(from, to int64) Mark {
	var c Cell
	l.fromBuckets(&c, from, to)
	return c.Marks
}

func (c *Cell) addOverlap(p Phase, lo, hi int64) {
	if hi <= lo {
		return
	}
	switch p {
	case PhaseSelect:
		c.Select += hi - lo
	case PhaseIO:
		c.IO += hi - lo
	case PhaseTasks:
		c.Tasks += hi - lo
	}
}

// Lane is one loop's timeline in a snapshot.
type Lane struct {
	Cells []Cell
	Drops bool // the loop dropped events inside the window: slices may be missing
}

// laneOf draws trace loop i's lane for a query at time now.
func (tl *timeline) laneOf(i int, q TimelineQuery, now int64) Lane {
	if q.Cols <= 0 || i >= len(tl.lanes) || tl.lanes[i] == nil {
		return Lane{Cells: make([]Cell, max(q.Cols, 0))}
	}
	l := tl.lanes[i]
	ln := Lane{Cells: l.cells(q.Cols, q.Span, q.end(now))}
	for _, c := range ln.Cells {
		if c.Marks&MarkDrop != 0 {
			ln.Drops = true
		}
	}
	return ln
}

// fill draws every loop's lane of a snapshot, and its split of the last
// second before the window's end.
func (tl *timeline) fill(s *Snapshot, q TimelineQuery) {
	if !q.wanted() {
		return
	}
	for i := range s.Loops {
		idx := s.Loops[i].Index
		if q.Cols > 0 {
			s.Loops[i].Lane = tl.laneOf(idx, q, s.Time)
		}
		if idx < len(tl.lanes) && tl.lanes[idx] != nil {
			c := tl.lanes[idx].cells(1, SplitWindow, q.end(s.Time))
			s.Loops[i].Split = splitOf(c[0], SplitWindow)
		}
	}
}

// reset empties the fold for reuse; nothing before origin will be known.
func (tl *timeline) reset(origin int64) {
	tl.origin = origin
	for _, l := range tl.lanes {
		if l != nil {
			*l = lane{origin: origin}
		}
	}
}
