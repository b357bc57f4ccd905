package reactor

import (
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
	} {
		s.Fold(&e, "worker-0")
	}
	want := Stats{TaskPanics: 1, HandlerPanics: 1, SelfWakeups: 1, WakeupsWritten: 1,
		WakeupsCoalesced: 1, Closed: 1, Rebuilds: 1, Premature: 1, MaxSelectCnt: 512, Connected: 1}
	if s != want {
		t.Fatalf("folded\n%+v\nwant\n%+v", s, want)
	}
}
