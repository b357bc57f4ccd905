package reactor

import (
	"container/heap"
	"errors"
	"sync/atomic"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// ScheduledFuture is a task scheduled on a loop's heap (C14). Netty keeps
// these in a priority queue ordered by (deadline, id), not in the timing
// wheel; HashedWheelTimer is a separate utility (package wheel).
type ScheduledFuture struct {
	loop     *EventLoop
	fn       func()
	name     string
	id       uint64 // per-loop sequence, assigned on the loop thread
	deadline int64  // loop clock nanoseconds
	period   int64  // > 0 fixed rate, < 0 fixed delay, 0 one-shot
	index    int    // position in the heap, -1 when not in it
	state    atomic.Int32
}

const (
	futurePending int32 = iota
	futureDone
	futureCancelled
)

// ID returns the task's per-loop id (0 until it reaches the loop).
func (f *ScheduledFuture) ID() uint64 { return f.id }

// Done reports whether a one-shot task has run.
func (f *ScheduledFuture) Done() bool { return f.state.Load() == futureDone }

// Cancelled reports whether Cancel succeeded.
func (f *ScheduledFuture) Cancelled() bool { return f.state.Load() == futureCancelled }

// Cancel stops the task if it has not run (or, for a periodic task, stops
// its future runs). Any goroutine: on the loop thread the task leaves the
// heap now; from elsewhere the removal travels as a lazy task, with no
// wakeup, as in Netty.
func (f *ScheduledFuture) Cancel() bool {
	if !f.state.CompareAndSwap(futurePending, futureCancelled) {
		return false
	}
	l := f.loop
	if l.InEventLoop() {
		l.removeScheduled(f)
	} else {
		_ = l.LazyExecute("cancel", func() { l.removeScheduled(f) })
	}
	return true
}

// Schedule runs fn once after delay. Any goroutine.
func (l *EventLoop) Schedule(name string, delay time.Duration, fn func()) (*ScheduledFuture, error) {
	return l.schedule(name, max(delay, 0), 0, fn)
}

// ScheduleAtFixedRate runs fn after initial delay and then every period,
// measured from the previous deadline: a task that falls behind catches up.
func (l *EventLoop) ScheduleAtFixedRate(name string, initial, period time.Duration, fn func()) (*ScheduledFuture, error) {
	if initial < 0 || period <= 0 {
		return nil, errors.New("schedule: initial delay must be >= 0 and period > 0")
	}
	return l.schedule(name, initial, int64(period), fn)
}

// ScheduleWithFixedDelay runs fn after initial delay and then delay after
// each run ends.
func (l *EventLoop) ScheduleWithFixedDelay(name string, initial, delay time.Duration, fn func()) (*ScheduledFuture, error) {
	if initial < 0 || delay <= 0 {
		return nil, errors.New("schedule: initial delay must be >= 0 and delay > 0")
	}
	return l.schedule(name, initial, -int64(delay), fn)
}

func (l *EventLoop) schedule(name string, delay time.Duration, period int64, fn func()) (*ScheduledFuture, error) {
	if fn == nil {
		return nil, errors.New("nil task")
	}
	f := &ScheduledFuture{loop: l, fn: fn, name: name, period: period, index: -1}
	f.deadline = l.now() + int64(delay)
	if l.InEventLoop() {
		l.insertScheduled(f)
		return f, nil
	}
	// From another goroutine the insertion travels through the task queue,
	// so the heap is only ever touched by the loop thread, as in
	// AbstractScheduledEventExecutor.schedule.
	if err := l.scheduleFromOutside(f); err != nil {
		return nil, err
	}
	return f, nil
}

// scheduleFromOutside sends f to the loop thread. In 4.1.43 the task that
// carries it adds it to the heap. From 4.1.44 on (4.1 and 4.2) the task is
// the ScheduledFutureTask itself, and its run() on arrival inserts it only
// if time remains; an already-due task runs there and then, in submission
// order (arrived). Only 4.1's NioEventLoop and EpollEventLoop override
// beforeScheduledTaskSubmitted and afterScheduledTaskSubmitted: a loop
// sleeping until an earlier deadline, or running (AWAKE), is not woken;
// the task goes in with lazyExecute, and if the loop published a later
// deadline meanwhile, a WAKEUP_TASK follows. 4.1.43 and 4.2 wake the loop
// for every schedule.
func (l *EventLoop) scheduleFromOutside(f *ScheduledFuture) error {
	run := func() { l.arrived(f) }
	if l.cfg.Netty == Netty4143 {
		run = func() { l.insertScheduled(f) }
	}
	if l.cfg.Netty != Netty41 || f.deadline < l.nextWakeup.Load() {
		return l.ExecuteNamed("schedule", run)
	}
	if err := l.LazyExecute("schedule", run); err != nil {
		return err
	}
	if f.deadline < l.nextWakeup.Load() {
		l.executeWakeupTask()
	}
	return nil
}

// arrived is ScheduledFutureTask.run on the loop thread for a task
// scheduled from outside (4.1.44+): with time remaining it goes on the
// heap (or, cancelled meanwhile, is dropped); already due, it runs now.
func (l *EventLoop) arrived(f *ScheduledFuture) {
	if f.deadline > l.now() {
		l.insertScheduled(f)
		return
	}
	l.runScheduled(f)
}

// executeWakeupTask is execute(WAKEUP_TASK): a marker that keeps the next
// select from blocking, and a wakeup.
func (l *EventLoop) executeWakeupTask() {
	if !l.enter() {
		return
	}
	defer l.exit()
	l.offerWakeupTask()
	l.wakeup(nil)
}

func (l *EventLoop) insertScheduled(f *ScheduledFuture) {
	if f.state.Load() != futurePending {
		return
	}
	if f.id == 0 {
		l.schedSeq++
		f.id = l.schedSeq
	}
	heap.Push(&l.scheduled, f)
	add(&l.stats.Scheduled, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindTimerSchedule, A: int64(f.id), B: f.deadline, C: f.period, Str: f.name})
	}
}

func (l *EventLoop) removeScheduled(f *ScheduledFuture) {
	if f.index >= 0 && f.index < len(l.scheduled) && l.scheduled[f.index] == f {
		heap.Remove(&l.scheduled, f.index)
	}
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindTimerCancel, A: int64(f.id), B: f.deadline})
	}
}

// delayNanos is how long until the next scheduled task, or 1 s with none
// (SCHEDULE_PURGE_INTERVAL): the classic loop's idle cap (C7).
func (l *EventLoop) delayNanos(now int64) int64 {
	if len(l.scheduled) == 0 {
		return schedulePurgeInterval
	}
	return max(l.scheduled[0].deadline-now, 0)
}

// scheduledDue reports whether the heap's head is due.
func (l *EventLoop) scheduledDue(now int64) bool {
	return len(l.scheduled) > 0 && l.scheduled[0].deadline <= now
}

// fetchFromScheduledTaskQueue moves every due task to the tail of the task
// queue, behind tasks already submitted. A bounded queue that is full puts
// the task back and the fetch reports false, as
// SingleThreadEventExecutor.fetchFromScheduledTaskQueue does.
func (l *EventLoop) fetchFromScheduledTaskQueue() (fetchedAll bool) {
	if len(l.scheduled) == 0 {
		return true
	}
	now := l.now()
	for len(l.scheduled) > 0 && l.scheduled[0].deadline <= now {
		f := heap.Pop(&l.scheduled).(*ScheduledFuture)
		if f.state.Load() != futurePending {
			continue
		}
		// A queue id of its own: the heap's ids are a separate sequence, and
		// task_run events must not confuse a timer with a submitted task.
		// timer_due names both, so a reader can follow the timer into the
		// queue and see it leave with its task_run.
		id := l.taskIDs.Add(1)
		if !l.tasks.Offer(task{fn: func() { l.runScheduled(f) }, name: f.name, id: id}) {
			heap.Push(&l.scheduled, f)
			return false
		}
		add(&l.stats.TimersDue, 1)
		if l.tracing() {
			l.emit(trace.Event{Kind: trace.KindTimerDue, A: int64(f.id), B: f.deadline, C: int64(id), Str: f.name})
		}
	}
	return true
}

// runScheduled runs a due task; a periodic one goes back on the heap unless
// it was cancelled or the loop is shutting down.
func (l *EventLoop) runScheduled(f *ScheduledFuture) {
	if f.state.Load() != futurePending {
		return
	}
	if f.period == 0 {
		if f.state.CompareAndSwap(futurePending, futureDone) {
			f.fn()
		}
		return
	}
	f.fn()
	if l.State() >= trace.StateShuttingDown || f.state.Load() != futurePending {
		return
	}
	if f.period > 0 {
		f.deadline += f.period
	} else {
		f.deadline = l.now() - f.period
	}
	l.insertScheduled(f)
}

// cancelScheduledTasks empties the heap at shutdown: scheduled tasks are
// cancelled, not run.
func (l *EventLoop) cancelScheduledTasks() {
	for len(l.scheduled) > 0 {
		f := heap.Pop(&l.scheduled).(*ScheduledFuture)
		if f.state.CompareAndSwap(futurePending, futureCancelled) && l.tracing() {
			l.emit(trace.Event{Kind: trace.KindTimerCancel, A: int64(f.id), B: f.deadline})
		}
	}
}

// schedHeap orders scheduled tasks by (deadline, id).
type schedHeap []*ScheduledFuture

func (h schedHeap) Len() int { return len(h) }
func (h schedHeap) Less(i, j int) bool {
	if h[i].deadline != h[j].deadline {
		return h[i].deadline < h[j].deadline
	}
	return h[i].id < h[j].id
}
func (h schedHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *schedHeap) Push(x any) {
	f := x.(*ScheduledFuture)
	f.index = len(*h)
	*h = append(*h, f)
}
func (h *schedHeap) Pop() any {
	old := *h
	n := len(old) - 1
	f := old[n]
	old[n] = nil
	f.index = -1
	*h = old[:n]
	return f
}
