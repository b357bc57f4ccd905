package widgets

import (
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// An auto-scaling group's suspend states fit the narrow column and keep
// Netty's names in the wide one.
func TestStateTextSuspended(t *testing.T) {
	for _, tc := range []struct {
		s           trace.State
		short, long string
	}{
		{trace.StateSuspending, "susp…", "SUSPENDING"},
		{trace.StateSuspended, "susp'd", "SUSPENDED"},
	} {
		var r LoopRow
		r.State = tc.s
		if got := StateText(r, false); got != tc.short {
			t.Errorf("%s short: %q, want %q", tc.s, got, tc.short)
		}
		if got := StateText(r, true); got != tc.long {
			t.Errorf("%s long: %q, want %q", tc.s, got, tc.long)
		}
	}
}
