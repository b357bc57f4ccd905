package reactor

import (
	"runtime"
	"time"

	unix "github.com/reactorviz/reactorviz/reactor/internal/sys"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// ShutdownGracefully starts a graceful shutdown (C23): the loop keeps
// running tasks until none has arrived for the quiet period, or until
// timeout, then closes its channels and terminates. Scheduled tasks are
// cancelled. Submissions are accepted until SHUTDOWN and rejected after it.
// Any goroutine; repeated calls change nothing. Wait on Terminated().
//
// A loop that never started gets a thread just to stop it under the 4.1
// and 4.2 designs, as shutdownGracefully on ST_NOT_STARTED calls
// doStartThread() (ensureThreadStarted) in every Netty version. Under the
// 4.1.43 design it terminates without one (docs/netty-differences.md): its
// thread id stays 0, which is how a summary tells that it never ran, and a
// task that raced the shutdown into its queue runs on the caller's
// goroutine, before ShutdownGracefully returns.
func (l *EventLoop) ShutdownGracefully(quiet, timeout time.Duration) {
	timeout = max(timeout, quiet)
	for {
		s := trace.State(l.state.Load())
		switch {
		case s >= trace.StateShuttingDown:
			return
		case l.cfg.Netty != Netty4143 && (s == trace.StateNotStarted || s == trace.StateSuspended && !l.launched.Load()):
			if l.shutdownStarting(s, quiet, timeout) {
				return
			}
		case s == trace.StateNotStarted || (s == trace.StateSuspended && !l.launched.Load()):
			// Straight to SHUTDOWN: from here enter rejects, and no thread
			// can start. A producer admitted before it may still enqueue and
			// write the eventfd, so the same wait and drain as a running
			// loop's come before the descriptors close.
			if l.state.CompareAndSwap(int32(s), int32(trace.StateShutdown)) {
				l.drainAndClose()
				l.state.Store(int32(trace.StateTerminated))
				close(l.terminated)
				return
			}
		default:
			l.quietNanos.Store(int64(quiet))
			l.timeoutNanos.Store(int64(timeout))
			if !l.enter() {
				return
			}
			ok := l.state.CompareAndSwap(int32(s), int32(trace.StateShuttingDown))
			if ok {
				l.releaseGate()
				l.offerWakeupTask()
				// wakeup(inEventLoop) writes nothing on the loop's own
				// thread in any version (NioEventLoop.wakeup checks
				// !inEventLoop, 4.2's handlers isExecutorThread): a loop
				// shutting itself down is awake, and the WAKEUP_TASK keeps
				// its next select from blocking.
				if !l.InEventLoop() {
					l.wakeup(nil)
				}
			}
			l.exit()
			if ok {
				return
			}
		}
	}
}

// shutdownStarting moves a loop that never started (NOT_STARTED, or
// SUSPENDED by an auto-scaling group before it ever ran) to SHUTTING_DOWN
// and starts its thread, which runs one iteration and the shutdown
// sequence (SingleThreadEventExecutor.ensureThreadStarted, which 4.2 also
// applies to ST_SUSPENDED). It reports whether the state was still from.
func (l *EventLoop) shutdownStarting(from trace.State, quiet, timeout time.Duration) bool {
	l.quietNanos.Store(int64(quiet))
	l.timeoutNanos.Store(int64(timeout))
	if !l.enter() {
		return true
	}
	defer l.exit()
	if !l.state.CompareAndSwap(int32(from), int32(trace.StateShuttingDown)) {
		return false
	}
	l.offerWakeupTask()
	l.startGoroutine(from)
	return true
}

// confirmShutdown decides, once per iteration while shutting down, whether
// the loop may stop, as SingleThreadEventExecutor.confirmShutdown does.
// Loop thread.
func (l *EventLoop) confirmShutdown() bool {
	if l.State() < trace.StateShuttingDown {
		return false
	}
	l.cancelScheduledTasks()
	now := l.now()
	if l.gracefulStart == 0 {
		l.gracefulStart = now
	}
	quiet, timeout := l.quietNanos.Load(), l.timeoutNanos.Load()
	if l.runAllTasksUnbounded() {
		if l.State() >= trace.StateShutdown || quiet == 0 {
			return true
		}
		l.offerWakeupTask() // keep the next select from blocking
		return false
	}
	now = l.now()
	if l.State() >= trace.StateShutdown || now-l.gracefulStart > timeout {
		return true
	}
	if now-l.lastExec <= quiet {
		// Something ran within the quiet period: look again shortly. Netty
		// sleeps 100 ms; a shorter quiet period sleeps only that long.
		l.offerWakeupTask()
		l.quietWait(min(int64(100*time.Millisecond), quiet))
		return false
	}
	return true
}

// finishShutdown is what runs after run() returns: confirm until done, move
// to SHUTDOWN (from here submissions are rejected), wait for producers that
// passed the state check, drain once more, close the fds, TERMINATED.
func (l *EventLoop) finishShutdown() {
	if l.State() < trace.StateShuttingDown {
		l.setState(trace.StateShuttingDown) // the loop stopped on a fatal error
	}
	for !l.fatal() && !l.confirmShutdown() {
		l.closeAll("shutdown")
	}
	l.setState(trace.StateShutdown)
	l.drainAndClose()
	l.setState(trace.StateTerminated)
	close(l.terminated)
}

// drainAndClose runs once the loop is SHUTDOWN, on the loop thread or, for
// a loop that never started, on the goroutine shutting it down: wait for
// the producers that passed enter's state check, run what they queued,
// then close the channels and the descriptors.
func (l *EventLoop) drainAndClose() {
	for l.inflight.Load() != 0 {
		runtime.Gosched()
	}
	l.closeAll("shutdown")
	l.confirmShutdown()
	l.closeFDs()
}

func (l *EventLoop) closeFDs() {
	for _, fd := range l.injected {
		unix.Close(fd)
	}
	l.injected = nil
	if l.uring != nil {
		l.uring.shutdown()
	}
	if l.poller != nil {
		l.poller.Close()
		l.poller = nil
	}
	unix.Close(l.wakeFD)
}
