package counters

import "testing"

// Every breakpoint of the table is set and read through its kind, and a
// recorded reason reads back as the kind that gave it; a pause of another
// kind reads as no breakpoint.
func TestBreakTable(t *testing.T) {
	if n := len(BreakTable()); n != int(numBreaks)-1 {
		t.Fatalf("the table has %d rows for %d breakpoints", n, numBreaks-1)
	}
	var b Breakpoints
	for i, s := range BreakTable() {
		if s.Break != Break(i+1) || s.Label == "" || s.Word == "" {
			t.Errorf("row %d: %+v", i, s)
		}
		if BreakOf(s.Reason) != s.Break || s.Break.Reason() != s.Reason {
			t.Errorf("%v: reason %q reads back as %v", s.Break, s.Reason, BreakOf(s.Reason))
		}
		b.Set(s.Break, 3)
		want := 1
		if s.Numeric {
			want = 3
		}
		if got := b.Get(s.Break); got != want {
			t.Errorf("%v set to 3 reads %d, want %d", s.Break, got, want)
		}
	}
	if want := (Breakpoints{Rebuild: true, Premature: true, DeadlineHit: true, Wakeup: true, TaskPanic: true, QueueAbove: 3}); b != want {
		t.Errorf("all set: %+v, want %+v", b, want)
	}
	for _, s := range BreakTable() {
		b.Set(s.Break, 0)
	}
	if b.Any() {
		t.Errorf("all cleared: %+v", b)
	}
	for _, r := range []string{"", "step", "paused by user", "breakpoint"} {
		if k := BreakOf(r); k != NoBreak {
			t.Errorf("BreakOf(%q) = %v, want none", r, k)
		}
	}
}
