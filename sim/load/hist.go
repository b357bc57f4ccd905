package load

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// Histogram records latencies in the log-linear buckets of sample.Hist:
// exact to the microsecond below 128 µs, then 64 buckets per power of two
// (under 1.6 % error), up to about 70 minutes. Safe for concurrent use.
type Histogram struct {
	mu      sync.Mutex
	counts  [sample.Buckets]uint64
	n       uint64
	max     time.Duration
	waiters []*Waiter // the connections whose requests it records
}

// Waiter is one connection's oldest request in flight: when it was sent
// (a pipelined batch's, at once) or, open loop, when the first one not yet
// answered was due, on the clients' clock. A closed-loop connection held by a
// stalled loop answers nothing while it waits, so a window's answers do
// not show the stall; its waiter does. Written by the connection only.
type Waiter struct{ since atomic.Int64 }

// Wait marks a request in flight since t; Done marks none.
func (w *Waiter) Wait(t time.Time) { w.since.Store(t.UnixNano()) }

// Done marks no request in flight.
func (w *Waiter) Done() { w.since.Store(0) }

// maxWaiters bounds the connections one histogram watches.
const maxWaiters = 1 << 14

// Watch adds a connection's waiter to those Waiting reads. Once per
// connection, at its first answer.
func (h *Histogram) Watch(w *Waiter) {
	if w == nil {
		return
	}
	h.mu.Lock()
	if len(h.waiters) < maxWaiters {
		h.waiters = append(h.waiters, w)
	}
	h.mu.Unlock()
}

// Waiting returns the age at now of the oldest request in flight on each
// watched connection, what their clients are going through, as a
// histogram; nil when none is.
func (h *Histogram) Waiting(now time.Time) *sample.Hist {
	h.mu.Lock()
	ws := h.waiters
	h.mu.Unlock()
	var counts map[int]uint64
	out := &sample.Hist{}
	for _, w := range ws {
		t := w.since.Load()
		if t == 0 {
			continue
		}
		d := max(now.Sub(time.Unix(0, t)), 0)
		if counts == nil {
			counts = map[int]uint64{}
		}
		counts[sample.BucketOf(uint64(d/time.Microsecond))]++
		out.N++
		out.MaxNS = max(out.MaxNS, int64(d))
	}
	if out.N == 0 {
		return nil
	}
	for _, b := range slices.Sorted(maps.Keys(counts)) {
		out.Counts = append(out.Counts, uint64(b), counts[b])
	}
	return out
}

// Hist copies the histogram as a sample carries it: its non-empty buckets,
// its count and its largest latency. Its quantiles are sample.Hist's.
func (h *Histogram) Hist() sample.Hist {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := sample.Hist{N: h.n, MaxNS: int64(h.max)}
	for i, c := range h.counts {
		if c != 0 {
			out.Counts = append(out.Counts, uint64(i), c)
		}
	}
	return out
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	us := uint64(max(d, 0) / time.Microsecond)
	h.mu.Lock()
	h.counts[sample.BucketOf(us)]++
	h.n++
	h.max = max(h.max, d)
	h.mu.Unlock()
}

// Merge adds every sample of o.
func (h *Histogram) Merge(o *Histogram) {
	o.mu.Lock()
	counts, n, mx := o.counts, o.n, o.max
	o.mu.Unlock()
	h.mu.Lock()
	for i, c := range counts {
		h.counts[i] += c
	}
	h.n += n
	h.max = max(h.max, mx)
	h.mu.Unlock()
}
