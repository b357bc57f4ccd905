package model

import (
	"reflect"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
)

// µs builds an event of loop i at time t (µs).
func evUS(loop uint16, tus int64, k trace.Kind, set func(e *trace.Event)) trace.Event {
	e := trace.Event{Loop: loop, Time: tus * 1e3, Kind: k}
	if set != nil {
		set(&e)
	}
	return e
}

// One iteration of ten columns of 100 µs: six in select, one in I/O, three
// in tasks, with the cut and an over-budget task marked where they happen.
func TestTimelineSlicesAndMarks(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		evUS(1, 0, trace.KindSelectBegin, nil),
		evUS(1, 600, trace.KindSelectEnd, nil),
		evUS(1, 600, trace.KindIOBegin, nil),
		evUS(1, 700, trace.KindIOEnd, nil),
		evUS(1, 700, trace.KindTasksBegin, func(e *trace.Event) { e.B = 50e3 }),
		evUS(1, 750, trace.KindWakeup, func(e *trace.Event) { e.Flag = true }),
		evUS(1, 820, trace.KindTaskRun, func(e *trace.Event) { e.B = 80e3 }),
		evUS(1, 850, trace.KindDeadlineCheck, func(e *trace.Event) { e.Flag = true }),
		evUS(1, 1000, trace.KindTasksEnd, nil),
	})
	s := m.Snapshot(Query{Focus: -1, Timeline: TimelineQuery{Cols: 10, Span: 1e6}})
	l := loopByName(t, s, "worker-0")
	var got []trace.Phase
	var marks []phases.Mark
	for _, c := range l.Lane.Cells {
		if !c.Known {
			t.Fatalf("column unknown: %+v", l.Lane.Cells)
		}
		got = append(got, c.Dominant())
		marks = append(marks, c.Marks)
	}
	want := []trace.Phase{trace.PhaseSelect, trace.PhaseSelect, trace.PhaseSelect, trace.PhaseSelect, trace.PhaseSelect, trace.PhaseSelect,
		trace.PhaseIO, trace.PhaseTasks, trace.PhaseTasks, trace.PhaseTasks}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("phases %v, want %v", got, want)
	}
	wantMarks := []phases.Mark{0, 0, 0, 0, 0, 0, 0, phases.MarkWakeup, phases.MarkOverBudget | phases.MarkCut, 0}
	if !reflect.DeepEqual(marks, wantMarks) {
		t.Errorf("marks %v, want %v", marks, wantMarks)
	}
	if l.Lane.Drops {
		t.Error("drops reported with none")
	}
}

// Past the ring of slices, the lane is drawn from the bucket rings; the
// open phase is drawn up to now; a drop is said on the lane.
func TestTimelineOldHistoryAndOpenPhase(t *testing.T) {
	m := New(testLoops)
	var evs []trace.Event
	// 3000 iterations of 100 µs: 50 select, 50 tasks; more than the ring holds.
	for i := range int64(3000) {
		at := i * 100
		evs = append(evs,
			evUS(1, at, trace.KindSelectBegin, nil),
			evUS(1, at+50, trace.KindSelectEnd, nil),
			evUS(1, at+50, trace.KindTasksBegin, nil),
			evUS(1, at+100, trace.KindTasksEnd, nil))
	}
	evs = append(evs, evUS(1, 300_000, trace.KindSelectBegin, nil), evUS(1, 300_000, trace.KindDrop, func(e *trace.Event) { e.A = 3 }))
	m.Consume(evs)
	m.Consume([]trace.Event{evUS(0, 400_000, trace.KindSelectBegin, nil)}) // moves time on
	s := m.Snapshot(Query{Focus: -1, Timeline: TimelineQuery{Cols: 4, Span: 400e6}})
	l := loopByName(t, s, "worker-0")
	c := l.Lane.Cells
	// Columns of 100 ms: the first three from buckets, half select half
	// tasks; the last one, the open select.
	for i := range 3 {
		if !c[i].Known || c[i].Select != 50e6 || c[i].Tasks != 50e6 {
			t.Errorf("column %d = %+v, want 50 ms select and 50 ms tasks", i, c[i])
		}
	}
	if c[3].Select != 100e6 || c[3].Dominant() != trace.PhaseSelect {
		t.Errorf("open select column = %+v", c[3])
	}
	if !l.Lane.Drops || c[3].Marks&phases.MarkDrop == 0 {
		t.Errorf("drop not on the lane: %+v", l.Lane)
	}
	// Scrolled back 300 ms: the first 100 ms of the run in one column.
	s = m.Snapshot(Query{Focus: -1, Timeline: TimelineQuery{Cols: 1, Span: 100e6, Back: 300e6}})
	if c := loopByName(t, s, "worker-0").Lane.Cells[0]; c.Select != 50e6 || c.Tasks != 50e6 {
		t.Errorf("scrolled back: %+v", c)
	}
}

// Folding an event allocates nothing once its loop has a lane.
func TestTimelineFoldDoesNotAllocate(t *testing.T) {
	var tl laneFold
	evs := []trace.Event{
		evUS(2, 1, trace.KindSelectBegin, nil),
		evUS(2, 2, trace.KindSelectEnd, func(e *trace.Event) { e.Flag = true }),
		evUS(2, 3, trace.KindTasksBegin, nil),
		evUS(2, 4, trace.KindTaskRun, nil),
		evUS(2, 5, trace.KindTasksEnd, nil),
	}
	tl.apply(&evs[0], "worker-1")
	allocs := testing.AllocsPerRun(100, func() {
		for i := range evs {
			evs[i].Time += 10e3
			tl.apply(&evs[i], "worker-1")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per iteration", allocs)
	}
}

// A replay draws the same lanes as the live fold of the same events.
func TestReplayTimelineEqualsLive(t *testing.T) {
	events := genTrace(20_000, 11)
	m := New(testLoops)
	m.Consume(events)
	r := NewReplay(testLoops, events, 0)
	r.Seek(len(events))
	for _, span := range []int64{1e6, 50e6, 200e6} {
		q := Query{Focus: -1, Timeline: TimelineQuery{Cols: 50, Span: span}}
		live, rep := m.Snapshot(q), r.Snapshot(q)
		for i := range live.Loops {
			if !reflect.DeepEqual(live.Loops[i].Lane, rep.Loops[i].Lane) {
				t.Fatalf("span %d, loop %s: live %+v\nreplay %+v", span, live.Loops[i].Name,
					live.Loops[i].Lane.Cells[:5], rep.Loops[i].Lane.Cells[:5])
			}
		}
	}
}

// A replay's lanes at any event are the live fold's of the events up to
// it, whatever way the cursor came there: played forward, sought back over
// a timeline checkpoint, or jumped ahead. The boss selects once and sleeps
// while the workers turn thousands of times: the lanes still know it is
// in select.
func TestReplayTimelineAtAnyEventIsTheLiveFold(t *testing.T) {
	events := []trace.Event{{Time: 1, Loop: 0, Kind: trace.KindSelectBegin, Str: "select"}}
	for _, e := range iterations(200_000) {
		e.Loop = 1 + e.Loop%2
		events = append(events, e)
	}
	r := NewReplay(testLoops, events, 0)
	q := Query{Focus: -1, Timeline: TimelineQuery{Cols: 40, Span: 20e6, Split: true}}
	for _, pos := range []int{1000, 150_000, 70_000, len(events), 65_536, 65_535, 131_073, 20, 190_000} {
		r.Seek(pos)
		rep := r.Snapshot(q)
		m := New(testLoops)
		m.Consume(events[:pos])
		lq := q
		lq.Timeline.End = r.Time()
		live := m.Snapshot(lq)
		for i := range live.Loops {
			if !reflect.DeepEqual(live.Loops[i].Lane, rep.Loops[i].Lane) || live.Loops[i].Split != rep.Loops[i].Split ||
				live.Loops[i].Phase != rep.Loops[i].Phase {
				t.Fatalf("at %d, loop %s: live %v %+v %+v\nreplay %v %+v %+v", pos, live.Loops[i].Name,
					live.Loops[i].Phase, live.Loops[i].Split, live.Loops[i].Lane.Cells[:3],
					rep.Loops[i].Phase, rep.Loops[i].Split, rep.Loops[i].Lane.Cells[:3])
			}
		}
		boss := rep.Loops[0].Lane.Cells
		if c := boss[len(boss)-1]; pos >= 1000 && (c.Dominant() != trace.PhaseSelect || c.Select != 20e6/40) {
			t.Errorf("at %d the boss is not drawn in select: %+v", pos, c)
		}
	}
	// Playing on folds only the events the cursor passes.
	r.Seek(100_000)
	r.Snapshot(q)
	before := r.tlFolded
	r.Seek(100_500)
	r.Snapshot(q)
	if n := r.tlFolded - before; n != 500 {
		t.Errorf("a frame 500 events on folded %d into the timeline", n)
	}
}

// An end whose begin was lost does not cut the phase that is open: the
// phase runs on to the next begin, as the Chrome export draws it.
func TestTimelineEndWithoutBeginIsSkipped(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		evUS(1, 0, trace.KindSelectBegin, nil),
		evUS(1, 500, trace.KindIOEnd, nil), // io_begin lost
		evUS(1, 800, trace.KindTasksBegin, nil),
		evUS(1, 1000, trace.KindTasksEnd, nil),
	})
	s := m.Snapshot(Query{Focus: -1, Timeline: TimelineQuery{Cols: 10, Span: 1e6}})
	c := loopByName(t, s, "worker-0").Lane.Cells
	if c[6].Select != 100e3 || c[8].Tasks != 100e3 {
		t.Errorf("lane %+v", c)
	}
}

// The last second's split comes from the phase events when asked for,
// in a live fold as in a replay.
func TestSplitFromEvents(t *testing.T) {
	evs := []trace.Event{
		evUS(1, 0, trace.KindSelectBegin, nil),
		evUS(1, 500_000, trace.KindSelectEnd, nil),
		evUS(1, 500_000, trace.KindIOBegin, nil),
		evUS(1, 600_000, trace.KindIOEnd, nil),
		evUS(1, 600_000, trace.KindTasksBegin, nil),
		evUS(1, 1_000_000, trace.KindTasksEnd, nil),
	}
	m := New(testLoops)
	m.Consume(evs)
	r := NewReplay(testLoops, evs, 0)
	r.Seek(len(evs))
	q := Query{Focus: -1, Timeline: TimelineQuery{Split: true}}
	for name, s := range map[string]*Snapshot{"live": m.Snapshot(q), "replay": r.Snapshot(q)} {
		got := loopByName(t, s, "worker-0").Split
		want := TimeSplit{Known: true, Select: 50, IO: 10, Tasks: 40}
		if got != want {
			t.Errorf("%s: split %+v, want %+v", name, got, want)
		}
	}
}

// A burst of marks outruns the mark ring: older columns still show them,
// from the buckets.
func TestTimelineMarksOlderThanTheRing(t *testing.T) {
	m := New(testLoops)
	evs := []trace.Event{evUS(1, 0, trace.KindTasksBegin, func(e *trace.Event) { e.B = 1 })}
	for i := range int64(2000) {
		evs = append(evs, evUS(1, 10+i*10, trace.KindTaskRun, func(e *trace.Event) { e.B = 10e3 }))
	}
	evs = append(evs, evUS(1, 20_010, trace.KindTasksEnd, nil))
	m.Consume(evs)
	s := m.Snapshot(Query{Focus: -1, Timeline: TimelineQuery{Cols: 10, Span: 20e6}})
	for i, c := range loopByName(t, s, "worker-0").Lane.Cells {
		if c.Marks&phases.MarkOverBudget == 0 {
			t.Errorf("column %d has no over-budget mark: %+v", i, c)
		}
	}
}

// A burst that outruns the mark ring, seen seconds later through the
// coarse buckets, marks the columns it fell in and not its neighbours:
// a column drawn from a 40 ms bucket does not show a burst in the next.
func TestTimelineBucketMarksStayInTheirColumns(t *testing.T) {
	m := New(testLoops)
	var evs []trace.Event
	const burst = 1_025_000 // µs: the premature returns all fall at 1.025 s
	for i := range int64(600) {
		evs = append(evs,
			evUS(1, burst+i/100, trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 1e9 }),
			evUS(1, burst+i/100, trace.KindSelectEnd, func(e *trace.Event) { e.Flag = true }))
	}
	evs = append(evs, evUS(1, burst+10, trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 1e9 }),
		evUS(1, 3_000_000, trace.KindSelectEnd, nil))
	m.Consume(evs)
	// 300 columns of 10 ms, ending at 3.0 s: the 2 ms ring no longer
	// reaches back to 1.0 s, so the 40 ms one draws it.
	s := m.Snapshot(Query{Focus: -1, Timeline: TimelineQuery{Cols: 300, Span: 3e9, End: 3e9}})
	for i, c := range loopByName(t, s, "worker-0").Lane.Cells {
		if has, want := c.Marks&phases.MarkPremature != 0, i == 102; has != want {
			t.Errorf("column %d (%d–%d ms): premature mark %v, want %v", i, i*10, i*10+10, has, want)
		}
	}
}

// An aligned query puts its columns on a fixed grid: two ends less than a
// column apart give the same columns, and each column spans exactly the
// same whole number of nanoseconds.
func TestAlignedQueryKeepsColumnsOnAGrid(t *testing.T) {
	q := TimelineQuery{Cols: 7, Span: 1000, Back: 30, End: 5003}
	a := q.Aligned()
	w := a.Span / int64(a.Cols)
	if a.Span != 994 || w != 142 {
		t.Fatalf("Aligned span %d (%d a column), want 994 (142)", a.Span, w)
	}
	if end := a.End - a.Back; end%w != 0 || end < q.End-q.Back || end-(q.End-q.Back) >= w {
		t.Errorf("window ends at %d: not the column edge at or after %d", end, q.End-q.Back)
	}
	q.End += 100 // less than a column later, still before the same edge
	if b := q.Aligned(); b.End != a.End {
		t.Errorf("an end %d ns later moved the grid: %d then %d", 100, a.End, b.End)
	}
	if z := (TimelineQuery{Cols: 7, Span: 1000}).Aligned(); z.End != 0 || z.Span != 1000 {
		t.Errorf("a query without an end changed: %+v", z)
	}
}

// A loop parked at its gate while the run clock runs (a breakpoint) has
// that time in each column's Parked, up to now; each column's Width is
// what of it has happened, so a column's busy share is of real time.
func TestTimelineParkedAndBusy(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		evUS(1, 0, trace.KindSelectBegin, nil),
		evUS(1, 100, trace.KindSelectEnd, nil),
		evUS(1, 100, trace.KindIOBegin, nil),
		evUS(1, 125, trace.KindIOEnd, nil),
		evUS(1, 125, trace.KindPause, func(e *trace.Event) { e.A = int64(trace.PhaseTasks) }),
		evUS(1, 300, trace.KindResume, func(e *trace.Event) { e.A = int64(trace.PhaseTasks) }),
		evUS(1, 300, trace.KindTasksBegin, nil),
		evUS(1, 400, trace.KindTasksEnd, nil),
		evUS(1, 400, trace.KindPause, func(e *trace.Event) { e.A = int64(trace.PhaseEnd) }),
	})
	// Ten columns of 100 µs up to 1 ms, time stopping at 650 µs.
	s := m.Snapshot(Query{Focus: -1, Timeline: TimelineQuery{Cols: 10, Span: 1e6, End: 1e6, Now: 650e3}})
	cells := loopByName(t, s, "worker-0").Lane.Cells
	type col struct{ parked, width, busyPct int64 }
	var got []col
	for _, c := range cells {
		got = append(got, col{c.Parked / 1e3, c.Width / 1e3, int64(c.Busy()*100 + 0.5)})
	}
	want := []col{{0, 100, 0}, {75, 100, 25}, {100, 100, 0}, {0, 100, 100}, {100, 100, 0},
		{100, 100, 0}, {50, 50, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns (parked µs, width µs, busy %%)\n got %v\nwant %v", got, want)
	}
}

// A loop with no lane yet (nothing of it folded) has no split to draw,
// and asking for the splits costs such a loop nothing.
func TestSplitOfUnseenLoopsAllocatesNothing(t *testing.T) {
	m := New(testLoops)
	plain, split := Query{Focus: -1}, Query{Focus: -1, Timeline: TimelineQuery{Split: true}}
	if s := m.Snapshot(split); len(s.Loops) == 0 || s.Loops[0].Split != (TimeSplit{}) {
		t.Fatalf("loops %+v", s.Loops)
	}
	a, b := testing.AllocsPerRun(50, func() { m.Snapshot(plain) }), testing.AllocsPerRun(50, func() { m.Snapshot(split) })
	if b != a {
		t.Errorf("%v allocations a snapshot with the splits, %v without", b, a)
	}
}
