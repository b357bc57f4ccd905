package reactor

import (
	"errors"
	"runtime"

	unix "github.com/reactorviz/reactorviz/reactor/internal/sys"

	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// selectedKey is one entry of the optimised selected-key set: an array the
// loop appends to in O(1) and walks once (SelectedSelectionKeySet; C20).
type selectedKey struct {
	ch    *Channel
	ready uint32
}

// run is the loop skeleton every Flavour shares: NioEventLoop.run() of
// Netty 4.1 and SingleThreadIoEventLoop.run() of 4.2 alike select, process
// the selected keys, run tasks, check for shutdown, forever. How the select
// blocks and how long tasks may run is the loop design's (flavour.go).
//
// One clock reading may serve two phases when nothing that takes time lies
// between them: the select's return is the start of processSelectedKeys,
// and the end of processSelectedKeys is, when no task ran, the start of the
// next select. Handing them on (handoff; 0 means read the clock) halves the
// clock reads of a busy iteration (docs/benchmarks.md has the cost of one).
// Anything else between (a gate, a selectNow, a self-wakeup, a task,
// shutdown) takes time, and may emit events that a stale reading would put
// out of order, so it drops the reading.
func (l *EventLoop) run() {
	var handoff int64
	for {
		if l.gateAt(trace.PhaseSelect) {
			handoff = 0
		}
		// An iteration begins with its select: counted after the gate, so
		// a loop paused before it has not begun it, here as in its trace.
		add(&l.stats.Iterations, 1)
		l.iterationBegun = true
		if handoff = l.design.selectPhase(handoff); l.fatal() {
			return
		}
		if l.gateAt(trace.PhaseIO) {
			handoff = 0
		}
		keys := len(l.selected)
		ioTime, end := l.ioPhase(keys, handoff)
		if l.design.closesBeforeTasks() && l.State() >= trace.StateShuttingDown {
			end = 0
			l.prepareToDestroy()
		}
		executed := l.executed()
		gated := l.gateAt(trace.PhaseTasks)
		l.design.runTasks(ioTime, keys)
		gated = l.gateAt(trace.PhaseEnd) || gated
		handoff = 0
		if !gated && l.executed() == executed {
			handoff = end
		}
		l.suspendIfAsked()
		if l.State() >= trace.StateShuttingDown {
			handoff = 0
			l.noteState()
			if !l.design.closesBeforeTasks() {
				l.closeAll("shutdown")
			}
			if l.confirmShutdown() {
				return
			}
		}
	}
}

// prepareToDestroy is IoHandler.prepareToDestroy of 4.2: close every
// channel of a loop shutting down, before its tasks run.
func (l *EventLoop) prepareToDestroy() {
	l.noteState()
	l.closeAll("shutdown")
}

// ioPhase runs processSelectedKeys if the design has an I/O phase in this
// iteration. Without one, the loop still passes through the Go scheduler
// when due (yieldIfDue), so a 4.1 loop busy with tasks alone yields too,
// and the next select reads the clock afresh.
func (l *EventLoop) ioPhase(keys int, handoff int64) (ioTime, end int64) {
	if l.design.ioPhase(keys) {
		return l.processSelectedKeys(handoff)
	}
	if handoff == 0 {
		handoff = l.now()
	}
	l.yieldIfDue(handoff)
	return 0, 0
}

// selectPhase is the select of one iteration. DefaultSelectStrategy:
// pending tasks must never cause a block, so with tasks queued the loop
// only polls (selectNow). It returns the reading taken when a blocking
// select returned, or 0.
func (l *EventLoop) selectPhase(handoff int64) int64 {
	if l.hasTasks() {
		l.selectNow(l.stats.SelectCnt.Load()) // selectCnt is select()'s own: untouched here
		return 0
	}
	ended := l.selectBlocking(l.clearWakenUp(), handoff)
	// A wakeup may have landed between clearing wakenUp and the select;
	// wake the selector once more so it is not lost.
	if l.wakenUp.Load() {
		l.selfWakeup()
		return 0
	}
	return ended
}

// executed counts the tasks the loop has run, tail tasks and panicked ones
// included. Loop thread.
func (l *EventLoop) executed() int64 {
	return l.stats.TasksRun.Load() + l.stats.TaskPanics.Load()
}

// clearWakenUp is wakenUp.getAndSet(false). When the flag is already false
// a plain load gives the same answer and leaves the same state, without the
// locked exchange a busy loop would otherwise pay on every iteration.
func (l *EventLoop) clearWakenUp() bool {
	return l.wakenUp.Load() && l.wakenUp.Swap(false)
}

// runTasksForIteration applies ioRatio (C16): 100 drains every task without
// a budget; otherwise tasks get ioTime × (100 − ioRatio) / ioRatio.
func (l *EventLoop) runTasksForIteration(ioTime int64) {
	r := int64(l.ioRatio.Load())
	if r == 100 {
		l.runAllTasksUnbounded()
		return
	}
	l.runAllTasks(TaskBudget(ioTime, int(r)))
}

// TaskBudget is the time runAllTasks may take after ioTime nanoseconds of
// I/O at the given ioRatio: ioTime × (100 − r) / r, in truncating integer
// arithmetic as Netty computes it; -1 means unlimited (r = 100).
func TaskBudget(ioTime int64, r int) int64 {
	if r >= 100 {
		return -1
	}
	return ioTime * int64(100-r) / int64(r)
}

// selectBlocking is NioEventLoop.select(oldWakenUp) of Netty ≤4.1.43
// (docs/concepts.md C7–C9). It keeps its own selectCnt: the number of epoll_wait returns in a
// row that selected nothing, were not woken, found no task and no due timer,
// and came back before their timeout. Reaching the rebuild threshold means
// the selector is broken (the JDK epoll bug, C9) and is rebuilt. now is a
// reading to start from, or 0; it returns the reading taken when the last
// epoll_wait returned, or 0 when a selectNow came after it.
func (l *EventLoop) selectBlocking(oldWakenUp bool, now int64) (ended int64) {
	selectCnt := int64(0)
	if now == 0 {
		now = l.now()
	}
	deadline := now + l.delayNanos(now)
	for {
		// +0.5 ms rounds the timeout to the nearest millisecond (C7).
		timeoutMillis := (deadline - now + 500_000) / 1_000_000
		if timeoutMillis <= 0 {
			if selectCnt == 0 {
				// Netty sets selectCnt = 1 with this selectNow, and the
				// poll reports it.
				selectCnt = 1
				l.selectNow(selectCnt)
			}
			break // after a wait, ended holds its return
		}
		// A task submitted while wakenUp was already true did not write the
		// eventfd; check the queue once more before blocking.
		if l.hasTasks() && l.wakenUp.CompareAndSwap(false, true) {
			selectCnt, ended = 1, 0
			l.selectNow(selectCnt)
			break
		}
		l.blocking(now)
		n, interrupted, start := l.wait(int(timeoutMillis))
		selectCnt++
		t := l.now()
		ended = t
		l.blocked(now, t)
		var took int64
		if start != 0 {
			took = t - start
		}
		if l.fatal() {
			// The poller failed: every further wait would fail at once, and
			// is no premature return. run() stops the loop.
			l.selectEnded(t, n, took, selectCnt, false)
			break
		}
		woken := n != 0 || oldWakenUp || l.wakenUp.Load() || l.hasTasks() || l.scheduledDue(t)
		timedOut := t-timeoutMillis*1_000_000 >= now
		premature := !woken && !interrupted && !timedOut
		if timedOut && !woken {
			selectCnt = 1 // a real timeout, not a premature return
		}
		l.selectEnded(t, n, took, selectCnt, premature)
		if woken {
			break // ready keys, a wakeup, a task or a due timer (C8)
		}
		if interrupted {
			selectCnt = 1 // Netty: an interrupted thread is not a broken selector
			break
		}
		if th := int64(l.cfg.RebuildThreshold); premature && th > 0 && selectCnt >= th {
			l.rebuildSelector(selectCnt)
			ended = 0
			selectCnt = 1 // reset before the selectNow, which reports it
			l.selectNow(selectCnt)
			break
		}
		if premature && l.gateAt(trace.PhaseSelect) {
			// A premature return is a gate boundary of its own, so a
			// breakpoint on it stops at the first one, not when the select
			// phase ends hundreds of returns later. The gate took time:
			// read the clock again, and hand no stale reading on.
			t, ended = l.now(), 0
		}
		now = t
	}
	l.stats.SelectCnt.Store(selectCnt)
	return ended
}

// selectEnded records a blocking select's return, read from the clock at
// t. The event carries t itself: the I/O phase that follows may begin at
// the same reading, and a loop must never stamp an event earlier than one
// it has already emitted, or the collector's merge by time would reorder
// them.
func (l *EventLoop) selectEnded(t int64, keys int, took, selectCnt int64, premature bool) {
	l.stats.SelectCnt.Store(selectCnt)
	// The highest selectCnt reached, whatever ended the select: a select
	// woken after three premature returns still counted to 4.
	storeMax(&l.stats.MaxSelectCnt, selectCnt)
	if premature {
		add(&l.stats.Premature, 1)
	}
	if l.tracing() {
		l.emitAt(t, trace.Event{Kind: trace.KindSelectEnd, A: int64(keys), B: took, C: selectCnt, Flag: premature})
	}
}

// wait is one blocking epoll_wait, announced by a select_begin event. It
// returns the number of selected keys, whether a signal cut it short, and
// when it began, or 0 when not tracing: how long it took is only ever
// reported in a trace event, so the clock is read for it only then, and
// the caller's reading after the wait serves as its end.
func (l *EventLoop) wait(timeoutMillis int) (int, bool, int64) {
	add(&l.stats.Selects, 1)
	var start int64
	if l.tracing() {
		start = l.now()
		timeout := int64(timeoutMillis) * 1_000_000
		if timeoutMillis < 0 {
			timeout = -1 // 4.1.44+ with nothing scheduled: no timeout
		}
		l.emitAt(start, trace.Event{Kind: trace.KindSelectBegin, Str: "select", A: timeout, Flag: l.iterationMark()})
	}
	n, err := l.poller.Wait(l.events, timeoutMillis)
	interrupted := errors.Is(err, poll.ErrInterrupted)
	if err != nil && !interrupted {
		l.selectorFailed(err)
	}
	return l.collect(n), interrupted, start
}

// iterationMark reports whether the phase event about to be traced is its
// iteration's first, and clears the mark: the trace's iteration boundary.
// It is a select_begin, or a tasks_begin when 4.1's run() skipped the
// select for a task that came in as it published its deadline.
func (l *EventLoop) iterationMark() bool {
	first := l.iterationBegun
	l.iterationBegun = false
	return first
}

// selectNow polls without blocking, with selectCnt at cnt: the count the
// caller holds (Netty ≤4.1.43 sets selectCnt = 1 with this poll), shown as
// the loop's gauge and reported by the poll's select_end. In Netty
// ≤4.1.43 it also re-woke the selector whenever wakenUp was true, so a
// wakeup is never lost.
func (l *EventLoop) selectNow(cnt int64) int {
	l.stats.SelectCnt.Store(cnt)
	add(&l.stats.SelectNows, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindSelectBegin, Str: "select_now", Flag: l.iterationMark()})
	}
	n, err := l.poller.Wait(l.events, 0)
	if err != nil && !errors.Is(err, poll.ErrInterrupted) {
		l.selectorFailed(err)
	}
	keys := l.collect(n)
	// The count was reached: the highest one a trace's select_end events
	// show is the one the loop keeps.
	storeMax(&l.stats.MaxSelectCnt, cnt)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindSelectEnd, A: int64(keys), C: cnt})
	}
	if l.wakenUp.Load() {
		l.selfWakeup()
	}
	return keys
}

// collect turns the n raw epoll events into selected keys and returns how
// many there are. The eventfd is a wakeup, not a key; injected fault fds and
// stale registrations map to no channel.
func (l *EventLoop) collect(n int) int {
	l.selected = l.selected[:0]
	for i := 0; i < n; i++ {
		ev := &l.events[i]
		fd := int(ev.Fd)
		if fd == l.wakeFD {
			l.woken.Store(false)
			continue
		}
		ch := l.channelByFD(fd)
		if ch == nil {
			// Native epoll deletes what it does not know; the JDK selector
			// simply ignores it, which is how an injected always-ready fd
			// keeps select returning early.
			if l.cfg.Selector == SelectorEpoll {
				_ = l.epollDel(fd)
			}
			continue
		}
		if ready := l.readyOps(ch, ev.Events); ready != 0 {
			l.selected = append(l.selected, selectedKey{ch: ch, ready: ready})
		}
	}
	if n == len(l.events) {
		// The array filled: double it, as Netty's epoll transport does.
		l.events = make([]poll.Event, 2*len(l.events))
	}
	return len(l.selected)
}

// readyOps applies the selector semantics (docs/netty-differences.md, "One
// engine, two selectors"). Under nio, a hang-up or
// error counts as every op the channel is interested in, then the result is
// masked by the interest set: with interest 0 nothing is selected, and the
// level-triggered HUP returns at once on the next select, forever.
func (l *EventLoop) readyOps(ch *Channel, events uint32) uint32 {
	if l.cfg.Selector == SelectorEpoll {
		return events
	}
	ready := events & (poll.In | poll.Out)
	if events&(poll.Err|poll.Hup|poll.RdHup) != 0 {
		ready |= ch.interest & (poll.In | poll.Out)
	}
	return ready & ch.interest
}

// yieldIfDue passes through the Go scheduler once every yieldInterval of
// the loop's life. It is not part of Netty's loop; it keeps the Go runtime
// from treating the loop as a runaway goroutine. A locked loop goroutine
// never blocks in a way the scheduler sees, so its P's schedule tick never
// moves, and after 10 ms sysmon preempts it with a signal, takes its P away
// mid-system-call, and goes back to waking every 20 µs. On a server pinned
// to one core that polling preempts the loop thousands of times a second
// and cost about a tenth of the server's CPU; one voluntary yield every
// few milliseconds (a handful of futex calls) costs a fraction of one
// percent. The yield is not traced: it is the runtime's, not the model's.
// It reports whether it yielded.
func (l *EventLoop) yieldIfDue(now int64) bool {
	if now-l.lastYield < yieldInterval {
		return false
	}
	l.lastYield = now
	runtime.Gosched()
	return true
}

// processSelectedKeys dispatches the selected keys and returns the time it
// took (ioTime) and the reading it ended at. start is the reading it begins
// at, or 0 to read the clock.
func (l *EventLoop) processSelectedKeys(start int64) (ioTime, end int64) {
	if start == 0 {
		start = l.now()
	}
	if l.yieldIfDue(start) {
		start = l.now() // time spent off the CPU in a yield is not I/O
	}
	if l.tracing() {
		l.emitAt(start, trace.Event{Kind: trace.KindIOBegin})
	}
	keys := l.design.processIO()
	end = l.now()
	ioTime = end - start
	add(&l.stats.IONanos, ioTime)
	if l.tracing() {
		l.emitAt(end, trace.Event{Kind: trace.KindIOEnd, A: int64(keys), B: ioTime})
	}
	return ioTime, end
}

// processKeys is the I/O phase of a readiness loop: dispatch every selected
// key, and return how many there were.
func (l *EventLoop) processKeys() int {
	keys := len(l.selected)
	for i := 0; i < keys; {
		i = l.processKeysFrom(i)
	}
	l.selected = l.selected[:0]
	return keys
}

// processKeysFrom processes the selected keys from i to the end and returns
// len(l.selected); if a handler panics, it returns the index after the key
// that panicked instead, and processSelectedKeys goes on from there. The
// panic becomes that channel's exceptionCaught, as Netty's pipeline turns a
// Throwable thrown by channelRead into one. One deferred recover covers the
// whole batch, so the path of a key that does not panic has none.
func (l *EventLoop) processKeysFrom(i int) (next int) {
	defer func() {
		if r := recover(); r != nil {
			if ch := l.selected[i].ch; ch != nil {
				l.selected[i].ch = nil
				ch.handlerPanicked(r)
				// The panic may have cut a read short of EAGAIN; whether
				// the last read filled the buffer is not known.
				ch.readLater(false)
			}
			next = i + 1
		}
	}()
	for ; i < len(l.selected); i++ {
		k := l.selected[i]
		if !k.ch.closed() {
			k.ch.processReady(k.ready)
		}
		l.selected[i].ch = nil
	}
	return i
}

// rebuildSelector is NioEventLoop.rebuildSelector0 (C10): open a
// new epoll instance, register the eventfd and every valid channel with its
// current interest set, close the old instance. Whatever made the old one
// return early (an injected fd, a stale registration) stays behind with it.
func (l *EventLoop) rebuildSelector(selectCnt int64) {
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindRebuildBegin, A: selectCnt})
	}
	old := l.poller
	p, err := l.openPoller()
	if err == nil {
		if err = l.addWakeFD(p); err != nil {
			p.Close()
		}
	}
	if err != nil {
		l.rebuildFailed(selectCnt, old, err)
		return // Netty keeps the old selector when a new one cannot be made
	}
	l.poller = p
	migrated, closed := 0, 0
	for _, ch := range l.chans {
		if ch == nil || ch.closed() {
			continue
		}
		if err := l.epollAdd(l.poller, ch.fd, ch.epollEvents()); err != nil {
			ch.closeWith("re-register failed: " + err.Error())
			closed++
			continue
		}
		migrated++
	}
	for _, fd := range l.injected {
		unix.Close(fd)
	}
	l.injected = l.injected[:0]
	oldFD := old.FD()
	old.Close()
	// migrated before rebuilds: a reader that loads rebuilds first (as
	// Load does) and sees this rebuild also sees its migrations.
	add(&l.stats.Migrated, int64(migrated))
	add(&l.stats.Rebuilds, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindRebuildEnd, A: selectCnt, B: int64(migrated),
			C: int64(closed), D: int64(oldFD), E: int64(l.poller.FD())})
	}
}

// rebuildFailed records a rebuild that could not make its new epoll
// instance. Netty logs the exception and keeps the old selector
// (NioEventLoop.rebuildSelector0); here the attempt counts as a rebuild and
// its rebuild_end says it failed and why, so a replay counts it too. The
// error's text is made on this rare path only.
func (l *EventLoop) rebuildFailed(selectCnt int64, old *poll.Poller, err error) {
	add(&l.stats.Rebuilds, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindRebuildEnd, A: selectCnt, D: int64(old.FD()), E: -1,
			Flag: true, Str: err.Error()})
	}
}

// openPoller opens a rebuild's new epoll instance, or fails as a test's
// failPoller says.
func (l *EventLoop) openPoller() (*poll.Poller, error) {
	if l.failPoller != nil {
		return nil, l.failPoller
	}
	return poll.Open()
}

// selectorFailed handles an epoll_wait error other than EINTR. Netty rebuilds
// the selector and sleeps 1 s (#8566); an engine whose epoll fd went bad has
// nothing better to do, so it records the error and stops the loop.
func (l *EventLoop) selectorFailed(err error) {
	l.fatalErr.CompareAndSwap(nil, &err)
}

func (l *EventLoop) fatal() bool { return l.fatalErr.Load() != nil }
