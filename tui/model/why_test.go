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
	return WhySelect(&events[n], eventsBefore(events, n), eventsBetween(events, n+1, len(events)))
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
// goroutine says so, in the live log and in a replay's slice alike.
func TestWhySelectOfARealWakeup(t *testing.T) {
	leaktest.Check(t)
	coll, rec := newRecorder(t, 1<<12)
	l, err := reactor.NewEventLoop("worker-0", "worker", reactor.Config{Collector: coll, Netty: reactor.Netty41})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.ShutdownGracefully(0, time.Second); <-l.Terminated() }()
	ran := make(chan struct{})
	_ = l.Execute(func() {})
	leaktest.WaitFor(t, "the loop to sleep", func() bool { coll.Flush(); return sleeping(rec.Events()) })
	_ = l.Execute(func() { close(ran) })
	<-ran
	coll.Flush()
	events := rec.Events()
	// The last blocking select: an earlier one may have seen the eventfd
	// the first Execute wrote as the loop started.
	i := lastIndexFunc(events, func(e trace.Event) bool {
		return e.Kind == trace.KindSelectEnd && e.B > 0
	})
	if i < 0 {
		t.Fatal("no blocking select ended")
	}
	if got := WhySelect(&events[i], eventsBefore(events, i), eventsBetween(events, i+1, len(events))); got != "woken by an eventfd write from outside the loops" {
		t.Fatalf("why = %q", got)
	}
	m := New(coll.Loops())
	m.Consume(events)
	s := m.Snapshot(Query{Log: 64, Slice: SliceQuery{Loop: 0, From: 0, To: events[len(events)-1].Time + 1, Max: 64}})
	rep := NewReplay(coll.Loops(), events, 0)
	rep.Seek(rep.Len())
	rs := rep.Snapshot(Query{Log: 64, Slice: SliceQuery{Loop: 0, From: 0, To: events[len(events)-1].Time + 1, Max: 64}})
	for name, lines := range map[string][]LogLine{"log": s.Log, "slice": s.SliceLog, "replay log": rs.Log, "replay slice": rs.SliceLog} {
		if !slices.ContainsFunc(lines, func(l LogLine) bool { return l.Why == "woken by an eventfd write from outside the loops" }) {
			t.Errorf("the %s has no select_end woken from outside: %+v", name, lines)
		}
	}
}

// sleeping reports whether the newest event is a blocking select's begin.
func sleeping(events []trace.Event) bool {
	n := len(events)
	return n > 0 && events[n-1].Kind == trace.KindSelectBegin && events[n-1].Str == "select"
}

func lastIndexFunc(events []trace.Event, ok func(trace.Event) bool) int {
	for i := len(events) - 1; i >= 0; i-- {
		if ok(events[i]) {
			return i
		}
	}
	return -1
}
