package tui

import (
	"strconv"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// maxWarnRows bounds the warnings line: a long list says how many more
// there are (the help does not hold them; reactorviz validate prints all).
const maxWarnRows = 3

// warnLines are the lines under the header that say what the run's
// scenario was set up with to no effect (a --set that changes nothing, an
// action after the run's end), until x dismisses them: printed before the
// screen opens, they would be read only after quitting.
func (sh *shell) warnLines(w int) []string {
	sc := sh.v.scenario()
	if sh.warnOff || sc == nil {
		return nil
	}
	ws := sc.Warnings()
	if rv, ok := sh.v.(interface{ warnings() []scenarios.Problem }); ok {
		ws = rv.warnings()
	}
	if len(ws) == 0 {
		return nil
	}
	var lines []string
	for i, p := range ws {
		text := "⚠ warning: " + p.String()
		if i == len(ws)-1 {
			text += " · x dismisses"
		}
		for _, l := range widgets.Wrap(text, max(w-2, 10)) {
			if len(lines) == maxWarnRows {
				more := len(ws) - i
				lines[maxWarnRows-1] = "⚠ … " + strconv.Itoa(more) + " more (reactorviz validate lists them) · x dismisses"
				return lines
			}
			lines = append(lines, l)
		}
	}
	return lines
}

// drawWarnings draws the warnings line at (x, y) and returns the rows it
// took.
func (sh *shell) drawWarnings(scr tcell.Screen, x, y, w int) int {
	lines := sh.warnLines(w)
	for i, l := range lines {
		widgets.Fill(scr, x, y+i, w, ' ', sh.th.Base)
		widgets.Put(scr, x+1, y+i, w-1, l, sh.th.Warn)
	}
	return len(lines)
}

// ReplayWarnings are the warnings a replay of tr shows under its header,
// which the browser's page repeats in its status line.
func ReplayWarnings(tr *jsonl.Trace) []string {
	var out []string
	for _, p := range recordedWarnings(tr.Header) {
		out = append(out, p.String())
	}
	return out
}

// recordedWarnings are the warnings of the built-in scenario a recording
// names, as its file has them. The settings recordedScenario applies from
// the header are the recording's own, not a --set of the learner's, and
// would warn of what they re-set: io_ratio under 4.2 (task-quantum), a
// master-slave's loop counts under single (compare-single).
func recordedWarnings(hdr jsonl.Header) []scenarios.Problem {
	if _, ok := scenarios.BuiltinSource(hdr.Scenario); !ok {
		return nil
	}
	sc, err := scenarios.Load(hdr.Scenario)
	if err != nil {
		return nil
	}
	return sc.Warnings()
}
