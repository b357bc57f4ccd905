package tui

import (
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
)

// The caption's figures are counters of loops ({worker-1.wakeups_written});
// the log lines of the events that count them are what the caption talks
// about, and the log marks them. Whether an event counts toward a counter
// is the counters' own fold's to say (counters.Stats.Fold), so the marks
// follow it: a line is marked when folding its event moves the counter.

// pointedLines returns the log's mark for a caption: whether a line is an
// event that counts one of the caption's figures; nil when it states none
// the log can show (a live-only counter is in no event).
func pointedLines(points []scenarios.Point) func(*model.LogLine) bool {
	type rule struct {
		loop    string
		counter counters.Counter
	}
	var rules []rule
	for _, p := range points {
		if c, ok := counters.Lookup(p.Key); ok && !c.Live {
			rules = append(rules, rule{p.Loop, c})
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return func(l *model.LogLine) bool {
		for _, r := range rules {
			if l.Loop != r.loop {
				continue
			}
			var s counters.Stats
			s.Fold(&l.Event, r.loop)
			if r.counter.Get(&s) != 0 {
				return true
			}
		}
		return false
	}
}
