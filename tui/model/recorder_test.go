package model

import (
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// recorder keeps every event a collector delivers, for tests that run real
// loops and then fold or replay what they recorded.
type recorder struct {
	mu     sync.Mutex
	events []trace.Event
}

// newRecorder starts a collector that ticks every millisecond and records
// into a recorder; the collector stops when the test ends.
func newRecorder(t *testing.T, ringSize int) (*trace.Collector, *recorder) {
	t.Helper()
	rec := &recorder{}
	coll := trace.NewCollector(trace.Options{RingSize: ringSize, Interval: time.Millisecond})
	coll.AddSink(trace.SinkFunc(func(b []trace.Event) {
		rec.mu.Lock()
		rec.events = append(rec.events, b...)
		rec.mu.Unlock()
	}))
	coll.Start()
	t.Cleanup(coll.Stop)
	return coll, rec
}

// Events returns a copy of what was recorded so far.
func (r *recorder) Events() []trace.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]trace.Event(nil), r.events...)
}

// Len is how many events were recorded so far.
func (r *recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}
