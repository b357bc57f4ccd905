package reactor

import "sync/atomic"

// timeSplit accumulates where a loop's time goes beyond the I/O and task
// nanoseconds its counters already keep: the time spent blocked in
// epoll_wait. It is fed from clock readings selectBlocking takes anyway, so
// it costs two uncontended atomic stores and an add per blocking select, and
// no clock read. Only the loop thread writes it.
type timeSplit struct {
	selectNanos atomic.Int64
	// blockedAt is the reading a select in progress started from, 0 when
	// the loop is not blocked: a loop asleep for seconds would otherwise
	// show its whole sleep at once, when it wakes.
	blockedAt atomic.Int64
}

// TimeSplit is where a loop's time has gone since it started, in
// nanoseconds: blocked in select, processing selected keys (I/O, the
// processSelectedKeys phase of NioEventLoop.run), and running tasks
// (runAllTasks). What is left of the wall time went to selectNow polls,
// gates, slow motion and the Go scheduler.
type TimeSplit struct {
	SelectNanos int64 `json:"select_ns"`
	IONanos     int64 `json:"io_ns"`
	TaskNanos   int64 `json:"task_ns"`
}

// TimeSplit returns the loop's time split so far, a select in progress
// included. Any goroutine. A sample taken just as a select returns may miss
// that select until the next sample.
func (l *EventLoop) TimeSplit() TimeSplit {
	s := TimeSplit{
		SelectNanos: l.split.selectNanos.Load(),
		IONanos:     l.stats.IONanos.Load(),
		TaskNanos:   l.stats.TaskNanos.Load(),
	}
	if at := l.split.blockedAt.Load(); at != 0 {
		s.SelectNanos += max(l.now()-at, 0)
	}
	return s
}

// blocking marks the start of a blocking select, from the reading the
// select's timeout was computed from.
func (l *EventLoop) blocking(before int64) { l.split.blockedAt.Store(before) }

// blocked adds the time from the reading before a blocking select to the
// reading after it. The mark is cleared first: a reader that sees neither
// the mark nor the sum misses one select for one sample; one that saw both
// would count it twice.
func (l *EventLoop) blocked(before, after int64) {
	l.split.blockedAt.Store(0)
	if after > before {
		l.split.selectNanos.Add(after - before)
	}
}
