package reactor

import (
	"fmt"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// runAllTasks is runAllTasks(timeoutNanos) of Netty ≤4.1.43 (C15): move the
// due scheduled tasks to the tail of the queue once, then run tasks until
// the queue is empty or the budget is spent. Reading the clock costs time,
// so it is read only after every 64th task; the budget can therefore
// overshoot by up to 63 tasks. Tail tasks run after the batch either way.
// It reports whether any task ran.
func (l *EventLoop) runAllTasks(budget int64) bool {
	l.fetchFromScheduledTaskQueue()
	t, ok := l.pollTask()
	if !ok {
		l.afterRunningAllTasks()
		return false
	}
	start := l.now()
	deadline := start + budget
	l.tasksBegin(start, budget)
	ran, hit := int64(0), false
	now := start
	for {
		l.safeExecute(t)
		ran++
		if ran%tasksPerClockCheck == 0 {
			now = l.now()
			hit = now >= deadline
			l.deadlineChecked(ran, hit)
			if hit {
				break
			}
		}
		if t, ok = l.pollTask(); !ok {
			now = l.now()
			break
		}
	}
	l.afterRunningAllTasks()
	l.lastExec = now
	l.tasksEnded(ran, now-start, hit)
	return true
}

// runAllTasksUnbounded is runAllTasks() with no argument (ioRatio 100 and
// shutdown), as SingleThreadEventExecutor.runAllTasks() does it: move the
// due scheduled tasks to the queue once, then drain the queue, including
// tasks added to it meanwhile. It fetches again only when a bounded queue
// refused a due task (fetchFromScheduledTaskQueue returned false). A
// scheduled task that falls due during the drain waits for the next
// iteration, so a chain of 0-delay schedules or a fixed-rate task slower
// than its period still lets the loop select and do I/O in between.
func (l *EventLoop) runAllTasksUnbounded() bool {
	var start int64
	began, ran := false, int64(0)
	for {
		fetchedAll := l.fetchFromScheduledTaskQueue()
		t, ok := l.pollTask()
		if ok && !began {
			// Read after the fetch, whose timer_due events come first.
			start = l.now()
			l.tasksBegin(start, -1)
			began = true
		}
		for ok {
			l.safeExecute(t)
			ran++
			t, ok = l.pollTask()
		}
		if fetchedAll {
			break
		}
	}
	l.afterRunningAllTasks()
	if began {
		now := l.now()
		l.lastExec = now
		l.tasksEnded(ran, now-start, false)
	}
	return began
}

func (l *EventLoop) tasksBegin(start, budget int64) {
	if l.tracing() {
		l.emitAt(start, trace.Event{Kind: trace.KindTasksBegin, A: int64(l.tasks.Len() + 1), B: budget, Flag: l.iterationMark()})
	}
}

func (l *EventLoop) deadlineChecked(ran int64, hit bool) {
	add(&l.stats.DeadlineChecks, 1)
	if hit {
		add(&l.stats.DeadlineHits, 1)
	}
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindDeadlineCheck, A: ran, Flag: hit})
	}
}

func (l *EventLoop) tasksEnded(ran, took int64, hit bool) {
	add(&l.stats.TaskNanos, took)
	if l.tracing() {
		// The depth the batch leaves behind. A reader counting depth from
		// task events drifts: the queue's length counts the WAKEUP_TASK
		// markers a shutdown offers, which never run as tasks. This puts
		// it right once per batch.
		l.emit(trace.Event{Kind: trace.KindTasksEnd, A: ran, B: took, C: int64(l.tasks.Len()), Flag: hit})
	}
}

// pollTask takes the next task, skipping WAKEUP_TASK markers.
func (l *EventLoop) pollTask() (task, bool) {
	for {
		t, ok := l.tasks.Poll()
		if !ok || t.fn != nil {
			return t, ok
		}
	}
}

// afterRunningAllTasks runs every tail task, after every batch (C25).
func (l *EventLoop) afterRunningAllTasks() {
	ran := int64(0)
	for {
		t, ok := l.tailTasks.Poll()
		if !ok {
			break
		}
		l.safeExecute(t)
		ran++
	}
	if ran > 0 {
		add(&l.stats.TailTasksRun, ran)
		if l.tracing() {
			l.emit(trace.Event{Kind: trace.KindTailTasks, A: ran})
		}
	}
}

// safeExecute runs one task; a panic is recovered and reported, and the loop
// goes on (AbstractEventExecutor.safeExecute).
func (l *EventLoop) safeExecute(t task) {
	defer l.recoverTask(t)
	var start int64
	if l.tracing() {
		start = l.clock.Now()
	}
	t.fn()
	add(&l.stats.TasksRun, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindTaskRun, A: int64(t.id), B: l.clock.Now() - start, Str: t.name})
	}
}

func (l *EventLoop) recoverTask(t task) {
	r := recover()
	if r == nil {
		return
	}
	add(&l.stats.TaskPanics, 1)
	if l.tracing() {
		name := t.name
		if name == "" {
			name = "task"
		}
		l.emit(trace.Event{Kind: trace.KindTaskPanic, A: int64(t.id), Str: fmt.Sprintf("%s: %v", name, r)})
	}
}

// offerWakeupTask queues Netty's WAKEUP_TASK: a marker that makes hasTasks
// true so the next select does not block.
func (l *EventLoop) offerWakeupTask() { l.tasks.Offer(task{}) }
