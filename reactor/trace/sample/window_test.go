package sample

import "testing"

// The last second ends at the newest periodic sample and starts at the
// newest one a second before it; pauses' samples are not window ends.
func TestLastWindow(t *testing.T) {
	at := func(ns int64, r Reason) *Sample { return &Sample{Time: ns, Reason: r} }
	ss := []*Sample{at(0, Tick), at(250e6, Tick), at(500e6, Tick), at(1250e6, Tick), at(1300e6, Pause)}
	old, newest, ok := LastWindow(ss, 1e9)
	if !ok || old != ss[1] || newest != ss[3] {
		t.Errorf("LastWindow = %v, %v, %v; want the samples at 250ms and 1250ms", old, newest, ok)
	}
	old, _, _ = LastWindow(ss[2:], 1e9)
	if old != ss[2] {
		t.Errorf("with less than a second: old = %v, want the oldest", old)
	}
	if _, _, ok := LastWindow(ss[3:], 1e9); ok {
		t.Error("one periodic sample makes a window")
	}
}

// Shares are percent of the window, rounded to 0.1, and a window's
// clients are the answers between its two samples.
func TestOver(t *testing.T) {
	old := &Sample{Time: 0, Loops: []Loop{{Index: 2, Split: Split{SelectNS: 100}, Clients: Hist{N: 1, Counts: []uint64{5, 1}}}}}
	now := &Sample{Time: 1e9, Loops: []Loop{{Index: 2, Split: Split{SelectNS: 100 + 600e6, IONS: 250e6, TaskNS: 100e6},
		Clients: Hist{N: 3, Counts: []uint64{5, 2, 9, 1}}}}}
	sh, d, ok := Over(old, now, 2)
	if want := (Shares{Select: 60, IO: 25, Tasks: 10}); !ok || sh != want {
		t.Errorf("Over = %+v, %v; want %+v", sh, ok, want)
	}
	if d.N != 2 {
		t.Errorf("window's answers = %d, want 2", d.N)
	}
	if _, _, ok := Over(old, now, 0); ok {
		t.Error("a loop neither sample holds has a window")
	}
	if sh := SharesOf(old.Loops[0].Split, now.Loops[0].Split, 0); sh != (Shares{}) {
		t.Errorf("shares of an empty window: %+v", sh)
	}
}

// A loop that accounts for more time than the window's wall (the sample
// read its clock before the loop's split, on a loaded machine) has shares
// of what it accounted: they add up to the whole, never past it. A split
// that went back (a loop restarted) has no share.
func TestSharesNeverAddUpPastTheWhole(t *testing.T) {
	from := Split{SelectNS: 1e9, IONS: 2e9, TaskNS: 3e9}
	to := Split{SelectNS: 1e9 + 992e6, IONS: 2e9 + 15e6, TaskNS: 3e9 + 1e6}
	sh := SharesOf(from, to, 1e9)
	if want := (Shares{Select: 98.4, IO: 1.5, Tasks: 0.1}); sh != want {
		t.Errorf("shares of 1 008 ms accounted in a 1 s window: %+v, want %+v", sh, want)
	}
	if sh := SharesOf(to, from, 1e9); sh != (Shares{}) {
		t.Errorf("shares of a split that went back: %+v", sh)
	}
}
