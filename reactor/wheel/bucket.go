package wheel

import "sync/atomic"

// bucket is one slot of the wheel: an intrusive doubly linked list of
// timeouts, Netty's HashedWheelBucket. Only the wheel thread links and
// unlinks; n publishes the length for Snapshot, which any goroutine may take.
type bucket struct {
	head, tail *Timeout
	n          atomic.Int32
}

func (b *bucket) add(to *Timeout) {
	to.bucket = b
	if b.head == nil {
		b.head, b.tail = to, to
	} else {
		b.tail.next = to
		to.prev = b.tail
		b.tail = to
	}
	b.n.Add(1)
}

// remove unlinks to and returns the entry that followed it.
func (b *bucket) remove(to *Timeout) *Timeout {
	next := to.next
	if to.prev != nil {
		to.prev.next = next
	} else {
		b.head = next
	}
	if next != nil {
		next.prev = to.prev
	} else {
		b.tail = to.prev
	}
	to.next, to.prev, to.bucket = nil, nil, nil
	b.n.Add(-1)
	return next
}

// poll unlinks and returns the head, or nil when the slot is empty.
func (b *bucket) poll() *Timeout {
	if b.head == nil {
		return nil
	}
	to := b.head
	b.remove(to)
	return to
}
