package trace

import "sync/atomic"

// Ring is a fixed-size single-producer single-consumer event queue. One loop
// thread writes it; the collector reads it. Put never blocks and never
// allocates: a full ring drops the event and counts it, and the next Put that
// finds room first records a KindDrop event with the count.
type Ring struct {
	loop uint16
	mask uint64
	buf  []Event

	// Producer side. tail is published with a release store so the consumer
	// sees the slot written before it; headCache avoids reading the
	// consumer's cache line on every Put.
	tail      atomic.Uint64
	headCache uint64
	pending   uint64 // drops not yet reported by a KindDrop event
	_         [40]byte

	// Consumer side.
	head    atomic.Uint64
	dropped atomic.Uint64
	_       [48]byte
}

// NewRing returns a ring for the loop with index loop. size is rounded up to
// a power of two, at least 16.
func NewRing(loop uint16, size int) *Ring {
	n := 16
	for n < size {
		n <<= 1
	}
	return &Ring{loop: loop, mask: uint64(n - 1), buf: make([]Event, n)}
}

// Loop returns the index of the loop that owns the ring.
func (r *Ring) Loop() uint16 { return r.loop }

// Put appends e, stamped with the ring's loop. It reports whether the event
// was kept. Only the owning goroutine may call Put.
func (r *Ring) Put(e Event) bool {
	t := r.tail.Load()
	// The common case, room and no drop to report, writes the event in
	// place through one pointer; the rest is putSlow.
	if r.pending == 0 && t+1-r.headCache <= uint64(len(r.buf)) {
		s := &r.buf[t&r.mask]
		*s = e
		s.Loop = r.loop
		r.tail.Store(t + 1)
		return true
	}
	return r.putSlow(e, t)
}

// putSlow is Put when the cached head says the ring may be full, or when
// drops wait to be reported.
func (r *Ring) putSlow(e Event, t uint64) bool {
	if r.pending > 0 {
		if !r.room(t, 2) {
			r.drop()
			return false
		}
		r.buf[t&r.mask] = Event{Kind: KindDrop, Time: e.Time, Loop: r.loop, A: int64(r.pending)}
		r.pending = 0
		t++
	} else if !r.room(t, 1) {
		r.drop()
		return false
	}
	e.Loop = r.loop
	r.buf[t&r.mask] = e
	r.tail.Store(t + 1)
	return true
}

func (r *Ring) room(tail, n uint64) bool {
	if tail+n-r.headCache <= uint64(len(r.buf)) {
		return true
	}
	r.headCache = r.head.Load()
	return tail+n-r.headCache <= uint64(len(r.buf))
}

func (r *Ring) drop() {
	r.pending++
	r.dropped.Add(1)
}

// Drain appends every published event to dst and frees their slots. Only
// the single consumer may call Drain.
func (r *Ring) Drain(dst []Event) []Event {
	h := r.head.Load()
	t := r.tail.Load()
	for h != t {
		// At most two runs, as the published span may wrap around; each
		// is copied in one go, then zeroed so that the GC forgets the
		// strings its slots pointed to.
		i := h & r.mask
		j := min(uint64(len(r.buf)), i+(t-h))
		dst = append(dst, r.buf[i:j]...)
		clear(r.buf[i:j])
		h += j - i
	}
	r.head.Store(h)
	return dst
}

// Dropped returns how many events the ring has dropped so far.
func (r *Ring) Dropped() uint64 { return r.dropped.Load() }

// Len returns how many events wait to be drained.
func (r *Ring) Len() int { return int(r.tail.Load() - r.head.Load()) }
