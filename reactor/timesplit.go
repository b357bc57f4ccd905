package reactor

import "sync/atomic"

// timeSplit accumulates where a loop's time goes beyond the I/O and task
// nanoseconds its counters already keep: the time spent blocked in
// epoll_wait. It is fed from clock readings selectBlocking takes anyway, so
// it costs one uncontended atomic add per blocking select and no clock
// read. Only the loop thread writes it.
type timeSplit struct {
	selectNanos atomic.Int64
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

// TimeSplit returns the loop's time split so far. Any goroutine.
func (l *EventLoop) TimeSplit() TimeSplit {
	return TimeSplit{
		SelectNanos: l.split.selectNanos.Load(),
		IONanos:     l.stats.ioNanos.Load(),
		TaskNanos:   l.stats.taskNanos.Load(),
	}
}

// blocked adds the time from the reading before a blocking select to the
// reading after it.
func (l *EventLoop) blocked(before, after int64) {
	if after > before {
		l.split.selectNanos.Add(after - before)
	}
}
