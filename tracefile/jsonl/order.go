package jsonl

import (
	"fmt"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// Order and magnitude rules. A trace read without them would replay
// wrong results without a word: a reversed file ends its loops STARTED
// instead of TERMINATED, a negative byte count lowers a total. The writer
// numbers events as the collector delivers them and the collector merges
// each batch by time, so:
//
//   - seq increases strictly from one event to the next;
//   - t is at least 0 and at most MaxTime;
//   - t may be earlier than the latest t before it, by at most MaxTimeSkew:
//     batches are sorted, but an event stamped just before its thread was
//     descheduled can arrive in a later batch than one stamped after it;
//   - counts, sizes and durations (countFields) are at least 0 and at most
//     MaxTime.
//
// The first event that breaks a rule is an error at its line.
const (
	MaxTime     = int64(1) << 55 // ns, about 417 days: no run lasts longer
	MaxTimeSkew = int64(10e9)    // ns an event may lag the latest one before it
)

// countFields are the schema's fields that count, measure or time
// something and so are never negative. Fields such as fd, result, timeout_ns
// and deadline_ns may be (-1 for none, a negative errno, "block").
var countFields = map[string]bool{
	"ready": true, "took_ns": true, "select_cnt": true, "keys": true, "queued": true,
	"ran": true, "migrated": true, "closed": true, "tick": true,
	"expired": true, "pending": true, "bytes": true, "count": true, "permille": true,
	"active_ns": true, "window_ns": true, "idle_cycles": true, "channels": true,
	"submitted": true, "completions": true, "sq_depth": true, "cq_depth": true,
	"in_flight": true, "batch": true,
}

// checkEvent applies the rules to ev, the event after those already read.
func (r *Reader) checkEvent(ev *trace.Event) error {
	switch {
	case r.events > 0 && ev.Seq <= r.lastSeq:
		return fmt.Errorf("seq %d after seq %d: events out of order (seq increases from line to line)", ev.Seq, r.lastSeq)
	case ev.Time < 0:
		return fmt.Errorf("t %d: a time cannot be negative", ev.Time)
	case ev.Time > MaxTime:
		return fmt.Errorf("t %d: beyond %d ns (about 417 days), no run lasts that long", ev.Time, MaxTime)
	case r.events > 0 && ev.Time < r.maxTime-MaxTimeSkew:
		return fmt.Errorf("t %d is %.3fs before t %d on an earlier line: events out of order", ev.Time, float64(r.maxTime-ev.Time)/1e9, r.maxTime)
	}
	r.scratch = ev.Fields(r.scratch[:0])
	for _, f := range r.scratch {
		if f.Type != trace.FieldInt || f.State || !countFields[f.Name] {
			continue
		}
		if f.Int < 0 || f.Int > MaxTime {
			return fmt.Errorf("field %q of %s: %d: want 0..%d", f.Name, ev.Kind, f.Int, MaxTime)
		}
	}
	r.lastSeq = ev.Seq
	r.maxTime = max(r.maxTime, ev.Time)
	return nil
}
