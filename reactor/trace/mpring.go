package trace

import (
	"math"
	"sync/atomic"
)

// MPRing is a bounded multi-producer single-consumer event queue for events
// raised off the loop threads: an Execute from another goroutine, a wakeup it
// causes. It keeps the single-producer rule of Ring intact by giving those
// events a path of their own. Each slot carries a sequence number (Vyukov's
// bounded queue) so producers claim slots with one CAS and never wait on each
// other; a full ring drops and counts.
//
// A slot may be claimed before the event it will hold is known (Reserve):
// a producer stamps its event, acts (writes the eventfd, offers the task),
// then fills the slot in (Publish). The claimed slot carries its stamp, so
// the consumer knows the time before which the trace is complete (Drain's
// watermark), and holds back what came after it.
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
	at  atomic.Int64 // the claimed event's time + 1; 0 while not yet known
	ev  Event
}

// Pending is a claimed slot of an MPRing and the time its event carries.
// The zero Pending holds no slot (nothing reserved, or the ring was full):
// Publish does nothing with it.
type Pending struct {
	slot    uint64
	Time    int64
	claimed bool
}

// Claimed reports whether p holds a slot that Publish must fill.
func (p Pending) Claimed() bool { return p.claimed }

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

// claim takes the next slot, or reports the ring full.
func (r *MPRing) claim() (uint64, bool) {
	for {
		t := r.tail.Load()
		seq := r.slots[t&r.mask].seq.Load()
		switch {
		case seq == t:
			if r.tail.CompareAndSwap(t, t+1) {
				return t, true
			}
		case seq < t:
			r.dropped.Add(1) // the consumer has not freed this slot yet: full
			return 0, false
		}
		// Another producer claimed t; retry with the new tail.
	}
}

// Put appends e from any goroutine. It reports whether the event was kept.
func (r *MPRing) Put(e Event) bool {
	t, ok := r.claim()
	if !ok {
		return false
	}
	s := &r.slots[t&r.mask]
	s.at.Store(e.Time + 1)
	s.ev = e
	s.seq.Store(t + 1) // publish to the consumer
	return true
}

// Reserve claims a slot and stamps it with now(), read after the claim:
// a drain that found no claim has already taken every event stamped
// before the claim's, so an event it holds back is never one that this
// stamp should precede. It returns the zero Pending when the ring is full.
func (r *MPRing) Reserve(now func() int64) Pending {
	t, ok := r.claim()
	if !ok {
		return Pending{}
	}
	at := now()
	r.slots[t&r.mask].at.Store(at + 1)
	return Pending{slot: t, Time: at, claimed: true}
}

// Publish fills a reserved slot with e, stamped with the reservation's
// time. A zero Kind publishes nothing: the producer had nothing to record
// after all, and Drain skips the slot. A zero p publishes nothing.
func (r *MPRing) Publish(p Pending, e Event) {
	if !p.claimed {
		return
	}
	s := &r.slots[p.slot&r.mask]
	e.Time = p.Time
	s.ev = e
	s.seq.Store(p.slot + 1)
}

// Drain appends every published event to dst and frees their slots. Only the
// single consumer may call it.
func (r *MPRing) Drain(dst []Event) []Event {
	dst, _ = r.DrainWatermark(dst)
	return dst
}

// DrainWatermark is Drain that also returns the watermark: the earliest
// time an event still to come through this ring may carry, that of the
// oldest slot claimed and not yet drained (math.MaxInt64 when none is, and
// math.MinInt64 while a claim's time is not yet known). A consumer that
// merges by time delivers only what is earlier.
func (r *MPRing) DrainWatermark(dst []Event) ([]Event, int64) {
	h := r.head.Load()
	for {
		s := &r.slots[h&r.mask]
		if s.seq.Load() != h+1 {
			break // not yet published
		}
		if s.ev.Kind != KindInvalid {
			dst = append(dst, s.ev)
		}
		s.ev.Str = ""
		s.at.Store(0)
		s.seq.Store(h + r.mask + 1) // free the slot for the producer one lap on
		h++
	}
	r.head.Store(h)
	wm := int64(math.MaxInt64)
	for t := r.tail.Load(); h < t; h++ {
		at := r.slots[h&r.mask].at.Load()
		if at == 0 {
			return dst, math.MinInt64
		}
		wm = min(wm, at-1)
	}
	return dst, wm
}

// Dropped returns how many events were dropped because the ring was full.
func (r *MPRing) Dropped() uint64 { return r.dropped.Load() }
