package tui

import (
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
)

// The caption's figures are counters of loops ({worker-1.wakeups_written});
// the log lines of the events that count them are what the caption talks
// about, and the log marks them. countedBy says, per summary key, which
// events of loop count it.
var countedBy = map[string]func(e *trace.Event, loop string) bool{
	"selects":           kindIs(trace.KindSelectEnd),
	"select_cnt":        kindIs(trace.KindSelectEnd),
	"max_select_cnt":    kindIs(trace.KindSelectEnd),
	"premature":         func(e *trace.Event, _ string) bool { return e.Kind == trace.KindSelectEnd && e.Flag },
	"rebuilds":          kindIs(trace.KindRebuildEnd),
	"migrated":          kindIs(trace.KindRebuildEnd),
	"wakeups_written":   func(e *trace.Event, l string) bool { return e.Kind == trace.KindWakeup && e.Flag && e.Str != l },
	"wakeups_coalesced": func(e *trace.Event, _ string) bool { return e.Kind == trace.KindWakeup && !e.Flag },
	"self_wakeups":      func(e *trace.Event, l string) bool { return e.Kind == trace.KindWakeup && e.Str == l },
	"tasks_submitted":   kindIs(trace.KindTaskSubmit),
	"tasks_rejected":    kindIs(trace.KindTaskReject),
	"tasks_run":         kindIs(trace.KindTaskRun),
	"tail_tasks_run":    kindIs(trace.KindTailTasks),
	"deadline_checks":   kindIs(trace.KindDeadlineCheck),
	"deadline_hits":     func(e *trace.Event, _ string) bool { return e.Kind == trace.KindDeadlineCheck && e.Flag },
	"task_panics":       kindIs(trace.KindTaskPanic),
	"handler_panics":    kindIs(trace.KindException),
	"exceptions":        kindIs(trace.KindException),
	"channels":          kindIs(trace.KindRegister),
	"registered":        kindIs(trace.KindRegister),
	"accepted":          kindIs(trace.KindAccept),
	"connected":         kindIs(trace.KindConnect),
	"closed":            kindIs(trace.KindClose),
	"bytes_read":        kindIs(trace.KindRead),
	"reads":             kindIs(trace.KindRead),
	"bytes_written":     kindIs(trace.KindWrite),
	"writes":            kindIs(trace.KindWrite),
	"scheduled":         kindIs(trace.KindTimerSchedule),
	"timers_due":        kindIs(trace.KindTimerDue),
	"injected":          kindIs(trace.KindInject),
	"suspensions":       kindIs(trace.KindLoopSuspend),
	"resumes":           kindIs(trace.KindLoopResume),
}

func kindIs(k trace.Kind) func(*trace.Event, string) bool {
	return func(e *trace.Event, _ string) bool { return e.Kind == k }
}

// pointedLines returns the log's mark for a caption: whether a line is an
// event that counts one of the caption's figures; nil when it states none
// the log can show.
func pointedLines(points []scenarios.Point) func(*model.LogLine) bool {
	type rule struct {
		loop    string
		counted func(*trace.Event, string) bool
	}
	var rules []rule
	for _, p := range points {
		if f, ok := countedBy[p.Key]; ok {
			rules = append(rules, rule{p.Loop, f})
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return func(l *model.LogLine) bool {
		for _, r := range rules {
			if l.Loop == r.loop && r.counted(&l.Event, r.loop) {
				return true
			}
		}
		return false
	}
}
