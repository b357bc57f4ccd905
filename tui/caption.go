package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// firedSession is a session that reports the timeline actions it played
// (*sim.Run does); without it the caption shows the watch notes only.
type firedSession interface {
	Fired() []sim.Fired
}

// flashFor is how long, on the run clock, a loop's row flashes after a
// timeline action reached it, and how long the action's line stays lit.
const flashFor = 1500 * time.Millisecond

// captionView is what the caption lines say at one moment: the latest
// timeline action played, and the scenario's "watch" note for the time.
type captionView struct {
	action string // "t=1.0s: 50 000 tasks … submitted to worker-0 from outside; …"
	recent bool   // the action happened within flashFor
	watch  string
}

// captionAt builds the caption of a scenario at run time now from the
// actions fired so far.
func captionAt(sc *scenarios.Scenario, fired []sim.Fired, now time.Duration) captionView {
	var c captionView
	if sc != nil {
		c.watch = watchAt(sc, now)
	}
	if n := len(fired); n > 0 {
		// Every action of the latest moment, at the scenario's time for
		// it: the clock may have moved on while a big one was applied.
		last := fired[n-1]
		var what []string
		for _, f := range fired[n-sameMoment(fired):] {
			what = append(what, scenarios.Describe(f.Action))
		}
		c.action = "t=" + seconds(last.Action.Time()) + ": " + strings.Join(what, "; ")
		c.recent = now-last.At < flashFor
	}
	return c
}

// sameMoment counts the latest actions that fired at the same scenario
// time as the last one: a timeline often does two things at once.
func sameMoment(fired []sim.Fired) int {
	at := fired[len(fired)-1].Action.Time()
	k := 0
	for i := len(fired) - 1; i >= 0 && fired[i].Action.Time() == at; i-- {
		k++
	}
	return k
}

// watchAt is the scenario's note for run time t: every caption that shares
// the latest start time not after t, in order, since a scenario may give
// several notes for the same moment.
func watchAt(sc *scenarios.Scenario, t time.Duration) string {
	var parts []string
	var at time.Duration
	for _, c := range sc.Watch {
		if c.At > t {
			break
		}
		if len(parts) > 0 && c.At != at {
			parts = parts[:0]
		}
		at = c.At
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, " ")
}

// seconds formats a run-clock time as "12.3s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// flashLoops marks the rows of the loops a timeline action reached within
// flashFor of now. A breakpoint's row is marked by the frame itself.
func flashLoops(f *model.Frame, fired []sim.Fired, now time.Duration) {
	for i := len(fired) - 1; i >= 0 && now-fired[i].At < flashFor; i-- {
		for _, li := range fired[i].Loops {
			for ri := range f.Rows {
				if f.Rows[ri].Index == li {
					f.Rows[ri].Flash = true
				}
			}
		}
	}
}

// captionRows is how many rows the caption takes on a screen w × h: what
// its text needs, up to one row on a small terminal and three on a tall
// one; none when there is nothing to say.
func captionRows(c captionView, w, h int) int {
	need := 0
	if c.action != "" {
		need++
	}
	if c.watch != "" {
		need += len(widgets.Wrap(c.watch, max(w-len(watchLabel), 1)))
	}
	limit := 3
	switch {
	case h < 30:
		limit = 1
	case h < 38:
		limit = 2
	}
	return min(need, limit)
}

// watchLabel leads the watch note.
const watchLabel = "watch: "

// drawCaption draws the caption in rows rows at (x, y): the latest action
// first, lit while recent, then the watch note wrapped into what is left.
// On one row a recent action wins over the note.
func drawCaption(scr tcell.Screen, th *widgets.Theme, c captionView, x, y, w, rows int) {
	widgets.Clear(scr, x, y, w, rows, th.Base)
	if rows <= 0 {
		return
	}
	actSt := th.Dim
	if c.recent {
		actSt = th.Warn
	}
	line := 0
	if c.action != "" && (rows > 1 || c.recent || c.watch == "") {
		widgets.PutSegs(scr, x, y, w, []widgets.Seg{widgets.S("▸ ", th.Accent), widgets.S(c.action, actSt)})
		line++
	}
	if c.watch == "" || line >= rows {
		return
	}
	label := watchLabel
	lines := widgets.Wrap(c.watch, max(w-len(label), 1))
	for i := 0; line < rows && i < len(lines); i, line = i+1, line+1 {
		text := lines[i]
		if line == rows-1 && i < len(lines)-1 {
			text = widgets.Cut(text+" "+lines[i+1], w-len(label))
		}
		lead := widgets.S(strings.Repeat(" ", len(label)), th.Base)
		if i == 0 {
			lead = widgets.S(label, th.Title)
		}
		widgets.PutSegs(scr, x, y+line, w, []widgets.Seg{lead, widgets.S(text, th.Base)})
	}
}

// recordedScenario is the built-in scenario a trace header names, for a
// replay's captions; nil when the trace names none or one not built in (a
// file of the same name may have changed since, or be elsewhere).
func recordedScenario(name string) *scenarios.Scenario {
	if _, ok := scenarios.BuiltinSource(name); !ok {
		return nil
	}
	sc, err := scenarios.Load(name)
	if err != nil {
		return nil
	}
	return sc
}

// timelineUpTo is the scenario's timeline as a replay shows it: the
// actions due by trace time t, each at its scenario time, reaching the
// loops of the trace's loop table that its pattern names.
func timelineUpTo(sc *scenarios.Scenario, loops []trace.LoopInfo, t time.Duration) []sim.Fired {
	if sc == nil {
		return nil
	}
	var out []sim.Fired
	for _, a := range sc.Timeline {
		if a.Time() > t {
			continue
		}
		f := sim.Fired{At: a.Time(), Action: a}
		if p := sim.ActionLoop(a); p != "" {
			for _, name := range sc.MatchLoops(p) {
				for i, l := range loops {
					if l.Name == name {
						f.Loops = append(f.Loops, i)
					}
				}
			}
		}
		out = append(out, f)
	}
	return out
}
