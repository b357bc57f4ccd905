package sample

import (
	"math/bits"
	"time"
)

// The latency histogram's buckets, log-linear: exact to the microsecond
// below 128 µs, then 64 buckets per power of two (under 1.6 % error), up to
// about 70 minutes. sim/load records into them; a sample carries them, so
// any window's percentiles come from two samples.
const (
	linear  = 128 // µs recorded exactly
	sub     = 64  // buckets per power of two above that
	powers  = 25
	Buckets = linear + sub*powers
)

// BucketOf returns the bucket of a latency in µs.
func BucketOf(us uint64) int {
	if us < linear {
		return int(us)
	}
	p := bits.Len64(us) - 1 // us in [2^p, 2^(p+1))
	s := (us >> (uint(p) - 6)) & (sub - 1)
	i := linear + (p-7)*sub + int(s)
	return min(i, Buckets-1)
}

// LowerBound is the smallest latency in bucket i, in µs.
func LowerBound(i int) uint64 {
	if i < linear {
		return uint64(i)
	}
	p := (i-linear)/sub + 7
	s := uint64((i - linear) % sub)
	return (1 << uint(p)) | s<<(uint(p)-6)
}

// Hist is a latency histogram as a sample carries it: the non-empty
// buckets, as bucket index and count pairs in index order, their total and
// the largest latency recorded.
type Hist struct {
	N      uint64   `json:"n,omitempty"`
	MaxNS  int64    `json:"max_ns,omitempty"`
	Counts []uint64 `json:"b,omitempty"` // bucket, count, bucket, count, ...
	// Delta says Counts holds only the buckets that grew since the same
	// histogram's previous sample, by how much: a trace file's encoding
	// (tracefile/jsonl), which its reader undoes. Never set in memory.
	Delta bool `json:"delta,omitempty"`
}

// DeltaFrom returns h as the buckets that grew since prev (Delta set),
// or h itself when a bucket shrank (a histogram of another run).
func (h Hist) DeltaFrom(prev *Hist) Hist {
	d := Hist{N: h.N, MaxNS: h.MaxNS, Delta: true}
	j := 0
	for i := 0; i < len(h.Counts); i += 2 {
		b, c := h.Counts[i], h.Counts[i+1]
		for j < len(prev.Counts) && prev.Counts[j] < b {
			return h // a bucket of prev is gone
		}
		var was uint64
		if j < len(prev.Counts) && prev.Counts[j] == b {
			was = prev.Counts[j+1]
			j += 2
		}
		switch {
		case c < was:
			return h
		case c > was:
			d.Counts = append(d.Counts, b, c-was)
		}
	}
	if j < len(prev.Counts) {
		return h
	}
	return d
}

// Undelta returns the histogram a Delta one stands for, given the same
// histogram's previous sample.
func (h Hist) Undelta(prev *Hist) Hist {
	if !h.Delta {
		return h
	}
	grown := Hist{Counts: h.Counts}
	for i := 1; i < len(grown.Counts); i += 2 {
		grown.N += grown.Counts[i] // Add skips a histogram with no count
	}
	var out Hist
	out.Add(prev)
	out.Add(&grown)
	out.N, out.MaxNS = h.N, h.MaxNS
	return out
}

// Valid reports whether h is well formed: buckets in range and increasing,
// counts adding up to N. A reader checks what a file gives it.
func (h *Hist) Valid() bool {
	if len(h.Counts)%2 != 0 || h.MaxNS < 0 || h.Delta {
		return false
	}
	if len(h.Counts) == 0 {
		return true // the buckets left out of a line too long: the count stays
	}
	var n uint64
	last := -1
	for i := 0; i < len(h.Counts); i += 2 {
		b := h.Counts[i]
		if b >= Buckets || int(b) <= last {
			return false
		}
		last = int(b)
		if n+h.Counts[i+1] < n {
			return false
		}
		n += h.Counts[i+1]
	}
	return n == h.N
}

// Quantile returns the latency at q (0..1) in µs, as the lower bound of its
// bucket; for q = 1 the largest latency recorded (when known, else the
// highest bucket's bound); 0 with no samples.
func (h *Hist) Quantile(q float64) float64 {
	if h.N == 0 || len(h.Counts) == 0 {
		return 0
	}
	if q >= 1 {
		if h.MaxNS > 0 {
			return float64(h.MaxNS) / float64(time.Microsecond)
		}
		q = 0.999999999
	}
	rank := uint64(q * float64(h.N))
	var seen uint64
	last := 0
	for i := 0; i < len(h.Counts); i += 2 {
		c := h.Counts[i+1]
		if c == 0 {
			continue
		}
		seen += c
		last = int(h.Counts[i])
		if seen > rank {
			return float64(LowerBound(last))
		}
	}
	return float64(LowerBound(last))
}

// Since returns the latencies recorded between old and h: a window's.
// Its largest latency is unknown (MaxNS 0), so its q = 1 is the highest
// bucket's bound.
func (h *Hist) Since(old *Hist) Hist {
	var d Hist
	j := 0
	for i := 0; i < len(h.Counts); i += 2 {
		b, c := h.Counts[i], h.Counts[i+1]
		for old != nil && j < len(old.Counts) && old.Counts[j] < b {
			j += 2
		}
		if old != nil && j < len(old.Counts) && old.Counts[j] == b {
			c -= min(c, old.Counts[j+1])
		}
		if c > 0 {
			d.Counts = append(d.Counts, b, c)
			d.N += c
		}
	}
	return d
}

// Add adds o's latencies to h.
func (h *Hist) Add(o *Hist) {
	if o == nil || o.N == 0 {
		return
	}
	out := make([]uint64, 0, len(h.Counts)+len(o.Counts))
	i, j := 0, 0
	for i < len(h.Counts) || j < len(o.Counts) {
		switch {
		case j >= len(o.Counts) || (i < len(h.Counts) && h.Counts[i] < o.Counts[j]):
			out = append(out, h.Counts[i], h.Counts[i+1])
			i += 2
		case i >= len(h.Counts) || o.Counts[j] < h.Counts[i]:
			out = append(out, o.Counts[j], o.Counts[j+1])
			j += 2
		default:
			out = append(out, h.Counts[i], h.Counts[i+1]+o.Counts[j+1])
			i, j = i+2, j+2
		}
	}
	h.Counts, h.N, h.MaxNS = out, h.N+o.N, max(h.MaxNS, o.MaxNS)
}
