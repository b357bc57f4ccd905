package tui

import (
	"strconv"
	"strings"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
)

// The concepts' content: for each concept of docs/concepts.md, the
// counters that show it and, for some, a sentence with their figures.
// The lesson layout (lesson.go) draws them; the mechanisms' longer items
// are in lesson_mechanisms.go.

// lessonCtx is what a concept's counters are read from: the frame, its
// focused loop and the scenario.
type lessonCtx struct {
	f    *model.Frame
	sc   *scenarios.Scenario
	info detailInfo // the focused loop, its ioRatio, design and threshold
}

// conceptView is what the concept block shows of one concept: its
// counters, always, and a sentence with their figures when there is room.
type conceptView struct {
	items func(lc *lessonCtx) []counter
	words func(lc *lessonCtx) string // nil: the counters say it
	// group: its counters are the groups', not the focused loop's, so
	// they show with the wheel's thread focused too.
	group bool
}

// lessonConcepts maps each concept (docs/concepts.md) to its counters. A
// concept a scenario lists and this table lacks shows nothing; a test
// keeps every built-in's concepts in it.
var lessonConcepts = map[string]conceptView{
	"C1": {group: true, items: func(lc *lessonCtx) []counter {
		return []counter{{"groups", groupSizes(lc.f)}, {"threads", startedOf(lc.f, "")}}
	}},
	"C2": {group: true, items: func(lc *lessonCtx) []counter {
		return []counter{{"model", scenarioModel(lc.sc)}, {"accepted in all", c(sumOf(lc.f, "", accepted))},
			{"channels in all", c(sumOf(lc.f, "", channels))}}
	}},
	"C3": {group: true, items: func(lc *lessonCtx) []counter {
		return []counter{{"bosses started", startedOf(lc.f, scenarios.GroupBoss)},
			{"accepts by boss", perLoop(lc.f, scenarios.GroupBoss, accepted)}}
	}},
	"C4": {group: true, items: func(lc *lessonCtx) []counter {
		return []counter{{"chooser", chooserOf(lc.f, scenarios.GroupWorker)},
			{"registered by worker", perLoop(lc.f, scenarios.GroupWorker, registered)}}
	}},
	"C5": {group: true, items: func(lc *lessonCtx) []counter {
		return []counter{{"workers", strconv.Itoa(groupSize(lc.f, scenarios.GroupWorker))},
			{"started", startedOf(lc.f, scenarios.GroupWorker)}}
	}, words: func(lc *lessonCtx) string {
		if n := groupSize(lc.f, scenarios.GroupWorker); lc.sc != nil && lc.sc.Workers == 0 && n >= 2 {
			// NettyRuntime.availableProcessors() × 2, as MultithreadEventLoopGroup's
			// DEFAULT_EVENT_LOOP_THREADS: the group was made that size from the
			// CPUs the process could use.
			return "workers: 0, the default: 2 × " + strconv.Itoa(n/2) + " CPUs the process may use = " +
				strconv.Itoa(n) + " loops; each starts its thread on its first task."
		}
		return "A group of size 0 gets 2 × CPU cores loops; each starts its thread on its first task."
	}},
	"C6": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"iterations", c(l.Iterations)}, {"io time", model.Duration(l.IONanos)}, {"task time", model.Duration(l.TaskNanos)}}
	}},
	"C7": {items: func(lc *lessonCtx) []counter {
		return []counter{{"select timeout", selectTimeout(lc.info.loop)}, {"next deadline", nextDeadline(lc.info)}}
	}},
	"C8": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"select", c(l.Selects)}, {"selectNow", c(l.SelectNows)}, {"timers due", c(l.TimersDue)}}
	}},
	"C9": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"selectCnt", selectCnt(lc.info)}, {"max", c(l.MaxSelectCnt)}, {"premature", c(l.Premature)}}
	}, words: func(lc *lessonCtx) string {
		if lc.info.threshold <= 0 {
			return "A select that returns early with nothing to do counts; rebuilding is off."
		}
		return "A select that returns early with nothing to do counts; at " + strconv.Itoa(lc.info.threshold) +
			" in a row the selector is rebuilt."
	}},
	"C10": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"rebuilds", c(l.Rebuilds)}, {"migrated", c(l.Migrated)}}
	}},
	"C11": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"wakeups written", c(l.WakeupsWritten)}, {"coalesced", c(l.WakeupsCoalesced)}, {"self", c(l.SelfWakeups)}}
	}, words: wakeupWords},
	"C12": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"state", l.State.String()}, {"tid", tidText(l.TID)}, {"submitted", c(l.TasksSubmitted)}}
	}},
	"C13": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"task queue", c(l.QueueDepth)}, {"deepest", c(l.MaxQueueDepth)}, {"tasks run", c(l.TasksRun)},
			{"fed by", producersText(l.Producers)}}
	}, words: mpscWords},
	"C14": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"heap", c(l.Timers)}, {"next", heapHead(lc.info)}, {"scheduled", c(l.Scheduled)},
			{"by deadline,id", heapOrder(lc.info, 3)}}
	}},
	"C15": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return append([]counter{{"64-task checks", c(l.DeadlineChecks)}, {"deadline hits", c(l.DeadlineHits)}}, worstItem(lc)...)
	}, words: func(*lessonCtx) string {
		return "runAllTasks reads the clock after every 64th task only, so a batch stops at the first check past its budget."
	}},
	"C16": {items: budgetItems},
	"C17": {group: true, items: func(lc *lessonCtx) []counter {
		w := lc.f.Wheel
		if !w.Present {
			return []counter{{"wheel", "not started"}}
		}
		return []counter{{"wheel tick", c(w.Tick)}, {"slot", strconv.Itoa(w.Cursor) + "/" + strconv.Itoa(w.Size)},
			{"pending", c(w.Pending)}, {"expired", c(lc.f.Snapshot.Wheel.Expired)}}
	}},
	"C18": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"channels", c(l.Channels)}, {"read", model.Bytes(l.BytesRead)}, {"written", model.Bytes(l.BytesWritten)}}
	}},
	"C19": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"task time", model.Duration(l.TaskNanos)}, {"task queue", c(l.QueueDepth)},
			{"panics", c(l.TaskPanics + l.HandlerPanics)}}
	}},
	"C20": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		items := []counter{{"keys last io", c(l.IOKeys)}, {"io took", model.Duration(l.IOTime)}}
		if l.Ring.Enters == 0 {
			// An io_uring loop reaps completions; it has no key array.
			items = append(items, counter{arrayName(lc), keysText(l.Keys, 2)})
		}
		return items
	}, words: keysWords},
	"C21": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"connected", c(l.Connected)}, {"accepted", c(l.Accepted)}, {"reads", liveOnly(lc, l.Reads)},
			{"writes", liveOnly(lc, l.Writes)}, {"ops in order", opsKey(l.Keys)}}
	}, words: readyOpsWords},
	"C22": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"trigger", triggerOf(lc.sc)}, {"reads", liveOnly(lc, l.Reads)}, {"empty reads", liveOnly(lc, l.EmptyReads)}}
	}},
	"C23": {items: func(lc *lessonCtx) []counter {
		l := lc.info.loop
		return []counter{{"state", l.State.String()}, {"quiet left", quietText(lc.info)}, {"closed", c(l.Closed)},
			{"rejected", c(l.TasksRejected)}}
	}, words: shutdownWords},
	"C24": {group: true, items: func(lc *lessonCtx) []counter {
		return []counter{{"clients connected", c(sumOf(lc.f, scenarios.GroupClient, connected))}}
	}},
	"C25": {items: func(lc *lessonCtx) []counter {
		return []counter{{"tail", c(lc.info.loop.TailTasksRun)}}
	}},
	"C26": {items: func(lc *lessonCtx) []counter {
		return []counter{{"accepted in all", c(sumOf(lc.f, "", accepted))}, {"register0 here", c(lc.info.loop.Registered)}}
	}},
}

// liveOnly is a system call counter the engine counts and no event
// records: a replay cannot know it.
func liveOnly(lc *lessonCtx, n int64) string {
	if lc.f.Recorded {
		return "live only"
	}
	return c(n)
}

// c is model.Count, short for the table above.
func c(n int64) string { return model.Count(n) }

func accepted(l *model.FrameLoop) int64   { return l.Accepted }
func channels(l *model.FrameLoop) int64   { return l.Channels }
func registered(l *model.FrameLoop) int64 { return l.Registered }
func connected(l *model.FrameLoop) int64  { return l.Connected }

// sumOf adds a figure over the loops of a group, or of every group for "".
func sumOf(f *model.Frame, group string, get func(*model.FrameLoop) int64) int64 {
	var n int64
	for i := range f.Rows {
		if group == "" || f.Rows[i].Group == group {
			n += get(&f.Rows[i])
		}
	}
	return n
}

// perLoop lists a figure for each loop of a group, in table order.
func perLoop(f *model.Frame, group string, get func(*model.FrameLoop) int64) string {
	var parts []string
	for i := range f.Rows {
		if f.Rows[i].Group == group {
			parts = append(parts, c(get(&f.Rows[i])))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// groupSizes names each group with its size: "boss 1 · worker 4".
func groupSizes(f *model.Frame) string {
	var parts []string
	for _, g := range f.Snapshot.Groups {
		parts = append(parts, g.Name+" "+strconv.Itoa(len(g.Loops)))
	}
	return strings.Join(parts, " · ")
}

func groupSize(f *model.Frame, group string) int {
	n := 0
	for i := range f.Rows {
		if f.Rows[i].Group == group {
			n++
		}
	}
	return n
}

// startedOf counts the loops of a group (all for "") whose thread has
// started: "2/4".
func startedOf(f *model.Frame, group string) string {
	n, on := 0, 0
	for i := range f.Rows {
		if group != "" && f.Rows[i].Group != group {
			continue
		}
		n++
		if f.Rows[i].TID != 0 {
			on++
		}
	}
	return strconv.Itoa(on) + "/" + strconv.Itoa(n)
}

func chooserOf(f *model.Frame, group string) string {
	for _, g := range f.Snapshot.Groups {
		if g.Name == group {
			return g.Chooser
		}
	}
	return "-"
}

func scenarioModel(sc *scenarios.Scenario) string {
	if sc == nil || sc.Model == "" {
		return "?"
	}
	return string(sc.Model)
}

func triggerOf(sc *scenarios.Scenario) string {
	if sc == nil || sc.Loop.Trigger == "" {
		return "?"
	}
	return string(sc.Loop.Trigger)
}

func tidText(tid int64) string {
	if tid == 0 {
		return "-"
	}
	return strconv.FormatInt(tid, 10)
}

func selectCnt(in detailInfo) string {
	s := c(in.loop.SelectCnt)
	if in.threshold > 0 {
		s += "/" + strconv.Itoa(in.threshold)
	}
	return s
}

func selectTimeout(l model.Loop) string {
	if l.Timeout <= 0 {
		return "-"
	}
	return model.Duration(l.Timeout)
}

// nextDeadline is the time to the nearest scheduled deadline, which bounds
// the select timeout (C7).
func nextDeadline(in detailInfo) string {
	l := in.loop
	switch {
	case !l.HasDeadline:
		return "none"
	case l.NextDeadline <= in.now:
		return "due"
	}
	return "in " + model.Duration(l.NextDeadline-in.now)
}

// heapHead is the top of the scheduled heap: its time to go and name.
func heapHead(in detailInfo) string {
	if len(in.loop.TimerHead) == 0 {
		return "-"
	}
	t := in.loop.TimerHead[0]
	when := dueText(t.Deadline, in.now)
	if t.Name == "" {
		return when
	}
	return when + " " + t.Name
}

// worstItem is the focused loop's clients' worst 250 ms window so far:
// where a batch that held the loop shows after the last second has
// forgotten it (C15, C16), live or replayed (the samples carry it). None
// before a window had an answer, or from a trace without samples.
func worstItem(lc *lessonCtx) []counter {
	if lc.f == nil {
		return nil
	}
	r, ok := lc.f.Row(lc.info.loop.Index)
	if !ok || r.Split.WorstP99US <= 0 {
		return nil
	}
	return []counter{{"clients' worst 250ms p99", model.Duration(int64(r.Split.WorstP99US * 1e3))}}
}

// budgetItems is ioRatio and the budget runAllTasks gets from it (C16),
// with the formula filled in from the loop's latest I/O time, as
// NioEventLoop.run computes it: ioTime × (100 − ioRatio) / ioRatio. Netty
// 4.2 has no ioRatio: every batch gets the task quantum. Then the
// clients' worst window.
func budgetItems(lc *lessonCtx) []counter {
	return append(budgetCounters(lc), worstItem(lc)...)
}

func budgetCounters(lc *lessonCtx) []counter {
	in := lc.info
	l := in.loop
	switch {
	case in.netty == string(scenarios.Netty42):
		return []counter{{"ioRatio", "none (4.2)"}, {"budget =", "task quantum " + budgetText(l.Budget)}}
	case in.ioRatio == 100:
		return []counter{{"ioRatio", "100"}, {"budget", "none: runAllTasks() runs every task"}}
	case in.ioRatio <= 0:
		return []counter{{"ioRatio", "?"}, {"budget", budgetText(l.Budget)}}
	case in.netty == string(scenarios.Netty41) && l.IOKeys == 0 && l.Iterations > 0:
		// NioEventLoop.run of 4.1.44+: nothing selected, runAllTasks(0).
		return []counter{{"ioRatio", strconv.Itoa(in.ioRatio)}, {"budget =", "0: no keys, runAllTasks(0) stops at 64 tasks"}}
	}
	r := in.ioRatio
	formula := "ioTime " + model.Duration(l.IOTime) + " × (100−" + strconv.Itoa(r) + ")/" + strconv.Itoa(r) +
		" = " + model.Duration(l.IOTime*int64(100-r)/int64(r))
	return []counter{{"ioRatio", strconv.Itoa(r)}, {"budget =", formula}}
}

func budgetText(b int64) string {
	switch {
	case b < 0:
		return "unlimited"
	case b == 0:
		return "-"
	}
	return model.Duration(b)
}

// wakeupWords says what the wakeup counters count, with their figures
// (C11).
func wakeupWords(lc *lessonCtx) string {
	l := lc.info.loop
	flag := "the wakenUp flag"
	if lc.info.netty == string(scenarios.Netty41) {
		flag = "nextWakeupNanos"
	}
	return c(l.WakeupsWritten) + " execute() calls from other threads found " + flag + " clear and wrote the eventfd; " +
		c(l.WakeupsCoalesced) + " found it set and wrote nothing; the loop wrote " + c(l.SelfWakeups) +
		" itself after a select, so no wakeup is lost."
}

// conceptsOf is the scenario's concepts the table knows, in its order;
// without a loop in focus (the wheel's thread), those of the groups.
func conceptsOf(sc *scenarios.Scenario, loop bool) []string {
	if sc == nil {
		return nil
	}
	var out []string
	for _, id := range sc.Concepts {
		if cv, ok := lessonConcepts[id]; ok && (loop || cv.group) {
			out = append(out, id)
		}
	}
	return out
}
