package load

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// Histogram records latencies in log-linear buckets: exact to the
// microsecond below 128 µs, then 64 buckets per power of two (under 1.6 %
// error), up to about 70 minutes. Safe for concurrent use.
type Histogram struct {
	mu      sync.Mutex
	counts  [histBuckets]uint64
	n       uint64
	max     time.Duration
	waiters []*Waiter // the connections whose requests it records
}

// Waiter is one connection's request in flight: when it was sent (or due,
// open loop), on the clients' clock. A closed-loop connection held by a
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

// Waiting adds to c the age at now of every request still in flight on
// the watched connections: what their clients are going through.
func (h *Histogram) Waiting(now time.Time, c *Counts) {
	h.mu.Lock()
	ws := h.waiters
	h.mu.Unlock()
	for _, w := range ws {
		if t := w.since.Load(); t != 0 {
			c.Record(now.Sub(time.Unix(0, t)))
		}
	}
}

const (
	histLinear  = 128 // µs recorded exactly
	histSub     = 64  // buckets per power of two above that
	histPowers  = 25
	histBuckets = histLinear + histSub*histPowers
)

func bucketOf(us uint64) int {
	if us < histLinear {
		return int(us)
	}
	p := bits.Len64(us) - 1 // us in [2^p, 2^(p+1))
	sub := (us >> (uint(p) - 6)) & (histSub - 1)
	i := histLinear + (p-7)*histSub + int(sub)
	return min(i, histBuckets-1)
}

// lowerBound is the smallest latency in bucket i, in µs.
func lowerBound(i int) uint64 {
	if i < histLinear {
		return uint64(i)
	}
	p := (i-histLinear)/histSub + 7
	sub := uint64((i - histLinear) % histSub)
	return (1 << uint(p)) | sub<<(uint(p)-6)
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	us := uint64(max(d, 0) / time.Microsecond)
	h.mu.Lock()
	h.counts[bucketOf(us)]++
	h.n++
	h.max = max(h.max, d)
	h.mu.Unlock()
}

// Count returns the number of samples recorded.
func (h *Histogram) Count() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
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

// Quantile returns the latency at q (0..1) in µs, as the lower bound of its
// bucket; the largest sample for q = 1; 0 with no samples.
func (h *Histogram) Quantile(q float64) float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return float64(h.max) / float64(time.Microsecond)
	}
	return quantile(&h.counts, h.n, q)
}

func quantile(counts *[histBuckets]uint64, n uint64, q float64) float64 {
	rank := uint64(q * float64(n))
	var seen uint64
	last := 0
	for i, c := range counts {
		if c == 0 {
			continue
		}
		seen += c
		last = i
		if seen > rank {
			return float64(lowerBound(i))
		}
	}
	return float64(lowerBound(last))
}

// Counts is a copy of a histogram's buckets at one moment. Two of them
// subtract, so a reader that keeps a few can tell the latency of the last
// second from that of the whole run.
type Counts struct {
	counts [histBuckets]uint64
	n      uint64
}

// Snapshot copies the histogram's buckets.
func (h *Histogram) Snapshot() *Counts {
	c := &Counts{}
	h.mu.Lock()
	c.counts, c.n = h.counts, h.n
	h.mu.Unlock()
	return c
}

// Since returns the samples recorded between old and c; old may be nil.
func (c *Counts) Since(old *Counts) *Counts {
	d := *c
	if old == nil {
		return &d
	}
	for i := range d.counts {
		d.counts[i] -= min(old.counts[i], d.counts[i])
	}
	d.n -= min(old.n, d.n)
	return &d
}

// Record adds one latency to the copy.
func (c *Counts) Record(d time.Duration) {
	c.counts[bucketOf(uint64(max(d, 0)/time.Microsecond))]++
	c.n++
}

// N returns the number of samples.
func (c *Counts) N() uint64 { return c.n }

// Quantile returns the latency at q (0..1) in µs, as the lower bound of its
// bucket (for q = 1, of the highest bucket used); 0 with no samples.
func (c *Counts) Quantile(q float64) float64 {
	if c.n == 0 {
		return 0
	}
	return quantile(&c.counts, c.n, min(q, 0.999999999))
}

// Add adds o's samples to c; o may be nil. The compare's spread merges the
// latency of every loop's clients into one window this way.
func (c *Counts) Add(o *Counts) {
	if o == nil {
		return
	}
	for i := range c.counts {
		c.counts[i] += o.counts[i]
	}
	c.n += o.n
}
