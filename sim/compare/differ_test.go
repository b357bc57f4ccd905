package compare

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/sim"
)

// lane is a serving lane of 80 known cells, busy of them drawn busy and
// marked of them marked.
func lane(busy, marked int) Lane {
	return Lane{Busy: float64(busy) / 80, Known: 80, BusyCells: busy, Marked: marked}
}

// A run's look averages its serving lanes; an idle lane (a boss) and a
// lane with nothing known are left out.
func TestLookLeavesIdleLanesOut(t *testing.T) {
	busy, marked := lanesLook([]Lane{lane(80, 8), lane(40, 0), {Busy: 0.01, Known: 80}, {Busy: 0.5}})
	if busy != 0.75 || marked != 0.05 {
		t.Errorf("look: busy %v, marked %v; want 0.75 and 0.05", busy, marked)
	}
	if b, m := lanesLook(nil); b != 0 || m != 0 {
		t.Errorf("no lanes: %v, %v", b, m)
	}
	if !MarksDiffer([][]Lane{{lane(40, 16)}, {lane(40, 0)}}) || MarksDiffer([][]Lane{{lane(40, 4)}, {lane(40, 0)}}) {
		t.Error("marks differ from a tenth of the cells")
	}
}

// Runs whose lanes look apart at narrow spans and alike at wide ones open
// at the widest span within a twentieth of the best; alike at every span,
// there is no opening.
func TestWhereRunsDiffer(t *testing.T) {
	spans := []int64{20e6, 50e6, 100e6, 1e9}
	look := func(span, _ int64) [][]Lane {
		if span <= 50e6 {
			return [][]Lane{{lane(79, 0)}, {lane(40, 0)}}
		}
		return [][]Lane{{lane(80, 0)}, {lane(78, 0)}}
	}
	span, at, ok := WhereRunsDiffer(spans, 2e9, look)
	if !ok || span != 50e6 || at <= 0 || at > 2e9 {
		t.Errorf("opened at span %d, t %d (%v); want 50ms inside the load", span, at, ok)
	}
	alike := func(int64, int64) [][]Lane { return [][]Lane{{lane(40, 0)}, {lane(42, 0)}} }
	if _, _, ok := WhereRunsDiffer(spans, 2e9, alike); ok {
		t.Error("lanes alike at every span opened somewhere")
	}
	if _, _, ok := WhereRunsDiffer(nil, 2e9, look); ok {
		t.Error("no span to try opened somewhere")
	}
}

// One run busy at one moment of twelve is a hiccup: the median over the
// moments leaves it out.
func TestWhereRunsDifferIgnoresAHiccup(t *testing.T) {
	look := func(span, at int64) [][]Lane {
		if at == span+(2e9-span)/openMoments {
			return [][]Lane{{lane(80, 0)}, {lane(8, 0)}}
		}
		return [][]Lane{{lane(8, 0)}, {lane(8, 0)}}
	}
	if span, at, ok := WhereRunsDiffer([]int64{20e6, 100e6}, 2e9, look); ok {
		t.Errorf("opened on a hiccup: span %d at %d", span, at)
	}
}

// The load ends with the earliest recording, or earlier with the clients'
// windows.
func TestLoadEnd(t *testing.T) {
	ws := make([]sim.Window, 4)
	if got := LoadEnd([]int64{3e9, 2e9}, [][]sim.Window{nil, nil}); got != 2e9 {
		t.Errorf("load end %d, want the shorter recording's 2s", got)
	}
	if got, want := LoadEnd([]int64{3e9, 2e9}, [][]sim.Window{ws, nil}), 4*int64(sim.WindowEvery); got != want {
		t.Errorf("load end %v, want the windows' %v", time.Duration(got), time.Duration(want))
	}
}
