package model

import (
	"reflect"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
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
	var got []Phase
	var marks []Mark
	for _, c := range l.Lane.Cells {
		if !c.Known {
			t.Fatalf("column unknown: %+v", l.Lane.Cells)
		}
		got = append(got, c.Dominant())
		marks = append(marks, c.Marks)
	}
	want := []Phase{PhaseSelect, PhaseSelect, PhaseSelect, PhaseSelect, PhaseSelect, PhaseSelect,
		PhaseIO, PhaseTasks, PhaseTasks, PhaseTasks}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("phases %v, want %v", got, want)
	}
	wantMarks := []Mark{0, 0, 0, 0, 0, 0, 0, MarkWakeup, MarkOverBudget | MarkCut, 0}
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
	if c[3].Select != 100e6 || c[3].Dominant() != PhaseSelect {
		t.Errorf("open select column = %+v", c[3])
	}
	if !l.Lane.Drops || c[3].Marks&MarkDrop == 0 {
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
	var tl timeline
	evs := []trace.Event{
		evUS(2, 1, trace.KindSelectBegin, nil),
		evUS(2, 2, trace.KindSelectEnd, func(e *trace.Event) { e.Flag = true }),
		evUS(2, 3, trace.KindTasksBegin, nil),
		evUS(2, 4, trace.KindTaskRun, nil),
		evUS(2, 5, trace.KindTasksEnd, nil),
	}
	tl.apply(&evs[0])
	allocs := testing.AllocsPerRun(100, func() {
		for i := range evs {
			evs[i].Time += 10e3
			tl.apply(&evs[i])
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
		want := TimeSplit{Known: true, FromEvents: true, Select: 50, IO: 10, Tasks: 40}
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
		if c.Marks&MarkOverBudget == 0 {
			t.Errorf("column %d has no over-budget mark: %+v", i, c)
		}
	}
}
