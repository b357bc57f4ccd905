package load

import (
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// Histogram records latencies in the log-linear buckets of sample.Hist:
// exact to the microsecond below 128 µs, then 64 buckets per power of two
// (under 1.6 % error), up to about 70 minutes. Safe for concurrent use.
type Histogram struct {
	mu     sync.Mutex
	counts [histBuckets]uint64
	n      uint64
	max    time.Duration
}

const histBuckets = sample.Buckets

func bucketOf(us uint64) int { return sample.BucketOf(us) }

func lowerBound(i int) uint64 { return sample.LowerBound(i) }

// Hist copies the histogram as a sample carries it: its non-empty buckets,
// its count and its largest latency.
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
