package tui

import (
	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// judgeLocked computes the verdict once every model has a summary: the
// line the headless compare prints, from the same figures (sim.Judge).
// A model that failed to start leaves no verdict. v.mu is held.
func (v *compareView) judgeLocked() string {
	if v.judge == nil {
		return ""
	}
	sums := make([]*sim.Summary, 0, len(v.cols))
	for _, c := range v.cols {
		if c.summary == nil {
			return ""
		}
		sums = append(sums, c.summary)
	}
	return v.judge(sums)
}

// drawVerdict writes the verdict under the results table, wrapped to the
// rows left before bottom; until every model has run, it says so.
func (v *compareView) drawVerdict(scr tcell.Screen, x, y, w, bottom int) {
	th := v.sh.th
	if y >= bottom || v.judge == nil {
		return
	}
	if v.verdictView == "" {
		widgets.Put(scr, x+1, y, w-1, "verdict: once every model has run", th.Dim)
		return
	}
	lines := widgets.Wrap("verdict: "+v.verdictView, max(w-2, 10))
	for i, l := range lines {
		if y+i >= bottom {
			break
		}
		widgets.Put(scr, x+1, y+i, w-1, l, th.Bold)
	}
}
