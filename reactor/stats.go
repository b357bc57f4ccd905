package reactor

import (
	"sync/atomic"

	ctr "github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// counters are the loop's running totals, one atomic per counter of the set
// declared in reactor/trace/counters (Set). The loop thread writes most of
// them; the submit and wakeup counters are written by whichever thread
// submits. Readers on other goroutines take a snapshot with Load, so a
// summary or the UI never stops the loop to read them. (Padding the
// submitters' counters onto lines of their own was measured and changed
// nothing: a contended submit costs what the scheduler costs.)
type counters = ctr.Atomics

// Stats is a snapshot of one loop's counters: the one type the engine, the
// UI's model, the headless replay and the run summary share, declared with
// its fold from events and its table of names in reactor/trace/counters.
type Stats = ctr.Stats

// add bumps a counter. For the counters only the loop thread writes, a plain
// load and store would do, but Add keeps the race detector's view simple and
// costs the same on x86 for an uncontended line.
func add(c *atomic.Int64, n int64) { c.Add(n) }

func storeMax(c *atomic.Int64, v int64) {
	if v > c.Load() {
		c.Store(v)
	}
}
