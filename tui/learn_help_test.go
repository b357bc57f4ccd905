package tui

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/learn"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// TestGlossaryDefinesScreenWords: every column header of the loop table,
// its state names long and short, and every label of the detail pane,
// long or short, is defined in the glossary the help shows, and its words
// fit the help's term column.
func TestGlossaryDefinesScreenWords(t *testing.T) {
	var all strings.Builder
	for _, g := range learn.Glossary() {
		if len([]rune(g.Word)) > 19 {
			t.Errorf("glossary word %q is wider than the help's term column", g.Word)
		}
		all.WriteString(" " + g.Word + " " + g.Meaning + " ")
	}
	text := all.String()
	words := []string{"LOOP", "TID", "STATE", "PHASE", "ITER", "SELCNT", "QUEUE", "SCHED", "CH", "LAST 1s io/tsk", "p50/p99", "worst"}
	// The state column's words, long and short.
	for s := trace.StateNotStarted; s <= trace.StateTerminated; s++ {
		var r widgets.LoopRow
		r.State = s
		words = append(words, widgets.StateText(r, true), widgets.StateText(r, false))
	}
	for _, long := range []bool{true, false} {
		in := detailInfo{ok: true, netty: "4.1"}
		in.loop.Shutdown.Start = 1
		in.loop.Ring.Enters = 1
		in.loop.Fault = "x"
		for _, g := range infoGroups(in, long) {
			for _, c := range g {
				words = append(words, c.label)
			}
		}
	}
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("the glossary does not define %q", w)
		}
	}
}
