package sim

import "time"

// ClockMap returns a function from a trace event's time (nanoseconds since
// the collector's epoch, as events carry it) to the run clock Elapsed
// shows. Events are stamped on the run clock itself, which stands still
// while the run is held, so the map only moves the origin to Start.
func (r *Run) ClockMap() func(eventTime int64) time.Duration {
	r.mu.Lock()
	started := r.started
	r.mu.Unlock()
	return func(t int64) time.Duration {
		if started == 0 {
			return 0
		}
		return max(time.Duration(t-started), 0)
	}
}
