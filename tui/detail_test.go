package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// A selector spinning for seconds counts premature returns in the hundreds
// of thousands; at 100 columns the counters' column is 31 cells, and the
// value must go to the next line rather than be cut at the edge.
func TestDetailCountersWrapRatherThanCut(t *testing.T) {
	in := detailInfo{ok: true, threshold: 512, ioRatio: 50, loop: model.Loop{Counters: model.Counters{
		Stats: reactor.Stats{SelectCnt: 159, MaxSelectCnt: 512, Premature: 480_113, Rebuilds: 1447, Migrated: 2894},
	}}}
	const w = 31
	var text []string
	for _, line := range infoLines(in, w, widgets.NewTheme(true)) {
		var b strings.Builder
		for _, sg := range line {
			b.WriteString(sg.Text)
		}
		s := strings.TrimRight(b.String(), " ")
		if widgets.Width(s) > w {
			t.Errorf("line %q is %d cells, wider than %d", s, widgets.Width(s), w)
		}
		text = append(text, s)
	}
	if text[0] != "selCnt 159/512  max 512" || text[1] != "prem 480k" {
		t.Errorf("first lines %q; want the select counters, then prem on a line of its own", text[:2])
	}
}

// Netty 4.2's loop has no ioRatio: the pane says so rather than show the
// scenario's ratio, which that loop ignores.
func TestDetailHasNoIORatioUnder42(t *testing.T) {
	in := detailInfo{ok: true, ioRatio: 50, netty: "4.2"}
	var text []string
	for _, line := range infoLines(in, 120, widgets.NewTheme(true)) {
		var b strings.Builder
		for _, sg := range line {
			b.WriteString(sg.Text)
		}
		text = append(text, b.String())
	}
	all := strings.Join(text, "\n")
	if !strings.Contains(all, "ioRatio none (4.2)") || strings.Contains(all, "ioRatio 50") {
		t.Errorf("detail under 4.2:\n%s", all)
	}
}

// A queue whose kept head has run, with thousands counted behind it, says
// why none is listed rather than "+N more" under an empty list.
func TestDetailQueueSaysWhyNoneIsListed(t *testing.T) {
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(30, 4)
	d := newDetailPane(widgets.NewTheme(true))
	d.set(detailInfo{ok: true, loop: model.Loop{Counters: model.Counters{Stats: reactor.Stats{QueueDepth: 10_900}}, QueueHidden: 10_900}})
	d.drawQueue(scr, 0, 0, 30, 4)
	scr.Show()
	got := screenText(scr)
	if !strings.Contains(got, "10.9k unlisted") || !strings.Contains(got, "(the view keeps 256)") || strings.Contains(got, "more") {
		t.Errorf("queue pane:\n%s", got)
	}
}
