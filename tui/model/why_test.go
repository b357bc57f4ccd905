package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// whyOf is WhySelect of the select_end in events, from those around it.
func whyOf(events []trace.Event) string {
	n := slices.IndexFunc(events, func(e trace.Event) bool { return e.Kind == trace.KindSelectEnd })
	ev := eventsUpTo(events, len(events))
	return WhySelect(&events[n], ev.before(n), ev.from(n+1))
}

func TestWhySelectNamesEachReason(t *testing.T) {
	begin := func(timeout int64, mode string) trace.Event {
		return ev(1, 0, trace.KindSelectBegin, func(e *trace.Event) { e.A, e.Str = timeout, mode })
	}
	end := func(ready, took int64, premature bool) trace.Event {
		return ev(1, 5, trace.KindSelectEnd, func(e *trace.Event) { e.A, e.B, e.C, e.Flag = ready, took, 7, premature })
	}
	wakeup := func(loop uint16, from string, written bool) trace.Event {
		return ev(loop, 2, trace.KindWakeup, func(e *trace.Event) { e.Str, e.Flag = from, written })
	}
	for _, tc := range []struct {
		name   string
		events []trace.Event
		want   string
	}{
		{"keys", []trace.Event{begin(1e9, "select"), end(2, 3e6, false)}, "2 ready keys"},
		{"keys and a wakeup", []trace.Event{begin(1e9, "select"), wakeup(1, "boss-0", true), end(1, 3e6, false)},
			"1 ready key, and woken by boss-0's eventfd write"},
		{"woken", []trace.Event{begin(-1, "select"), wakeup(1, "main", true), end(0, 3e6, false)},
			"woken by main's eventfd write"},
		// A coalesced wakeup wrote nothing, and another loop's is not ours.
		{"timed out", []trace.Event{begin(1e9, "select"), wakeup(1, "main", false), wakeup(2, "main", true), end(0, 1e9, false)},
			"timed out"},
		{"premature", []trace.Event{begin(1e9, "select"), end(0, 1e6, true)}, "nothing to do: counts toward a rebuild"},
		{"select now", []trace.Event{begin(0, "select_now"), end(0, 0, false)}, "polled without waiting"},
		{"after a rebuild", []trace.Event{ev(1, 0, trace.KindRebuildEnd, nil), begin(0, "select_now"), end(0, 0, false)},
			"selectNow on the new selector, right after the rebuild"},
		{"early", []trace.Event{begin(1e9, "select"), end(0, 1e6, false)}, "early, nothing ready"},
		{"a task, its wakeup not yet traced", []trace.Event{begin(-1, "select"),
			ev(1, 3, trace.KindTaskSubmit, func(e *trace.Event) { e.Flag = true }), end(0, 3e6, false)},
			"woken: a task came from outside the loops"},
		{"a wakeup traced late", []trace.Event{begin(-1, "select"), end(0, 3e6, false),
			ev(1, 5, trace.KindWakeup, func(e *trace.Event) { e.Str, e.Flag = "worker-1", true }), ev(1, 6, trace.KindTasksBegin, nil)},
			"woken by worker-1's eventfd write"},
		{"paused", []trace.Event{begin(1e9, "select"), end(0, 1e6, false),
			ev(2, 6, trace.KindPause, nil), ev(1, 6, trace.KindPause, nil)}, "interrupted: the run was paused"},
		{"no begin", []trace.Event{end(0, 1e6, false)}, ""},
	} {
		got := whyOf(tc.events)
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want it to start %q", tc.name, got, tc.want)
		}
	}
}

// On the real engine: a sleeping loop woken by a task from this
// goroutine says so, in the live log and in a replay's slice alike. The
// select that held the submit is found by time; a loop that was awake
// when the task came (the first Execute's eventfd write can land after
// the loop went to sleep, and wake it for nothing) is tried again.
func TestWhySelectOfARealWakeup(t *testing.T) {
	leaktest.Check(t)
	coll, rec := newRecorder(t, 1<<12)
	l, err := reactor.NewEventLoop("worker-0", "worker", reactor.Config{Collector: coll, Netty: reactor.Netty41})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	_ = l.Execute(func() {})
	i := -1
	for try := 0; try < 10 && i < 0; try++ {
		leaktest.WaitFor(t, "the loop to sleep", func() bool { coll.Settle(); return sleeping(rec.Events()) })
		ran := make(chan struct{})
		_ = l.Execute(func() { close(ran) })
		<-ran
		coll.Settle()
		i = selectHolding(rec.Events())
	}
	if i < 0 {
		t.Fatal("no select was asleep when a task came, in ten tries")
	}
	events := rec.Events()
	// The submit is traced before the eventfd write, and the wakeup's
	// event after it: either may be the one at hand.
	fromOutside := func(why string) bool {
		return why == "woken by an eventfd write from outside the loops" || why == "woken: a task came from outside the loops"
	}
	ev := eventsUpTo(events, len(events))
	if got := WhySelect(&events[i], ev.before(i), ev.from(i+1)); !fromOutside(got) {
		for j := max(i-8, 0); j < len(events); j++ {
			t.Logf("%d %d %s", j, events[j].Time, Describe(&events[j]))
		}
		t.Fatalf("why = %q", got)
	}
	m := New(coll.Loops())
	m.Consume(events)
	s := m.Snapshot(Query{Log: 64, Slice: SliceQuery{Loop: 0, From: 0, To: events[len(events)-1].Time + 1, Max: 64}})
	rep := NewReplay(coll.Loops(), events, 0)
	rep.Seek(rep.Len())
	rs := rep.Snapshot(Query{Log: 64, Slice: SliceQuery{Loop: 0, From: 0, To: events[len(events)-1].Time + 1, Max: 64}})
	for name, lines := range map[string][]LogLine{"log": s.Log, "slice": s.SliceLog, "replay log": rs.Log, "replay slice": rs.SliceLog} {
		if !slices.ContainsFunc(lines, func(l LogLine) bool { return fromOutside(l.Why) }) {
			t.Errorf("the %s has no select_end woken from outside: %+v", name, lines)
		}
	}
}

// selectHolding is the index of the select_end of the blocking select
// that was waiting when the newest task was submitted, or -1.
func selectHolding(events []trace.Event) int {
	sub := lastIndexFunc(events, func(e trace.Event) bool { return e.Kind == trace.KindTaskSubmit })
	if sub < 0 {
		return -1
	}
	at := events[sub].Time
	var begin *trace.Event
	for i := range events {
		e := &events[i]
		switch {
		case e.Kind == trace.KindSelectBegin && e.Time <= at:
			begin = e
		case e.Kind == trace.KindSelectEnd && begin != nil && begin.Str == "select" && e.Time >= at:
			return i
		case e.Kind == trace.KindSelectEnd && e.Time < at:
			begin = nil
		}
	}
	return -1
}

// sleeping reports whether the loop's newest event is a blocking
// select's begin. Events raised off the loop (a submit, its wakeup) come
// through a ring of their own and may be merged after it: they say
// nothing of where the loop stands.
func sleeping(events []trace.Event) bool {
	for i := len(events) - 1; i >= 0; i-- {
		switch e := events[i]; e.Kind {
		case trace.KindWakeup, trace.KindTaskSubmit:
			continue
		default:
			return e.Kind == trace.KindSelectBegin && e.Str == "select"
		}
	}
	return false
}

func lastIndexFunc(events []trace.Event, ok func(trace.Event) bool) int {
	for i := len(events) - 1; i >= 0; i-- {
		if ok(events[i]) {
			return i
		}
	}
	return -1
}

// An accept names the loop the chooser dealt its channel to, with the
// arithmetic of the group's chooser: & for a power-of-two size, % for
// another; nothing when the trace does not carry the pick.
func TestChooserPickShowsTheArithmetic(t *testing.T) {
	loops := []trace.LoopInfo{{Name: "boss-0", Group: "boss"},
		{Name: "worker-0", Group: "worker"}, {Name: "worker-1", Group: "worker"}, {Name: "worker-2", Group: "worker"}, {Name: "worker-3", Group: "worker"},
		{Name: "io-0", Group: "io"}, {Name: "io-1", Group: "io"}, {Name: "io-2", Group: "io"}}
	st := NewState(loops)
	accept := func(to, pick int64, chosen bool) *trace.Event {
		return &trace.Event{Kind: trace.KindAccept, A: 9, D: to, E: pick, Flag: chosen}
	}
	for _, c := range []struct {
		e    *trace.Event
		want string
	}{
		{accept(2, 5, true), "→ worker-1: chooser pick 5 & (4−1) = 1"},
		{accept(7, 5, true), "→ io-2: chooser pick 5 % 3 = 2"},
		{accept(0, 3, true), "→ boss-0, the group's one loop"},
		{accept(0, 0, false), ""},
	} {
		if got := st.ChooserPick(c.e); got != c.want {
			t.Errorf("ChooserPick(%+v) = %q, want %q", *c.e, got, c.want)
		}
	}
	if d := Describe(accept(2, 5, true)); strings.Contains(d, "worker=") || strings.Contains(d, "pick=") || strings.Contains(d, "chosen") {
		t.Errorf("the accept line shows the raw pick: %q", d)
	}
}

// The three kinds of wakeup read apart in the log, as the counters count
// them.
func TestWakeupNoteTellsTheKindsApart(t *testing.T) {
	for _, c := range []struct {
		from    string
		written bool
		want    string
	}{
		{"worker-0", true, "its own write"},
		{"boss-0", true, "the eventfd written"},
		{"external", false, "no write: a wakeup was already pending"},
	} {
		e := &trace.Event{Kind: trace.KindWakeup, Str: c.from, Flag: c.written}
		if got := wakeupNote(e, "worker-0"); !strings.HasPrefix(got, c.want) {
			t.Errorf("wakeup from %s written %v: %q, want %q…", c.from, c.written, got, c.want)
		}
	}
}

// The events of a loop's life read right in the log: tail tasks, the
// start of a graceful shutdown, its end, and a refused submission.
func TestLifeNotes(t *testing.T) {
	for _, c := range []struct {
		e    trace.Event
		want string
	}{
		{trace.Event{Kind: trace.KindTailTasks, A: 3}, "after the batch"},
		{trace.Event{Kind: trace.KindState, A: int64(trace.StateStarted), B: int64(trace.StateShuttingDown)}, "graceful shutdown"},
		{trace.Event{Kind: trace.KindState, A: int64(trace.StateShuttingDown), B: int64(trace.StateShutdown)}, "the quiet period passed"},
		{trace.Event{Kind: trace.KindTaskReject, Str: "shut down"}, "refused"},
		{trace.Event{Kind: trace.KindState, A: int64(trace.StateNotStarted), B: int64(trace.StateStarted)}, ""},
	} {
		if got := lifeNote(&c.e); (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q…", c.e.Kind, got, c.want)
		}
	}
}
