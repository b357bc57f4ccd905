package counters

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// Fold tells a task's panic from a handler's, the loop's own wakeup from
// another thread's, and keeps a hostile trace's negative figures out.
func TestStatsFold(t *testing.T) {
	var s Stats
	for _, e := range []trace.Event{
		{Kind: trace.KindTaskPanic, A: 7, Str: "task"},
		{Kind: trace.KindTaskPanic, Str: "handler panic: boom"},
		{Kind: trace.KindWakeup, Str: "worker-0", Flag: true},
		{Kind: trace.KindWakeup, Str: "main", Flag: true},
		{Kind: trace.KindWakeup, Str: "main"},
		{Kind: trace.KindClose},
		{Kind: trace.KindRead, C: -5},
		{Kind: trace.KindIOEnd, B: -1},
		{Kind: trace.KindRebuildEnd, B: -3},
		{Kind: trace.KindSelectEnd, C: 40, Flag: true},
		{Kind: trace.KindRebuildBegin, A: 512},
		{Kind: trace.KindConnect, A: 3, B: 20},
		{Kind: trace.KindRingEnter, A: 3, B: 1, C: 2},
		{Kind: trace.KindRingEnter, A: -1, C: -4},
	} {
		s.Fold(&e, "worker-0")
	}
	want := Stats{TaskPanics: 1, HandlerPanics: 1, SelfWakeups: 1, WakeupsWritten: 1,
		WakeupsCoalesced: 1, Closed: 1, Rebuilds: 1, Premature: 1, MaxSelectCnt: 512, Connected: 1,
		RingSubmitted: 3, RingCompleted: 2}
	if s != want {
		t.Fatalf("folded\n%+v\nwant\n%+v", s, want)
	}
}

// Every field of Set is in the table once, under its JSON key, with a doc,
// and the table's Get reads that field; the engine's atomics load into the
// field of the same name. The summary's JSON, the expectation keys and their
// help are all read from the table, so none of them can drift from Set.
func TestTableMatchesStats(t *testing.T) {
	typ := reflect.TypeFor[Stats]()
	tags := map[string]int{}
	for i := range typ.NumField() {
		tags[typ.Field(i).Tag.Get("json")] = i
	}
	if len(table) != len(tags) || len(table) != N {
		t.Errorf("table has %d counters, Stats %d fields, N is %d", len(table), len(tags), N)
	}
	var a Atomics
	av := reflect.ValueOf(&a).Elem()
	for i := range av.NumField() {
		av.Field(i).Addr().Interface().(*atomic.Int64).Store(int64(1000 + i))
	}
	loaded := a.Load()
	seen := map[string]bool{}
	extras := false
	for _, c := range table {
		if seen[c.Name] {
			t.Errorf("%s is in the table twice", c.Name)
		}
		seen[c.Name] = true
		if extras && !c.Extra {
			t.Errorf("%s, of the stable set, is listed after an extra", c.Name)
		}
		extras = extras || c.Extra
		i, ok := tags[c.Name]
		if !ok {
			t.Errorf("%s has no field in Stats", c.Name)
			continue
		}
		if c.Doc == "" {
			t.Errorf("%s has no doc", c.Name)
		}
		var s Stats
		reflect.ValueOf(&s).Elem().Field(i).SetInt(int64(i + 1))
		if got := c.Get(&s); got != int64(i+1) {
			t.Errorf("%s reads field %d's neighbour: got %d", c.Name, i, got)
		}
		name := typ.Field(i).Name
		if got, want := c.Get(&loaded), av.FieldByName(name).Addr().Interface().(*atomic.Int64).Load(); got != want {
			t.Errorf("%s: the engine's %s loads as %d, want %d", c.Name, name, got, want)
		}
		if _, ok := Lookup(c.Name); !ok {
			t.Errorf("Lookup(%s) fails", c.Name)
		}
	}
	b, err := json.Marshal(Stats{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if !seen[k] {
			t.Errorf("JSON key %s is not in the table", k)
		}
	}
	if n := testing.AllocsPerRun(100, func() { loaded = a.Load() }); n != 0 {
		t.Errorf("Load allocates %.0f times", n)
	}
}

// The live counters are the system calls no event records; Replayable
// zeroes them and nothing else, and their docs say a replay has none.
func TestLiveCountersAreTheUnfoldable(t *testing.T) {
	var all Stats
	for i := range all.values() {
		all.values()[i] = 1
	}
	r := all.Replayable()
	var live []string
	for _, c := range table {
		if c.Live {
			live = append(live, c.Name)
			if !strings.HasSuffix(c.Doc, "live runs only") {
				t.Errorf("%s is live, its doc does not say so: %q", c.Name, c.Doc)
			}
		}
		if want := map[bool]int64{true: 0, false: 1}[c.Live]; c.Get(&r) != want {
			t.Errorf("Replayable left %s at %d, want %d", c.Name, c.Get(&r), want)
		}
	}
	if got := strings.Join(live, " "); got != "reads empty_reads writes epoll_ctl ring_enters" {
		t.Errorf("live counters: %s", got)
	}
}

// A Set whose fields are not all the same type cannot be read as an array;
// the layout check says so instead of letting Load read past a field.
func TestCheckLayoutRefusesAMixedSet(t *testing.T) {
	type mixed struct {
		A int64
		B int32
	}
	defer func() {
		if recover() == nil {
			t.Error("checkLayout accepted a Set with an int32 field")
		}
	}()
	checkLayout(reflect.TypeFor[mixed](), reflect.TypeFor[int64]())
}

// Loop.Fold keeps the identity and the values that depend on more than one
// event: the current selectCnt (every select_end's, a selectNow's too) and
// the queue depth.
func TestLoopFold(t *testing.T) {
	l := NewLoop()
	for _, e := range []trace.Event{
		{Kind: trace.KindState, A: int64(trace.StateNotStarted), B: int64(trace.StateStarted), C: 99},
		{Kind: trace.KindSelectBegin, Str: "select"},
		{Kind: trace.KindSelectEnd, C: 7, Flag: true},
		{Kind: trace.KindSelectBegin, Str: "select_now"},
		{Kind: trace.KindSelectEnd, C: 1},
		{Kind: trace.KindTaskSubmit, A: 1, B: 3},
		{Kind: trace.KindState, A: int64(trace.StateStarted), B: int64(trace.StateShuttingDown)},
	} {
		l.Fold(&e, "worker-0")
	}
	if l.TID != 99 || l.State != trace.StateShuttingDown || l.SelectCnt != 1 || l.MaxSelectCnt != 7 || l.QueueDepth != 3 {
		t.Fatalf("folded %+v", l)
	}
	l.Fold(&trace.Event{Kind: trace.KindRebuildEnd}, "worker-0")
	if l.SelectCnt != 1 {
		t.Errorf("selectCnt after a rebuild = %d, want 1", l.SelectCnt)
	}
	l.Fold(&trace.Event{Kind: trace.KindIORatio, A: 80, B: 50}, "worker-0")
	l.Fold(&trace.Event{Kind: trace.KindIORatio, A: 300, B: 80}, "worker-0")
	if l.IORatio != 80 {
		t.Errorf("ioRatio %d, want 80 (an out-of-range value is not one)", l.IORatio)
	}
}

// Each breakpoint fires on its own counter's increase; the queue on the
// crossing only; a loop's own wakeup and a channel exception never.
func TestBreakpointsReason(t *testing.T) {
	all := Breakpoints{Rebuild: true, Premature: true, DeadlineHit: true, Wakeup: true, TaskPanic: true, QueueAbove: 3}
	for _, c := range []struct {
		e    trace.Event
		want string
	}{
		{trace.Event{Kind: trace.KindRebuildEnd}, ReasonRebuild},
		{trace.Event{Kind: trace.KindSelectEnd, Flag: true}, ReasonPremature},
		{trace.Event{Kind: trace.KindSelectEnd}, ""},
		{trace.Event{Kind: trace.KindDeadlineCheck, Flag: true}, ReasonDeadlineHit},
		{trace.Event{Kind: trace.KindWakeup, Flag: true, Str: "external"}, ReasonWakeup},
		{trace.Event{Kind: trace.KindWakeup, Flag: true, Str: "worker-0"}, ""},
		{trace.Event{Kind: trace.KindWakeup, Str: "external"}, ""},
		{trace.Event{Kind: trace.KindTaskPanic, A: 4}, ReasonTaskPanic},
		{trace.Event{Kind: trace.KindTaskPanic}, ReasonTaskPanic},
		{trace.Event{Kind: trace.KindException}, ""},
		{trace.Event{Kind: trace.KindTaskSubmit, B: 4}, ReasonQueueAbove},
	} {
		l := NewLoop()
		var w Watch
		w.Reset(all, &l.Stats)
		l.Fold(&c.e, "worker-0")
		if got := w.Check(&l.Stats); got != c.want {
			t.Errorf("%v %+v: %q, want %q", c.e.Kind, c.e, got, c.want)
		}
	}
	var w Watch
	now := Stats{QueueDepth: 5}
	w.Reset(all, &Stats{})
	if w.Check(&now) != ReasonQueueAbove || w.Check(&now) != "" {
		t.Error("the queue breakpoint fires while the queue stays deep")
	}
	if n := testing.AllocsPerRun(100, func() { _ = w.Check(&now) }); n != 0 {
		t.Errorf("Check allocates %.0f times", n)
	}
}
