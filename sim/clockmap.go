package sim

import "time"

// maxHolds bounds the holds ClockMap remembers. Each is a pause the user
// made; past the bound the oldest are merged into one, which shifts only
// the log times of events older than them.
const maxHolds = 1 << 12

// hold is one stretch of wall time the run clock stood still.
type hold struct {
	from, to time.Time
}

// noteHold records a hold that ended. Called with r.mu held.
func (r *Run) noteHold(from, to time.Time) {
	if len(r.holds) == maxHolds {
		r.holds[1].from = r.holds[0].from
		r.holds[1].to = r.holds[1].to.Add(r.holds[0].to.Sub(r.holds[0].from))
		r.holds = r.holds[1:]
	}
	r.holds = append(r.holds, hold{from, to})
}

// ClockMap returns a function from a trace event's time (nanoseconds since
// the collector's epoch, as events carry it) to the run clock Elapsed
// shows: wall time since Start less the holds before it. The event log
// shows its times on that clock, so a paused run's log and header agree.
// The function reads a copy of the holds taken now, so it needs no lock.
func (r *Run) ClockMap() func(eventTime int64) time.Duration {
	epoch := r.coll.Clock().Epoch()
	r.mu.Lock()
	started, since := r.started, r.holdSince
	holds := append([]hold(nil), r.holds...)
	r.mu.Unlock()
	return func(t int64) time.Duration {
		if started.IsZero() {
			return 0
		}
		wall := epoch.Add(time.Duration(t))
		d := wall.Sub(started)
		for _, h := range holds {
			if !h.from.Before(wall) {
				break
			}
			d -= minTime(wall, h.to).Sub(h.from)
		}
		if !since.IsZero() && since.Before(wall) {
			d -= wall.Sub(since)
		}
		return max(d, 0)
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
