package learn

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
)

// A question holds the run Lead before its moment, or before the last
// scripted action since the previous question's moment when that comes
// later; an action at the start does not move it.
func TestHoldAt(t *testing.T) {
	sc, err := scenarios.LoadBuiltin("wakeup-coalescing") // floods at 1s and 2s
	if err != nil {
		t.Fatal(err)
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct{ at, since, want time.Duration }{
		{ms(1500), 0, ms(999)},
		{ms(2500), ms(1500), ms(1999)},
		{ms(900), 0, ms(500)},          // no action before it
		{ms(2500), ms(2000), ms(2100)}, // the 2s flood was the last question's
		{ms(200), 0, 0},
	} {
		if got := HoldAt(sc, tc.at, tc.since); got != tc.want {
			t.Errorf("HoldAt(%v, since %v) = %v, want %v", tc.at, tc.since, got, tc.want)
		}
	}
	if got := HoldAt(nil, ms(1500), 0); got != ms(1100) {
		t.Errorf("without a scenario: %v", got)
	}
}
