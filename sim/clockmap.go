package sim

import "time"

// ClockMap returns a function from a trace event's time (nanoseconds since
// the collector's epoch, as events carry it) to the run clock Elapsed
// shows. Events are stamped on the run clock itself, which stands still
// while the run is held, so the map only moves the origin to Start.
func (r *Run) ClockMap() func(eventTime int64) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ClockFrom(r.started)
}

// ClockFrom is ClockMap of a run that started at origin, an event time; 0
// for a run not started, whose clock reads 0.
func ClockFrom(origin int64) func(eventTime int64) time.Duration {
	return func(t int64) time.Duration {
		if origin == 0 {
			return 0
		}
		return max(time.Duration(t-origin), 0)
	}
}
