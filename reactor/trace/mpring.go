package trace

import "sync/atomic"

// MPRing is a bounded multi-producer single-consumer event queue for events
// raised off the loop threads: an Execute from another goroutine, a wakeup it
// causes. It keeps the single-producer rule of Ring intact by giving those
// events a path of their own. Each slot carries a sequence number (Vyukov's
// bounded queue) so producers claim slots with one CAS and never wait on each
// other; a full ring drops and counts.
type MPRing struct {
	mask    uint64
	slots   []mpSlot
	_       [56]byte
	tail    atomic.Uint64
	_       [56]byte
	head    atomic.Uint64
	dropped atomic.Uint64
}

type mpSlot struct {
	seq atomic.Uint64
	ev  Event
}

// NewMPRing returns a ring of at least size slots (a power of two, ≥ 16).
func NewMPRing(size int) *MPRing {
	n := 16
	for n < size {
		n <<= 1
	}
	r := &MPRing{mask: uint64(n - 1), slots: make([]mpSlot, n)}
	for i := range r.slots {
		r.slots[i].seq.Store(uint64(i))
	}
	return r
}

// Put appends e from any goroutine. It reports whether the event was kept.
func (r *MPRing) Put(e Event) bool {
	for {
		t := r.tail.Load()
		s := &r.slots[t&r.mask]
		seq := s.seq.Load()
		switch {
		case seq == t:
			if r.tail.CompareAndSwap(t, t+1) {
				s.ev = e
				s.seq.Store(t + 1) // publish to the consumer
				return true
			}
		case seq < t:
			r.dropped.Add(1) // the consumer has not freed this slot yet: full
			return false
		}
		// Another producer claimed t; retry with the new tail.
	}
}

// Drain appends every published event to dst and frees their slots. Only the
// single consumer may call it.
func (r *MPRing) Drain(dst []Event) []Event {
	h := r.head.Load()
	for {
		s := &r.slots[h&r.mask]
		if s.seq.Load() != h+1 {
			break // not yet published
		}
		dst = append(dst, s.ev)
		s.ev.Str = ""
		s.seq.Store(h + r.mask + 1) // free the slot for the producer one lap on
		h++
	}
	r.head.Store(h)
	return dst
}

// Dropped returns how many events were dropped because the ring was full.
func (r *MPRing) Dropped() uint64 { return r.dropped.Load() }
