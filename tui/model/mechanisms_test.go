package model

import (
	"reflect"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// The keys of an I/O phase are the runs of events on one channel, each
// with its ops in the order the handling did them: a write before the
// key's read is OP_WRITE's flush, one after it the reply. A listening
// channel's accepts are one key. Outside the I/O phase a write (a task's
// flush) is no key's.
func TestSelectedKeysFromTheirEvents(t *testing.T) {
	on := func(k trace.Kind, ch int64) trace.Event {
		return ev(1, 2, k, func(e *trace.Event) { e.A = ch })
	}
	m := New(testLoops)
	m.Consume([]trace.Event{
		ev(1, 1, trace.KindIOBegin, nil),
		on(trace.KindRead, 7), on(trace.KindRead, 7), on(trace.KindWrite, 7),
		on(trace.KindConnect, 3), on(trace.KindWrite, 3), on(trace.KindRead, 3),
		on(trace.KindAccept, 20), on(trace.KindAccept, 21),
		ev(1, 3, trace.KindIOEnd, func(e *trace.Event) { e.A = 3 }),
		ev(1, 4, trace.KindTasksBegin, nil),
		on(trace.KindWrite, 9),
	})
	got := loopByName(t, m.Snapshot(Query{Focus: 1, Head: 8}), "worker-0").Keys
	want := Keys{Selected: 3, Time: 1e6, List: []Key{
		{Channel: 7, Ops: []KeyOp{OpRead, OpReply}},
		{Channel: 3, Ops: []KeyOp{OpConnect, OpWrite, OpRead}},
		{Channel: 20, Ops: []KeyOp{OpAccept}, Accepts: 2},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys %+v\nwant %+v", got, want)
	}
	// A phase with no key leaves them shown, and is counted.
	m.Consume([]trace.Event{ev(1, 5, trace.KindIOBegin, nil), ev(1, 5, trace.KindIOEnd, nil)})
	got = loopByName(t, m.Snapshot(Query{Focus: 1, Head: 8}), "worker-0").Keys
	want.EmptyAfter = 1
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after an empty phase: keys %+v\nwant %+v", got, want)
	}
	// The next phase with keys replaces them as it runs; past keyCap keys
	// are counted.
	batch := []trace.Event{ev(1, 5, trace.KindIOBegin, nil)}
	for ch := range int64(keyCap + 3) {
		batch = append(batch, on(trace.KindRead, 100+ch))
	}
	m.Consume(batch)
	got = loopByName(t, m.Snapshot(Query{Focus: 1, Head: 8}), "worker-0").Keys
	if len(got.List) != keyCap || got.Unlisted != 3 || got.Selected != -1 || got.List[0].Channel != 100 {
		t.Errorf("a running phase of %d keys: %d listed, %d unlisted, selected %d, first ch%d",
			keyCap+3, len(got.List), got.Unlisted, got.Selected, got.List[0].Channel)
	}
}

// The quiet period counts from the end of the loop's last task batch, or
// its thread's start, not from the shutdown: a loop idle for longer has
// none left. A batch starts it again, and SHUTDOWN ends it.
func TestShutdownQuietPeriodCountsDown(t *testing.T) {
	const ms = int64(1e6)
	m := New(testLoops)
	state := func(tms int64, to trace.State, quiet, timeout int64) trace.Event {
		return ev(1, tms, trace.KindState, func(e *trace.Event) { e.B, e.D, e.E = int64(to), quiet, timeout })
	}
	m.Consume([]trace.Event{state(100, trace.StateStarted, 0, 0), state(1000, trace.StateShuttingDown, 2000*ms, 15000*ms)})
	sd := loopByName(t, m.Snapshot(Query{Focus: -1}), "worker-0").Shutdown
	if left, ok := sd.QuietLeft(1500 * ms); !ok || left != 600*ms {
		t.Errorf("1.4s after the start: %v left (%v), want 0.6s", left, ok)
	}
	if left, _ := sd.QuietLeft(2500 * ms); left != 0 {
		t.Errorf("2.4s after the start: %v left, want none", left)
	}
	m.Consume([]trace.Event{ev(1, 2500, trace.KindTasksEnd, func(e *trace.Event) { e.A = 3 })})
	sd = loopByName(t, m.Snapshot(Query{Focus: -1}), "worker-0").Shutdown
	if left, _ := sd.QuietLeft(3000 * ms); left != 1500*ms {
		t.Errorf("0.5s after a batch: %v left, want 1.5s", left)
	}
	if left := sd.TimeoutLeft(3000 * ms); left != 13000*ms {
		t.Errorf("timeout in %v, want 13s", left)
	}
	m.Consume([]trace.Event{state(4600, trace.StateShutdown, 0, 0)})
	sd = loopByName(t, m.Snapshot(Query{Focus: -1}), "worker-0").Shutdown
	if _, ok := sd.QuietLeft(5000 * ms); ok || sd.End != 4600*ms {
		t.Errorf("after SHUTDOWN: counting %v, end %d", ok, sd.End)
	}
}
