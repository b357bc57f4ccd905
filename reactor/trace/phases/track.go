package phases

import "sort"

// Track bounds: the latest spans and marks of a loop kept exactly.
const (
	SpanCap = 1024
	MarkCap = 256
)

// MarkAt is a mark with its time.
type MarkAt struct {
	T int64
	M Mark
}

// Track keeps a loop's latest spans and marks in fixed rings, oldest
// first, with an index by start time. Only spans that last (End > Start)
// are kept: the others cover no time. Its arrays are fixed, so adding
// allocates nothing; a Track is large (tens of KiB), so keep it by
// pointer.
type Track struct {
	spans  [SpanCap]Span
	nspans int // spans added, bounded by wrap
	marks  [MarkCap]MarkAt
	nmarks int
	// sorted holds while every span started no earlier than the one
	// before it ended, as a loop's spans do: the index needs it. A file
	// out of time order clears it, and lookups fall back to a scan.
	sorted bool
	end    int64 // end of the newest span
}

// Add records what a Step says: its closed span, when it lasted, and its
// mark at time t.
func (k *Track) Add(s Step, t int64) {
	if s.Closed {
		k.AddSpan(s.Span)
	}
	if s.Mark != 0 {
		k.AddMark(t, s.Mark)
	}
}

// AddSpan keeps s when it lasted.
func (k *Track) AddSpan(s Span) {
	if s.End <= s.Start {
		return
	}
	if k.nspans == 0 {
		k.sorted = true
	} else if s.Start < k.end {
		k.sorted = false
	}
	k.end = s.End
	k.spans[k.nspans%SpanCap] = s
	k.nspans = wrap(k.nspans, SpanCap)
}

// AddMark keeps a mark.
func (k *Track) AddMark(t int64, m Mark) {
	k.marks[k.nmarks%MarkCap] = MarkAt{T: t, M: m}
	k.nmarks = wrap(k.nmarks, MarkCap)
}

// wrap advances a ring's count, keeping it bounded without losing the
// ring's position.
func wrap(n, size int) int {
	n++
	if n >= 2*size {
		n -= size
	}
	return n
}

// Spans returns how many spans the ring holds.
func (k *Track) Spans() int { return min(k.nspans, SpanCap) }

// Span returns the i-th span held, oldest first.
func (k *Track) Span(i int) *Span {
	if k.nspans < SpanCap {
		return &k.spans[i]
	}
	return &k.spans[(k.nspans+i)%SpanCap]
}

// Marks returns how many marks the ring holds.
func (k *Track) Marks() int { return min(k.nmarks, MarkCap) }

// Mark returns the i-th mark held, oldest first.
func (k *Track) Mark(i int) MarkAt {
	if k.nmarks < MarkCap {
		return k.marks[i]
	}
	return k.marks[(k.nmarks+i)%MarkCap]
}

// OldestSpan returns the start of the oldest span held.
func (k *Track) OldestSpan() (int64, bool) {
	if k.nspans == 0 {
		return 0, false
	}
	return k.Span(0).Start, true
}

// MarksFull reports whether the mark ring has wrapped: marks before the oldest
// held were forgotten.
func (k *Track) MarksFull() bool { return k.nmarks >= MarkCap }

// Find returns the index of the first span held that may overlap time t
// or come after it: the latest that starts at or before t, by binary
// search over the start times (0 when none does, or when the spans are out
// of time order). Every span before it ended by t.
func (k *Track) Find(t int64) int {
	if !k.sorted {
		return 0
	}
	n := k.Spans()
	i := sort.Search(n, func(i int) bool { return k.Span(i).Start > t })
	return max(i-1, 0)
}
