package wheel

import (
	"slices"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

func newTracedTimer(t *testing.T, on bool) (*Timer, *fakeClock, *trace.Ring) {
	t.Helper()
	ring := trace.NewRing(3, 1024)
	var sw trace.Switch
	sw.Set(on)
	tm, clk := newTestTimer(t, Config{}, WithTrace(ring, &sw, trace.NewClock()))
	return tm, clk, ring
}

func eventsOf(ring *trace.Ring, kind trace.Kind) []trace.Event {
	var out []trace.Event
	for _, e := range ring.Drain(nil) {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

type tickFields struct{ tick, slot, expired, pending int64 }

func TestTraceTicksAndExpiry(t *testing.T) {
	tm, clk, ring := newTracedTimer(t, true)
	to := mustTimeout(t, tm, "idle", 25*time.Millisecond, func() {})
	clk.ticks(t, 3, testTick)
	all := ring.Drain(nil)

	var ticks []tickFields
	var expires []trace.Event
	for _, e := range all {
		if e.Loop != 3 || e.Time < 0 {
			t.Fatalf("event not stamped by the ring or clock: %+v", e)
		}
		switch e.Kind {
		case trace.KindWheelTick:
			ticks = append(ticks, tickFields{e.A, e.B, e.C, e.D})
		case trace.KindWheelExpire:
			expires = append(expires, e)
		}
	}
	wantTicks := []tickFields{
		{tick: 0, slot: 0, expired: 0, pending: 1},
		{tick: 1, slot: 1, expired: 0, pending: 1},
		{tick: 2, slot: 2, expired: 1, pending: 0},
	}
	if !slices.Equal(ticks, wantTicks) {
		t.Fatalf("wheel_tick events %+v, want %+v", ticks, wantTicks)
	}
	// deadline_ns is on the wheel's clock: its start plus the delay.
	if len(expires) != 1 {
		t.Fatalf("%d wheel_expire events, want 1", len(expires))
	}
	e := expires[0]
	if e.A != 2 || e.B != 2 || e.C != int64(to.ID()) || e.D != int64(testOrigin+25*time.Millisecond) {
		t.Fatalf("wheel_expire = tick %d slot %d id %d deadline %d", e.A, e.B, e.C, e.D)
	}
	if first := all[0]; first.Kind != trace.KindState || trace.State(first.B) != trace.StateStarted || first.C != int64(tm.TID()) || first.C == 0 {
		t.Fatalf("first event %v (tid %d), want the wheel thread's start with its tid %d", first.Kind, first.C, tm.TID())
	}
}

func TestTracePastDeadlineUsesCurrentSlot(t *testing.T) {
	tm, clk, ring := newTracedTimer(t, true)
	mustTimeout(t, tm, "keeps the wheel busy", time.Hour, func() {})
	clk.ticks(t, 5, testTick)
	ring.Drain(nil)
	mustTimeout(t, tm, "late", -30*time.Millisecond, func() {})
	clk.ticks(t, 1, testTick)
	ex := eventsOf(ring, trace.KindWheelExpire)
	if len(ex) != 1 || ex[0].A != 5 || ex[0].B != 5 {
		t.Fatalf("wheel_expire %+v, want tick 5 in slot 5", ex)
	}
}

func TestTracePanicEvent(t *testing.T) {
	tm, clk, ring := newTracedTimer(t, true)
	to := mustTimeout(t, tm, "bad", 0, func() { panic("no") })
	clk.ticks(t, 1, testTick)
	ev := eventsOf(ring, trace.KindTaskPanic)
	if len(ev) != 1 || ev[0].A != int64(to.ID()) || ev[0].Str != "bad" {
		t.Fatalf("task_panic events %+v", ev)
	}
}

func TestTraceSilentWhenSwitchOff(t *testing.T) {
	tm, clk, ring := newTracedTimer(t, false)
	mustTimeout(t, tm, "idle", 5*time.Millisecond, func() {})
	mustTimeout(t, tm, "bad", 0, func() { panic("no") })
	clk.ticks(t, 3, testTick)
	if _, err := tm.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := ring.Len(); n != 0 || tm.Stats().Expired != 2 {
		t.Fatalf("%d events with the switch off (expired %d)", n, tm.Stats().Expired)
	}
}
