package model

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

var testLoops = []trace.LoopInfo{
	{Name: "boss-0", Group: "boss"},
	{Name: "worker-0", Group: "worker"},
	{Name: "worker-1", Group: "worker"},
}

// ev builds an event of loop i at time t (ms) for table tests.
func ev(loop uint16, tms int64, k trace.Kind, set func(e *trace.Event)) trace.Event {
	e := trace.Event{Loop: loop, Time: tms * 1e6, Kind: k}
	if set != nil {
		set(&e)
	}
	return e
}

func loopByName(t *testing.T, s *Snapshot, name string) Loop {
	t.Helper()
	for _, l := range s.Loops {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("loop %s not in snapshot (%d loops)", name, len(s.Loops))
	return Loop{}
}

func TestFoldIteration(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		ev(1, 1, trace.KindState, func(e *trace.Event) {
			e.A, e.B, e.C = int64(trace.StateNotStarted), int64(trace.StateStarted), 4312
		}),
		ev(1, 2, trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 1e9 }),
		ev(1, 3, trace.KindSelectEnd, func(e *trace.Event) { e.C, e.Flag = 3, true }),
		ev(1, 4, trace.KindSelectEnd, func(e *trace.Event) { e.C = 4 }),
		ev(1, 5, trace.KindIOBegin, nil),
	})
	s := m.Snapshot(Query{Focus: -1})
	w := loopByName(t, s, "worker-0")
	if w.TID != 4312 || w.State != trace.StateStarted {
		t.Errorf("tid, state = %d, %v; want 4312, STARTED", w.TID, w.State)
	}
	if w.Phase != trace.PhaseIO || w.Iterations != 1 || w.Selects != 1 {
		t.Errorf("phase %v iterations %d selects %d; want io 1 1", w.Phase, w.Iterations, w.Selects)
	}
	if w.SelectCnt != 4 || w.MaxSelectCnt != 4 || w.Premature != 1 {
		t.Errorf("selectCnt %d max %d premature %d; want 4 4 1", w.SelectCnt, w.MaxSelectCnt, w.Premature)
	}
	if w.Timeout != 1e9 {
		t.Errorf("timeout = %d", w.Timeout)
	}
	if len(s.Groups) != 2 || s.Groups[0].Name != "boss" || s.Groups[1].Chooser != "power-of-two" {
		t.Errorf("groups = %+v", s.Groups)
	}

	m.Consume([]trace.Event{
		ev(1, 6, trace.KindIOEnd, func(e *trace.Event) { e.A, e.B = 2, 5000 }),
		ev(1, 7, trace.KindRebuildBegin, func(e *trace.Event) { e.A = 512 }),
		ev(1, 8, trace.KindRebuildEnd, func(e *trace.Event) { e.A, e.B = 512, 7 }),
		ev(1, 9, trace.KindSelectBegin, func(e *trace.Event) { e.Str = "select_now" }),
		ev(1, 9, trace.KindSelectEnd, func(e *trace.Event) { e.C = 1 }), // the count after the rebuild
	})
	w = loopByName(t, m.Snapshot(Query{Focus: -1}), "worker-0")
	if w.Rebuilds != 1 || w.Migrated != 7 || w.SelectCnt != 1 || w.MaxSelectCnt != 512 {
		t.Errorf("rebuilds %d migrated %d selectCnt %d max %d; want 1 7 1 512",
			w.Rebuilds, w.Migrated, w.SelectCnt, w.MaxSelectCnt)
	}
	if w.IONanos != 5000 || w.SelectNows != 1 {
		t.Errorf("io ns %d selectNows %d", w.IONanos, w.SelectNows)
	}
}

func TestFoldCounters(t *testing.T) {
	tests := []struct {
		name   string
		events []trace.Event
		check  func(l Loop) bool
	}{
		{
			name: "wakeups written, coalesced and self",
			events: []trace.Event{
				ev(1, 1, trace.KindWakeup, func(e *trace.Event) { e.Flag, e.Str = true, "external" }),
				ev(1, 1, trace.KindWakeup, func(e *trace.Event) { e.Str = "boss-0" }),
				ev(1, 1, trace.KindWakeup, func(e *trace.Event) { e.Str = "external" }),
				ev(1, 2, trace.KindWakeup, func(e *trace.Event) { e.Flag, e.Str = true, "worker-0" }),
			},
			check: func(l Loop) bool { return l.WakeupsWritten == 1 && l.WakeupsCoalesced == 2 && l.SelfWakeups == 1 },
		},
		{
			name: "channels are registered minus closed, never negative",
			events: []trace.Event{
				ev(1, 1, trace.KindRegister, nil),
				ev(1, 1, trace.KindRegister, nil),
				ev(1, 2, trace.KindClose, nil),
				ev(1, 2, trace.KindRead, func(e *trace.Event) { e.C = 100 }),
				ev(1, 2, trace.KindWrite, func(e *trace.Event) { e.C = 60 }),
				ev(1, 3, trace.KindClose, nil),
				ev(1, 3, trace.KindClose, nil),
			},
			check: func(l Loop) bool {
				return l.Channels == 0 && l.Closed == 3 && l.BytesRead == 100 && l.BytesWritten == 60
			},
		},
		{
			name: "deadline checks and hits, tail tasks",
			events: []trace.Event{
				ev(1, 1, trace.KindDeadlineCheck, func(e *trace.Event) { e.A = 64 }),
				ev(1, 1, trace.KindDeadlineCheck, func(e *trace.Event) { e.A, e.Flag = 128, true }),
				ev(1, 1, trace.KindTasksEnd, func(e *trace.Event) { e.A, e.B, e.Flag = 128, 900, true }),
				ev(1, 1, trace.KindTailTasks, func(e *trace.Event) { e.A = 2 }),
			},
			check: func(l Loop) bool {
				return l.DeadlineChecks == 2 && l.DeadlineHits == 1 && l.TailTasksRun == 2 && l.TaskNanos == 900
			},
		},
		{
			name: "pause and resume",
			events: []trace.Event{
				ev(1, 1, trace.KindPause, func(e *trace.Event) { e.A, e.Str = int64(trace.PhaseTasks), "breakpoint: wakeup written" }),
			},
			check: func(l Loop) bool {
				return l.Paused && l.PausePhase == trace.PhaseTasks && strings.Contains(l.PauseReason, "wakeup")
			},
		},
		{
			name: "terminated loop has no phase",
			events: []trace.Event{
				ev(1, 1, trace.KindIOBegin, nil),
				ev(1, 2, trace.KindState, func(e *trace.Event) { e.B = int64(trace.StateTerminated) }),
			},
			check: func(l Loop) bool { return l.Phase == trace.PhaseNone && l.State == trace.StateTerminated },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(testLoops)
			m.Consume(tc.events)
			if l := loopByName(t, m.Snapshot(Query{Focus: -1}), "worker-0"); !tc.check(l) {
				t.Errorf("unexpected fold: %+v", l.Counters)
			}
		})
	}
}

func TestQueueMirror(t *testing.T) {
	submit := func(tms, id int64, name string, queued, producer int64) trace.Event {
		return ev(1, tms, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B, e.Str, e.Flag, e.C = id, queued, name, true, producer })
	}
	run := func(tms, id int64, name string) trace.Event {
		return ev(1, tms, trace.KindTaskRun, func(e *trace.Event) { e.A, e.Str = id, name })
	}
	m := New(testLoops)
	m.Consume([]trace.Event{
		submit(1, 1, "register", 1, 1), // from loop 0, the boss
		submit(1, 2, "flood", 2, 0),
		submit(1, 3, "flood", 3, 0),
		ev(1, 2, trace.KindTimerSchedule, func(e *trace.Event) { e.A, e.B, e.Str = 1, 50e6, "tick" }),
		// Timer 1 goes into the queue as task 4, and runs as task 4.
		ev(1, 50, trace.KindTimerDue, func(e *trace.Event) { e.A, e.B, e.C, e.Str = 1, 50e6, 4, "tick" }),
		ev(1, 51, trace.KindTasksBegin, func(e *trace.Event) { e.A, e.B = 4, -1 }),
		run(51, 1, "register"),
		run(51, 99, "tail"), // a tail task: never queued
	})
	q := Query{Focus: 1, Head: 8}
	w := loopByName(t, m.Snapshot(q), "worker-0")
	want := []TaskRef{{ID: 2, Name: "flood", External: true, From: "outside"}, {ID: 3, Name: "flood", External: true, From: "outside"},
		{ID: 4, Name: "tick", Timer: true, From: "heap"}}
	if !reflect.DeepEqual(w.QueueHead, want) || w.QueueDepth != 3 {
		t.Errorf("queue head %+v depth %d; want %+v depth 3", w.QueueHead, w.QueueDepth, want)
	}
	// Two producers fed the one consumer: the boss once, another thread twice.
	wantP := Producers{Outside: 2, Loops: []ProducerCount{{Loop: 0, Name: "boss-0", N: 1}}}
	if !reflect.DeepEqual(w.Producers, wantP) {
		t.Errorf("producers %+v, want %+v", w.Producers, wantP)
	}
	if w.Timers != 0 || w.HasDeadline {
		t.Errorf("timers %d hasDeadline %v after due; want 0 false", w.Timers, w.HasDeadline)
	}
	// A run found below the head means the tasks above it ran unseen.
	m.Consume([]trace.Event{run(52, 4, "tick")})
	w = loopByName(t, m.Snapshot(q), "worker-0")
	if len(w.QueueHead) != 0 || w.QueueDepth != 2 {
		t.Errorf("after out-of-order run: head %+v depth %d", w.QueueHead, w.QueueDepth)
	}
	// The engine's count wins over the mirror.
	m.Consume([]trace.Event{ev(1, 53, trace.KindTasksBegin, func(e *trace.Event) { e.A = 5 })})
	w = loopByName(t, m.Snapshot(q), "worker-0")
	if w.QueueHidden != 5 || w.QueueDepth != 5 {
		t.Errorf("after resync: hidden %d depth %d; want 5 5", w.QueueHidden, w.QueueDepth)
	}
}

func TestQueueMirrorIsCapped(t *testing.T) {
	m := New(testLoops)
	batch := make([]trace.Event, 0, 1000)
	for i := range QueueMirrorCap + 100 {
		batch = append(batch, ev(1, 1, trace.KindTaskSubmit, func(e *trace.Event) {
			e.A, e.B, e.Str = int64(i+1), int64(i+1), "t"
		}))
	}
	m.Consume(batch)
	w := loopByName(t, m.Snapshot(Query{Focus: 1, Head: 4}), "worker-0")
	if w.QueueDepth != QueueMirrorCap+100 || w.QueueHidden != QueueMirrorCap+100-4 {
		t.Errorf("depth %d hidden %d", w.QueueDepth, w.QueueHidden)
	}
	if got := m.st.loops[1].queue.n; got != QueueMirrorCap {
		t.Errorf("mirror holds %d, cap %d", got, QueueMirrorCap)
	}
	// Running every task empties the mirror and the hidden count alike.
	batch = batch[:0]
	for i := range QueueMirrorCap + 100 {
		batch = append(batch, ev(1, 2, trace.KindTaskRun, func(e *trace.Event) { e.A, e.Str = int64(i+1), "t" }))
	}
	m.Consume(batch)
	w = loopByName(t, m.Snapshot(Query{Focus: 1, Head: 4}), "worker-0")
	if w.QueueDepth != 0 || w.QueueHidden != 0 || len(w.QueueHead) != 0 {
		t.Errorf("after draining: depth %d hidden %d head %v", w.QueueDepth, w.QueueHidden, w.QueueHead)
	}
}

// Submissions whose events were dropped never reach the mirror; the head
// still says how many tasks wait behind it, by the engine's own count.
func TestQueueHiddenFollowsTheEngineDepth(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		ev(1, 1, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B, e.Str = 1, 1, "t" }),
		// tasks 2..9 submitted, their events dropped
		ev(1, 2, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B, e.Str = 10, 10, "t" }),
	})
	w := loopByName(t, m.Snapshot(Query{Focus: 1, Head: 8}), "worker-0")
	if w.QueueDepth != 10 || len(w.QueueHead) != 2 || w.QueueHidden != 8 {
		t.Errorf("depth %d head %d hidden %d; want 10, 2, 8", w.QueueDepth, len(w.QueueHead), w.QueueHidden)
	}
}

// A graceful shutdown offers a WAKEUP_TASK marker: the engine's length
// counts it, but it never runs as a task. The batch's tasks_end puts the
// depth right, so a loop is not left showing a task that does not exist.
func TestTasksEndSetsTheDepth(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		ev(1, 1, trace.KindTasksBegin, func(e *trace.Event) { e.A = 3 }), // two tasks and a marker
		ev(1, 1, trace.KindTaskRun, func(e *trace.Event) { e.A, e.Str = 1, "t" }),
		ev(1, 2, trace.KindTaskRun, func(e *trace.Event) { e.A, e.Str = 2, "t" }),
	})
	w := loopByName(t, m.Snapshot(Query{Focus: 1, Head: 8}), "worker-0")
	if w.QueueDepth != 1 {
		t.Fatalf("before tasks_end: depth %d; want the marker's 1, for tasks_end to fix", w.QueueDepth)
	}
	m.Consume([]trace.Event{ev(1, 3, trace.KindTasksEnd, func(e *trace.Event) { e.A, e.C = 2, 0 })})
	w = loopByName(t, m.Snapshot(Query{Focus: 1, Head: 8}), "worker-0")
	if w.QueueDepth != 0 || w.QueueHidden != 0 || len(w.QueueHead) != 0 {
		t.Fatalf("after tasks_end queued=0: depth %d, head %+v, hidden %d", w.QueueDepth, w.QueueHead, w.QueueHidden)
	}
}

func TestTimerMirror(t *testing.T) {
	sched := func(id, deadlineMs int64) trace.Event {
		return ev(2, 1, trace.KindTimerSchedule, func(e *trace.Event) { e.A, e.B, e.Str = id, deadlineMs*1e6, "t" })
	}
	m := New(testLoops)
	m.Consume([]trace.Event{sched(1, 300), sched(2, 100), sched(3, 200)})
	q := Query{Focus: 2, Head: 2}
	w := loopByName(t, m.Snapshot(q), "worker-1")
	if w.Timers != 3 || !w.HasDeadline || w.NextDeadline != 100e6 {
		t.Fatalf("timers %d next %d", w.Timers, w.NextDeadline)
	}
	if len(w.TimerHead) != 2 || w.TimerHead[0].ID != 2 || w.TimerHead[1].ID != 3 {
		t.Errorf("heap top %+v; want ids 2, 3", w.TimerHead)
	}
	m.Consume([]trace.Event{ev(2, 2, trace.KindTimerCancel, func(e *trace.Event) { e.A = 2 })})
	w = loopByName(t, m.Snapshot(q), "worker-1")
	if w.NextDeadline != 200e6 || w.Timers != 2 {
		t.Errorf("after cancel: next %d timers %d; want 200ms 2", w.NextDeadline, w.Timers)
	}
	// A periodic task is rescheduled under its id with a later deadline.
	m.Consume([]trace.Event{sched(3, 400)})
	w = loopByName(t, m.Snapshot(q), "worker-1")
	if w.NextDeadline != 300e6 || w.Timers != 2 {
		t.Errorf("after reschedule: next %d timers %d; want 300ms 2", w.NextDeadline, w.Timers)
	}

	// Past the cap the latest deadlines are forgotten, the earliest kept.
	m = New(testLoops)
	batch := make([]trace.Event, 0, TimerMirrorCap+10)
	for i := range TimerMirrorCap + 10 {
		batch = append(batch, sched(int64(i+1), int64(TimerMirrorCap+10-i)))
	}
	m.Consume(batch)
	w = loopByName(t, m.Snapshot(q), "worker-1")
	if w.Timers != TimerMirrorCap+10 || w.NextDeadline != 1e6 {
		t.Errorf("capped: timers %d next %d", w.Timers, w.NextDeadline)
	}
	if got := len(m.st.loops[2].timers.byID); got != TimerMirrorCap {
		t.Errorf("mirror holds %d timers, cap %d", got, TimerMirrorCap)
	}
}

func TestHistoryPadsIdleTime(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		ev(1, 0, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B = 1, 5 }),
		ev(1, 150, trace.KindTaskRun, func(e *trace.Event) { e.A = 1 }),
		ev(0, 450, trace.KindSelectBegin, nil), // another loop moves time on
	})
	w := loopByName(t, m.Snapshot(Query{Focus: -1}), "worker-0")
	want := []int64{5, 5, 4, 4, 4}
	if !reflect.DeepEqual(w.History, want) {
		t.Errorf("history %v; want %v", w.History, want)
	}
}

func TestWheel(t *testing.T) {
	loops := append(append([]trace.LoopInfo(nil), testLoops...), trace.LoopInfo{Name: "wheel", Group: "wheel"})
	m := New(loops)
	var batch []trace.Event
	for tick := int64(1); tick <= 20; tick++ {
		batch = append(batch, ev(3, tick*100, trace.KindWheelTick, func(e *trace.Event) {
			e.A, e.B, e.C, e.D = tick, tick&7, 1, 3
		}))
	}
	batch = append(batch, ev(3, 2000, trace.KindWheelExpire, func(e *trace.Event) { e.A, e.B, e.C = 20, 4, 77 }))
	m.Consume(batch)
	s := m.Snapshot(Query{Focus: -1})
	w := s.Wheel
	if !w.Present || w.Size != 8 || w.Tick != 20 || w.Slot != 4 || w.Expired != 20 || w.Pending != 3 {
		t.Errorf("wheel %+v", w)
	}
	if len(w.Recent) != 1 || w.Recent[0].ID != 77 {
		t.Errorf("recent %+v", w.Recent)
	}
	for _, l := range s.Loops {
		if l.Name == "wheel" {
			t.Errorf("the wheel thread is listed as an event loop")
		}
	}
}

func TestLogFilter(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		ev(0, 1, trace.KindAccept, nil),
		ev(1, 2, trace.KindWakeup, func(e *trace.Event) { e.Flag = true }),
		ev(2, 3, trace.KindWakeup, nil),
		ev(1, 4, trace.KindTaskRun, nil),
		ev(2, 5, trace.KindTaskSubmit, nil),
		ev(2, 6, trace.KindSelectEnd, func(e *trace.Event) { e.Flag, e.C = true, 7 }),
	})
	tests := []struct {
		filter string
		want   []trace.Kind
	}{
		{filter: "", want: []trace.Kind{trace.KindTaskRun, trace.KindTaskSubmit, trace.KindSelectEnd}},
		// A word that names no kind and no loop is looked for in the
		// details, and every such word must be there.
		{filter: "premature", want: []trace.Kind{trace.KindSelectEnd}},
		{filter: "premature select_cnt=7", want: []trace.Kind{trace.KindSelectEnd}},
		{filter: "premature select_cnt=8", want: nil},
		{filter: "worker-0 premature", want: nil},
		{filter: "worker-1", want: []trace.Kind{trace.KindWakeup, trace.KindTaskSubmit, trace.KindSelectEnd}},
		{filter: "wakeup", want: []trace.Kind{trace.KindWakeup, trace.KindWakeup}},
		{filter: "worker-0 task", want: []trace.Kind{trace.KindTaskRun}},
		{filter: "kind:accept loop:boss", want: []trace.Kind{trace.KindAccept}},
		{filter: "nosuchloop", want: nil},
	}
	for _, tc := range tests {
		s := m.Snapshot(Query{Focus: -1, Log: 3, Filter: ParseFilter(tc.filter)})
		var got []trace.Kind
		for _, l := range s.Log {
			got = append(got, l.Event.Kind)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("filter %q: got %v, want %v", tc.filter, got, tc.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		e    trace.Event
		want string
	}{
		{trace.Event{Kind: trace.KindSelectEnd, A: 0, B: 1_500_000, C: 3, Flag: true},
			"select_end ready=0 took=1.5ms select_cnt=3 premature"},
		{trace.Event{Kind: trace.KindWakeup, Str: "external"}, "wakeup coalesced from=external"},
		{trace.Event{Kind: trace.KindState, A: int64(trace.StateNotStarted), B: int64(trace.StateStarted), C: 7}, "state from=NOT_STARTED to=STARTED tid=7"},
		{trace.Event{Kind: trace.KindTasksBegin, A: 3, B: -1}, "tasks_begin queued=3 budget=unlimited"},
		{trace.Event{Kind: trace.KindRegister, A: 1, B: 9, C: 0x2001}, "register channel=1 fd=9 ops=IN|RDHUP"},
		{trace.Event{Kind: trace.KindTaskRun, A: 1, Str: "a\x1b[2Jb"}, "task_run id=1 took=0ns name=a?[2Jb"},
		{trace.Event{Kind: trace.Kind(200)}, "invalid"},
		{trace.Event{Kind: trace.KindTimerSchedule, A: 4, B: 2_488_000_000, C: -200e6, Str: "poll"},
			"timer_schedule id=4 deadline=@00:02.488 period=delay:200ms name=poll"},
	}
	for _, tc := range tests {
		if got := Describe(&tc.e); got != tc.want {
			t.Errorf("Describe(%v) = %q; want %q", tc.e.Kind, got, tc.want)
		}
	}
	if got := Clock(62_345_000_000); got != "01:02.345" {
		t.Errorf("Clock = %q", got)
	}
	for ns, want := range map[int64]string{850: "850ns", 12_000: "12µs", 1_500_000: "1.5ms", 2_250_000_000: "2.25s"} {
		if got := Duration(ns); got != want {
			t.Errorf("Duration(%d) = %q; want %q", ns, got, want)
		}
	}
}

// genTrace produces a plausible random trace: loops iterating, tasks
// submitted from outside and run, timers, wakeups, channels, pauses.
func genTrace(n int, seed uint64) []trace.Event {
	r := rand.New(rand.NewPCG(seed, 1))
	names := []string{"register", "flood", "schedule", "tick", "slow"}
	out := make([]trace.Event, 0, n)
	var tm int64
	nextID := int64(1)
	kinds := trace.Kinds()
	for len(out) < n {
		tm += r.Int64N(200_000)
		loop := uint16(r.IntN(4)) // index 3 is never named: a placeholder
		e := trace.Event{Seq: uint64(len(out) + 1), Time: tm, Loop: loop}
		switch r.IntN(10) {
		case 0, 1:
			e.Kind, e.A, e.B, e.Str = trace.KindTaskSubmit, nextID, r.Int64N(300), names[r.IntN(len(names))]
			nextID++
		case 2:
			e.Kind, e.A, e.Str = trace.KindTaskRun, nextID-1-r.Int64N(5), names[r.IntN(len(names))]
		case 3:
			e.Kind, e.A, e.B, e.C = trace.KindTimerSchedule, r.Int64N(6000), tm+r.Int64N(1e9), r.Int64N(2)
		case 4:
			e.Kind, e.A = []trace.Kind{trace.KindTimerDue, trace.KindTimerCancel}[r.IntN(2)], r.Int64N(6000)
		default:
			e.Kind = kinds[r.IntN(len(kinds))]
			e.A, e.B, e.C, e.D = r.Int64N(600)-10, r.Int64N(600), r.Int64N(600), r.Int64N(600)
			e.Flag = r.IntN(2) == 0
			e.Str = names[r.IntN(len(names))]
		}
		out = append(out, e)
	}
	return out
}

func TestReplayBackwardsEqualsForwardFold(t *testing.T) {
	events := genTrace(30_000, 7)
	r := NewReplay(testLoops, events, 3)
	q := Query{Focus: 1, Head: 8, Log: 20, Filter: ParseFilter("worker")}
	rnd := rand.New(rand.NewPCG(1, 2))
	positions := []int{len(events), 0, 1, minCheckpointEvery, minCheckpointEvery - 1, len(events) - 1}
	for range 30 {
		positions = append(positions, rnd.IntN(len(events)+1))
	}
	for _, n := range positions {
		r.Seek(n)
		got := r.Snapshot(q)

		st := NewState(testLoops)
		st.NoteDropped(3)
		for i := range n {
			st.apply(&events[i])
		}
		want := st.snapshot(q)
		// The log of a fresh fold: the last matching events before n.
		mt := q.Filter.compile(st.names())
		want.Log = eventsUpTo(events, n).lines(q.Log, n, mt.match, nil, st)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("state at event %d differs between seek (from %d) and a fresh fold", n, r.Pos())
		}
	}
}

func TestReplayFindAndSeekTime(t *testing.T) {
	events := []trace.Event{
		ev(1, 1, trace.KindSelectEnd, nil),
		ev(1, 2, trace.KindSelectEnd, func(e *trace.Event) { e.Flag = true }),
		ev(1, 3, trace.KindRebuildEnd, nil),
		ev(1, 4, trace.KindSelectEnd, func(e *trace.Event) { e.Flag = true }),
	}
	r := NewReplay(testLoops, events, 0)
	br := Breaks{Premature: true}
	pos, _, ok := r.FindBreak(true, br)
	if !ok || pos != 2 {
		t.Fatalf("first premature at %d %v; want 2", pos, ok)
	}
	r.Seek(pos)
	if pos, _, ok = r.FindBreak(true, br); !ok || pos != 4 {
		t.Fatalf("next premature at %d %v; want 4", pos, ok)
	}
	r.Seek(4)
	if pos, _, ok = r.FindBreak(false, br); !ok || pos != 2 {
		t.Fatalf("previous premature at %d %v; want 2", pos, ok)
	}
	r.Seek(0)
	r.SeekTime(2_500_000)
	if r.Pos() != 2 || r.Time() != 2e6 {
		t.Errorf("SeekTime: pos %d time %d", r.Pos(), r.Time())
	}
	if (Breaks{}).Any() || !br.Any() {
		t.Error("Breaks.Any is wrong")
	}
}

// TestModelIsBounded feeds a million events with ever new ids and names and
// checks that nothing the model keeps grows with the count.
func TestModelIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a million events")
	}
	m := New(testLoops)
	events := genTrace(100_000, 11)
	for round := range 10 {
		for i := range events {
			events[i].A += int64(round) * 1_000_000 // fresh ids every round
		}
		for off := 0; off < len(events); off += 512 {
			m.Consume(events[off:min(off+512, len(events))])
		}
	}
	if got := m.Events(); got != 1_000_000 {
		t.Fatalf("folded %d events", got)
	}
	if m.log.n > LogCap {
		t.Errorf("log holds %d > %d", m.log.n, LogCap)
	}
	for i, l := range m.st.loops {
		if l == nil {
			continue
		}
		if l.queue.n > QueueMirrorCap || len(l.queue.buf) > QueueMirrorCap {
			t.Errorf("loop %d queue mirror %d/%d", i, l.queue.n, len(l.queue.buf))
		}
		if len(l.timers.byID) > TimerMirrorCap {
			t.Errorf("loop %d timer mirror %d", i, len(l.timers.byID))
		}
		if l.hist.n >= 2*HistoryLen {
			t.Errorf("loop %d history index %d", i, l.hist.n)
		}
	}
	if len(m.st.loops) > 4 {
		t.Errorf("%d loops for 4 indexes", len(m.st.loops))
	}
}

// FuzzApply checks that no event, however odd, makes the fold panic.
func FuzzApply(f *testing.F) {
	f.Add(uint8(trace.KindTaskRun), uint16(1), int64(-5), int64(1<<62), int64(0), true, "x")
	f.Add(uint8(trace.KindWheelTick), uint16(65535), int64(3), int64(-1), int64(9), false, "")
	f.Fuzz(func(t *testing.T, kind uint8, loop uint16, a, b, c int64, flag bool, s string) {
		m := New(testLoops)
		e := trace.Event{Kind: trace.Kind(kind), Loop: loop, A: a, B: b, C: c, D: a, E: b, Flag: flag, Str: s, Time: c}
		m.Consume([]trace.Event{e, e})
		snap := m.Snapshot(Query{Focus: int(loop), Head: 4, Log: 4, Filter: ParseFilter(s), Timeline: TimelineQuery{Cols: 7, Span: 1e6}})
		for _, l := range snap.Log {
			_ = Describe(&l.Event)
		}
	})
}

func TestFoldRing(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		ev(1, 1, trace.KindRingSubmit, func(e *trace.Event) { e.Str, e.C = "recv", 2 }),
		ev(1, 2, trace.KindRingEnter, func(e *trace.Event) { e.A, e.B, e.C, e.D, e.E = 2, 1, 3, 2, 3 }),
		ev(1, 3, trace.KindRingSubmit, func(e *trace.Event) { e.Str, e.C = "send", 3 }),
	})
	w := loopByName(t, m.Snapshot(Query{Focus: -1}), "worker-0")
	if want := (Ring{Enters: 1, SQ: 2, CQ: 3, InFlight: 3}); w.Ring != want {
		t.Errorf("ring %+v, want %+v", w.Ring, want)
	}
}

// A run of wheel ticks takes one log line with its count, so the events of
// a stepped loop stay on screen while the wheel ticks on.
func TestLogFoldsWheelTicks(t *testing.T) {
	m := New(testLoops)
	var batch []trace.Event
	for i := range 50 {
		batch = append(batch, ev(3, int64(i), trace.KindWheelTick, func(e *trace.Event) { e.A = int64(i) }))
	}
	batch = append(batch, ev(1, 60, trace.KindTaskRun, nil))
	batch = append(batch, ev(3, 61, trace.KindWheelTick, func(e *trace.Event) { e.A = 50 }))
	m.Consume(batch)
	s := m.Snapshot(Query{Focus: -1, Log: 3})
	if len(s.Log) != 3 {
		t.Fatalf("log has %d lines: %+v", len(s.Log), s.Log)
	}
	if l := s.Log[0]; l.Event.Kind != trace.KindWheelTick || l.Repeat != 49 || l.Event.A != 49 {
		t.Errorf("first line %+v, want the 50 ticks folded into the latest", l)
	}
	if l := s.Log[2]; l.Event.Kind != trace.KindWheelTick || l.Repeat != 0 {
		t.Errorf("last line %+v, want one tick", l)
	}
}

// A followed task is every task_* event with its id, across loops, and
// nothing else; a followed channel every event naming it.
func TestFollowFindsOneItemAcrossLoops(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		{Loop: 0, Time: 1, Kind: trace.KindAccept, A: 7, B: 20},
		{Loop: 1, Time: 2, Kind: trace.KindRegister, A: 7, B: 20},
		{Loop: 1, Time: 3, Kind: trace.KindTaskSubmit, A: 7, B: 3, Str: "task"},
		{Loop: 1, Time: 4, Kind: trace.KindTimerSchedule, A: 7, Str: "timer"},
		{Loop: 1, Time: 5, Kind: trace.KindRead, A: 7, B: 20, C: 64},
		{Loop: 1, Time: 6, Kind: trace.KindTaskRun, A: 7, B: 50e3, Str: "task"},
		{Loop: 1, Time: 7, Kind: trace.KindRead, A: 8, B: 21, C: 64},
	})
	kinds := func(fq FollowQuery) []trace.Kind {
		fq.Max = 100
		var out []trace.Kind
		for _, l := range m.Snapshot(Query{Focus: -1, Follow: fq}).FollowLog {
			out = append(out, l.Event.Kind)
		}
		return out
	}
	task, ok := FollowOf(&trace.Event{Kind: trace.KindTaskRun, A: 7})
	if !ok || task.Field != "id" {
		t.Fatalf("FollowOf(task_run) = %+v, %v", task, ok)
	}
	if got, want := kinds(task), []trace.Kind{trace.KindTaskSubmit, trace.KindTaskRun}; !reflect.DeepEqual(got, want) {
		t.Errorf("task 7: %v, want %v", got, want)
	}
	ch, _ := FollowOf(&trace.Event{Kind: trace.KindRead, A: 7})
	if got, want := kinds(ch), []trace.Kind{trace.KindAccept, trace.KindRegister, trace.KindRead}; !reflect.DeepEqual(got, want) {
		t.Errorf("channel 7: %v, want %v", got, want)
	}
}

// A replay at its end follows an item as the live model does.
func TestReplayFollowIsTheLiveFollow(t *testing.T) {
	events := []trace.Event{
		{Seq: 1, Loop: 0, Time: 1, Kind: trace.KindAccept, A: 7, B: 20},
		{Seq: 2, Loop: 1, Time: 2, Kind: trace.KindRegister, A: 7, B: 20},
		{Seq: 3, Loop: 1, Time: 5, Kind: trace.KindRead, A: 7, B: 20, C: 64},
		{Seq: 4, Loop: 1, Time: 7, Kind: trace.KindRead, A: 8, B: 21, C: 64},
	}
	live := New(testLoops)
	live.Consume(events)
	rep := NewReplay(testLoops, events, 0)
	rep.Seek(rep.Len())
	q := Query{Focus: -1, Follow: FollowQuery{Field: "channel", ID: 7, Max: 100}}
	lf, rf := live.Snapshot(q).FollowLog, rep.Snapshot(q).FollowLog
	if len(lf) != 3 || !reflect.DeepEqual(lf, rf) {
		t.Errorf("live follow %+v\nreplay follow %+v", lf, rf)
	}
}

// A followed task's path says how it got to run: the wakeup its submit
// got, the batch (tasks_begin) it ran in and the deadline check before it.
func TestFollowedTaskShowsItsWakeupAndBatch(t *testing.T) {
	m := New(testLoops)
	m.Consume([]trace.Event{
		{Loop: 1, Time: 1, Kind: trace.KindTaskSubmit, A: 9, B: 4, Flag: true, Str: "task"},
		{Loop: 2, Time: 1, Kind: trace.KindWakeup, Flag: true, Str: "external"},
		{Loop: 1, Time: 2, Kind: trace.KindWakeup, Flag: true, Str: "external"},
		{Loop: 1, Time: 3, Kind: trace.KindTasksBegin, A: 5, B: 40e3},
		{Loop: 1, Time: 4, Kind: trace.KindTaskRun, A: 8, B: 10, Str: "task"},
		{Loop: 1, Time: 5, Kind: trace.KindDeadlineCheck, A: 64},
		{Loop: 1, Time: 6, Kind: trace.KindTaskRun, A: 9, B: 10, Str: "task"},
		{Loop: 1, Time: 7, Kind: trace.KindTasksEnd, A: 5},
	})
	var got []trace.Kind
	for _, l := range m.Snapshot(Query{Focus: -1, Follow: FollowQuery{Field: "id", ID: 9, Max: 100}}).FollowLog {
		got = append(got, l.Event.Kind)
	}
	want := []trace.Kind{trace.KindTaskSubmit, trace.KindWakeup, trace.KindTasksBegin, trace.KindDeadlineCheck, trace.KindTaskRun}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("path %v, want %v", got, want)
	}
}

// The log's ring holds the same events, in the same places, however the
// collector cuts its batches: one at a time, in batches that wrap round
// the ring, or in one batch longer than the ring.
func TestEventLogBatchesAsOneByOne(t *testing.T) {
	events := genTrace(3*37+11, 9)
	one := newEventLog(37)
	for i := range events {
		one.add(events[i : i+1])
	}
	for _, cut := range []int{1, 5, 36, 37, 38, 100, len(events)} {
		g := newEventLog(37)
		for off := 0; off < len(events); off += cut {
			g.add(events[off:min(off+cut, len(events))])
		}
		if g.next != one.next || g.n != one.n || !slices.Equal(g.buf, one.buf) {
			t.Errorf("batches of %d: next %d n %d, want next %d n %d, ring equal %v",
				cut, g.next, g.n, one.next, one.n, slices.Equal(g.buf, one.buf))
		}
	}
}

// Walking the log for lines allocates the lines alone, live and in a
// replay: a frame reads the log every time.
func TestLogWalkAllocatesOnlyItsLines(t *testing.T) {
	events := genTrace(2000, 3)
	m := New(testLoops)
	m.Consume(events)
	none := func(*trace.Event) bool { return false }
	for name, walk := range map[string]func(){
		"live": func() {
			ev := m.log.events()
			_ = ev.lines(10, ev.n, none, nil, m.st)
		},
		"replay": func() { _ = eventsUpTo(events, len(events)).lines(10, len(events), none, nil, m.st) },
	} {
		if allocs := testing.AllocsPerRun(50, walk); allocs > 1 {
			t.Errorf("%s: %v allocations a walk, want the lines' one", name, allocs)
		}
	}
}
