package phases

import (
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

func ev(t int64, k trace.Kind, set ...func(*trace.Event)) trace.Event {
	e := trace.Event{Time: t, Kind: k}
	for _, f := range set {
		f(&e)
	}
	return e
}

func flag(e *trace.Event) { e.Flag = true }

// The cursor cuts an iteration into spans and lights the ring as
// NioEventLoop.run goes: select, processSelectedKeys, runAllTasks.
func TestCursorIteration(t *testing.T) {
	var c Cursor
	if c.At() != trace.PhaseNone {
		t.Fatalf("a new loop is at %v", c.At())
	}
	steps := []struct {
		e      trace.Event
		closed *Span
		opened trace.Phase
		at     trace.Phase
		mark   Mark
	}{
		{ev(10, trace.KindSelectBegin), nil, trace.PhaseSelect, trace.PhaseSelect, 0},
		{ev(40, trace.KindSelectEnd, flag), &Span{10, 40, trace.PhaseSelect, false}, trace.PhaseNone, trace.PhaseSelect, MarkPremature},
		{ev(41, trace.KindIOBegin), nil, trace.PhaseIO, trace.PhaseIO, 0},
		{ev(50, trace.KindIOEnd), &Span{41, 50, trace.PhaseIO, false}, trace.PhaseNone, trace.PhaseTasks, 0},
		{ev(51, trace.KindTasksBegin, func(e *trace.Event) { e.B = 5 }), nil, trace.PhaseTasks, trace.PhaseTasks, 0},
		{ev(60, trace.KindTaskRun, func(e *trace.Event) { e.B = 6 }), nil, trace.PhaseNone, trace.PhaseTasks, MarkOverBudget},
		{ev(61, trace.KindDeadlineCheck, flag), nil, trace.PhaseNone, trace.PhaseTasks, MarkCut},
		{ev(70, trace.KindTasksEnd), &Span{51, 70, trace.PhaseTasks, false}, trace.PhaseNone, trace.PhaseTasks, 0},
	}
	for i, s := range steps {
		got := c.Apply(&s.e, "worker-0")
		if got.Closed != (s.closed != nil) || s.closed != nil && got.Span != *s.closed {
			t.Errorf("step %d (%v): closed %v %+v, want %+v", i, s.e.Kind, got.Closed, got.Span, s.closed)
		}
		if got.Opened != s.opened || c.At() != s.at || got.Mark != s.mark || !got.Read {
			t.Errorf("step %d (%v): opened %v at %v mark %v read %v, want %v %v %v", i, s.e.Kind, got.Opened, c.At(), got.Mark, got.Read, s.opened, s.at, s.mark)
		}
	}
}

// Lost events: a begin closes the phase still open as Cut, an end whose
// begin was lost is skipped, a termination closes the open phase.
func TestCursorLostEvents(t *testing.T) {
	var c Cursor
	apply := func(e trace.Event) Step { return c.Apply(&e, "worker-0") }
	apply(ev(10, trace.KindSelectBegin))
	if s := apply(ev(20, trace.KindIOEnd)); s.Closed {
		t.Errorf("io_end closed the select: %+v", s.Span)
	}
	if p, since := c.Open(); p != trace.PhaseSelect || since != 10 {
		t.Errorf("open %v since %d, want select since 10", p, since)
	}
	s := apply(ev(30, trace.KindTasksBegin))
	if !s.Closed || s.Span != (Span{10, 30, trace.PhaseSelect, true}) || s.Opened != trace.PhaseTasks {
		t.Errorf("tasks_begin over an open select: %+v", s)
	}
	s = apply(ev(40, trace.KindState, func(e *trace.Event) { e.B = int64(trace.StateShuttingDown) }))
	if s.Read || s.Closed {
		t.Errorf("a state before TERMINATED was read: %+v", s)
	}
	s = apply(ev(50, trace.KindState, func(e *trace.Event) { e.B = int64(trace.StateTerminated) }))
	if !s.Closed || s.Span != (Span{30, 50, trace.PhaseTasks, true}) || s.Mark != MarkStop || c.At() != trace.PhaseNone {
		t.Errorf("termination: %+v at %v", s, c.At())
	}
	if p, _ := c.Open(); p != trace.PhaseNone {
		t.Errorf("open %v after termination", p)
	}
	if s := apply(ev(60, trace.KindRead)); s.Read || Reads(trace.KindRead) {
		t.Errorf("read event read: %+v", s)
	}
}

func TestMarks(t *testing.T) {
	cases := []struct {
		e    trace.Event
		want Mark
	}{
		{ev(1, trace.KindWakeup, flag), MarkWakeup},
		{ev(1, trace.KindWakeup), 0},
		// The loop's own wakeup (4.1.43's selectNow re-waking its selector)
		// is not another thread's: no mark.
		{ev(1, trace.KindWakeup, flag, func(e *trace.Event) { e.Str = "worker-0" }), 0},
		{ev(1, trace.KindSelectEnd), 0},
		{ev(1, trace.KindDeadlineCheck), 0},
		{ev(1, trace.KindRebuildBegin), MarkRebuild},
		{ev(1, trace.KindRebuildEnd), MarkRebuild},
		{ev(1, trace.KindTaskPanic), MarkPanic},
		{ev(1, trace.KindDrop), MarkDrop},
		{ev(1, trace.KindTaskRun, func(e *trace.Event) { e.B = 1 << 40 }), 0}, // no budget yet
	}
	for _, tc := range cases {
		var c Cursor
		if !Reads(tc.e.Kind) {
			t.Errorf("%v not read", tc.e.Kind)
		}
		if got := c.Apply(&tc.e, "worker-0").Mark; got != tc.want {
			t.Errorf("%v flag %v: mark %v, want %v", tc.e.Kind, tc.e.Flag, got, tc.want)
		}
	}
}

func TestAtGate(t *testing.T) {
	for gate, want := range map[trace.Phase]trace.Phase{
		trace.PhaseSelect: trace.PhaseSelect, trace.PhaseIO: trace.PhaseIO,
		trace.PhaseTasks: trace.PhaseTasks, trace.PhaseEnd: trace.PhaseSelect,
	} {
		if got := AtGate(gate); got != want {
			t.Errorf("AtGate(%v) = %v, want %v", gate, got, want)
		}
	}
}

// The track keeps the latest SpanCap spans, oldest first, and finds the
// span at a time by binary search.
func TestTrackRingAndIndex(t *testing.T) {
	k := new(Track)
	k.AddSpan(Span{Start: 5, End: 5}) // lasts nothing: not kept
	if k.Spans() != 0 {
		t.Fatal("an empty span was kept")
	}
	n := SpanCap + 100
	for i := range n {
		k.AddSpan(Span{Start: int64(10 * i), End: int64(10*i + 10), Phase: trace.Phase(i % 3)})
	}
	if k.Spans() != SpanCap {
		t.Fatalf("holds %d spans, want %d", k.Spans(), SpanCap)
	}
	if t0, _ := k.OldestSpan(); t0 != 1000 {
		t.Errorf("oldest starts at %d, want 1000", t0)
	}
	for i := 1; i < k.Spans(); i++ {
		if k.Span(i).Start < k.Span(i-1).End {
			t.Fatalf("out of order at %d", i)
		}
	}
	for _, tc := range []struct {
		t    int64
		want int64 // start of the span found
	}{{0, 1000}, {1000, 1000}, {5555, 5550}, {5560, 5560}, {1 << 40, 10 * int64(n-1)}} {
		if got := k.Span(k.Find(tc.t)).Start; got != tc.want {
			t.Errorf("Find(%d) found the span at %d, want %d", tc.t, got, tc.want)
		}
	}
	// Spans out of time order turn the index off: every span is scanned.
	k.AddSpan(Span{Start: 3, End: 4})
	if k.Find(1<<40) != 0 {
		t.Error("index used over spans out of order")
	}
}

func TestTrackMarks(t *testing.T) {
	k := new(Track)
	for i := range MarkCap + 3 {
		k.AddMark(int64(i), MarkWakeup)
	}
	if !k.MarksFull() || k.Marks() != MarkCap || k.Mark(0).T != 3 || k.Mark(MarkCap-1).T != MarkCap+2 {
		t.Errorf("marks: full %v, %d held, from %d to %d", k.MarksFull(), k.Marks(), k.Mark(0).T, k.Mark(MarkCap-1).T)
	}
}

// Folding allocates nothing once a loop is known, however long the run.
func TestFoldAllocatesNothing(t *testing.T) {
	var c Cursor
	k := new(Track)
	iter := []trace.Event{
		ev(0, trace.KindSelectBegin), ev(0, trace.KindSelectEnd), ev(0, trace.KindIOBegin),
		ev(0, trace.KindIOEnd), ev(0, trace.KindTasksBegin), ev(0, trace.KindTaskRun),
		ev(0, trace.KindWakeup, flag), ev(0, trace.KindTasksEnd),
	}
	var now int64
	run := func() {
		for i := range iter {
			now += 7
			iter[i].Time = now
			k.Add(c.Apply(&iter[i], "worker-0"), now)
		}
	}
	if a := testing.AllocsPerRun(3*SpanCap, run); a != 0 {
		t.Errorf("%v allocations per iteration", a)
	}
	if k.Spans() != SpanCap || k.Marks() != MarkCap {
		t.Fatalf("%d spans, %d marks held", k.Spans(), k.Marks())
	}
}

// BenchmarkFold is one event through the cursor into the track.
func BenchmarkFold(b *testing.B) {
	var c Cursor
	k := new(Track)
	iter := []trace.Event{
		ev(0, trace.KindSelectBegin), ev(0, trace.KindSelectEnd), ev(0, trace.KindIOBegin),
		ev(0, trace.KindIOEnd), ev(0, trace.KindTasksBegin), ev(0, trace.KindTaskRun),
		ev(0, trace.KindTaskRun), ev(0, trace.KindTasksEnd),
	}
	var now int64
	b.ReportAllocs()
	for i := range b.N {
		e := &iter[i%len(iter)]
		now += 5
		e.Time = now
		k.Add(c.Apply(e, "worker-0"), now)
	}
}
