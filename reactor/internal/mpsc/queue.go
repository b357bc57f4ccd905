package mpsc

import (
	"runtime"
	"sync/atomic"
)

const (
	chunkShift = 10
	// chunkSize is the number of slots per chunk, Netty's default chunk size
	// for its task queues.
	chunkSize = 1 << chunkShift
	chunkMask = chunkSize - 1

	// linking is stored in Queue.tailIndex while one producer links new
	// chunks. Chunk indices are never negative, so it cannot be mistaken for
	// one.
	linking = -1
	// recycled is the index of a chunk that has left the list. No producer
	// ever looks for it, so a stale pointer to such a chunk fails every
	// index check.
	recycled = -2

	// cacheLine separates fields written by producers from those written by
	// the consumer, so one side's writes do not evict the other's reads.
	cacheLine = 64
)

type slot[T any] struct {
	ready atomic.Bool
	value T
}

type chunk[T any] struct {
	index atomic.Int64
	// prev lets a producer that fell behind the tail walk back to its chunk.
	// The consumer clears it on the chunk it reads from, so the chunks it
	// has left are not kept reachable.
	prev  atomic.Pointer[chunk[T]]
	next  atomic.Pointer[chunk[T]]
	slots [chunkSize]slot[T]
}

// Queue is a multi-producer single-consumer FIFO queue. Offer, Len and
// IsEmpty may be called from any goroutine; Poll and Peek only from the one
// consumer goroutine. Elements offered by one goroutine are polled in the
// order it offered them. Create queues with New; the zero value is not
// usable.
type Queue[T any] struct {
	capacity int64 // 0 when unbounded; read-only after New

	// Producer side.
	producerIndex atomic.Int64 // next index to claim
	tailIndex     atomic.Int64 // index of tail, or linking
	tail          atomic.Pointer[chunk[T]]
	spare         atomic.Pointer[chunk[T]] // a consumed chunk kept for reuse
	_             [cacheLine]byte

	// Consumer side. consumerIndex is written only by the consumer; producers
	// of a bounded queue read it, as do Len and IsEmpty.
	consumerIndex atomic.Int64
	head          *chunk[T] // the chunk holding consumerIndex
	_             [cacheLine]byte
}

// New returns an empty queue. A capacity of zero or less makes it unbounded;
// otherwise Offer refuses elements once capacity of them are waiting.
// Netty clamps a configured bound to [2048, 2^30]; that is the loop's
// policy, so the queue honours the exact value it is given.
func New[T any](capacity int) *Queue[T] {
	q := &Queue[T]{capacity: max(int64(capacity), 0)}
	c := new(chunk[T])
	q.tail.Store(c)
	q.head = c
	return q
}

// Cap returns the bound given to New, or 0 for an unbounded queue.
func (q *Queue[T]) Cap() int { return int(q.capacity) }

// Offer appends v. It is safe from any goroutine and never blocks on other
// producers except, briefly, while one of them links a new chunk. It returns
// false only when the queue is bounded and full.
func (q *Queue[T]) Offer(v T) bool {
	idx, ok := q.claim()
	if !ok {
		return false
	}
	q.publish(idx, v)
	return true
}

// claim reserves the next index for the caller.
func (q *Queue[T]) claim() (int64, bool) {
	if q.capacity == 0 {
		return q.producerIndex.Add(1) - 1, true
	}
	for {
		p := q.producerIndex.Load()
		// The consumer index is loaded after p, so it is at least as fresh:
		// the queue really held capacity elements at that moment.
		if p-q.consumerIndex.Load() >= q.capacity {
			return 0, false
		}
		if q.producerIndex.CompareAndSwap(p, p+1) {
			return p, true
		}
	}
}

// publish writes v into the slot of index idx and only then marks it ready,
// so the consumer cannot read a half-written value.
func (q *Queue[T]) publish(idx int64, v T) {
	s := &q.chunkFor(idx >> chunkShift).slots[idx&chunkMask]
	s.value = v
	s.ready.Store(true)
}

// chunkFor returns the chunk with index want, linking it first if no
// producer has. The caller must hold an unpublished index in that chunk:
// that is what keeps the chunk, and every chunk after it, from being
// recycled meanwhile.
func (q *Queue[T]) chunkFor(want int64) *chunk[T] {
	// Common case: the tail. Even a stale tail pointer is fine if its index
	// reads want, because want is assigned to one chunk only.
	if c := q.tail.Load(); c.index.Load() == want {
		return c
	}
	for {
		t := q.tailIndex.Load()
		switch {
		case t == linking:
			runtime.Gosched() // another producer is linking; it takes a few instructions
		case t >= want:
			// Loaded after t, so the tail's index is at least t >= want.
			return walkBack(q.tail.Load(), want)
		case q.tailIndex.CompareAndSwap(t, linking):
			return q.linkThrough(want)
		}
	}
}

// walkBack follows prev links from c, whose index is at least want, to the
// chunk with index want. The links it follows cannot be cleared: the consumer
// clears prev only on the chunk it is reading, which is at most want.
func walkBack[T any](c *chunk[T], want int64) *chunk[T] {
	for c.index.Load() != want {
		c = c.prev.Load()
	}
	return c
}

// linkThrough appends chunks after the tail up to index want and returns the
// last. The caller has set tailIndex to linking, so it is the only producer
// changing the tail, and the tail cannot be recycled: its next is nil, so the
// consumer cannot have moved past it.
func (q *Queue[T]) linkThrough(want int64) *chunk[T] {
	c := q.tail.Load()
	for i := c.index.Load() + 1; i <= want; i++ {
		n := q.newChunk(i, c)
		// From here the consumer may move to n and recycle c; c is not
		// touched again.
		c.next.Store(n)
		q.tail.Store(n)
		c = n
	}
	q.tailIndex.Store(want)
	return c
}

// newChunk returns an empty chunk numbered index, reusing the spare if there
// is one. Its slots are already zero: the consumer cleared each as it read it.
func (q *Queue[T]) newChunk(index int64, prev *chunk[T]) *chunk[T] {
	c := q.spare.Swap(nil)
	if c == nil {
		c = new(chunk[T])
	}
	c.prev.Store(prev)
	c.index.Store(index) // last: a producer that reads index may use the chunk
	return c
}

// Poll removes and returns the oldest element, or reports false if the queue
// is empty. Only the consumer goroutine may call it. If a producer has
// claimed the next slot but not yet written it, Poll waits for it, so Poll
// succeeds whenever IsEmpty has just reported false.
func (q *Queue[T]) Poll() (T, bool) {
	var zero T
	s, ci, ok := q.headSlot()
	if !ok {
		return zero, false
	}
	v := s.value
	s.value = zero // release what the element refers to
	s.ready.Store(false)
	q.consumerIndex.Store(ci + 1) // the consumer is its only writer
	return v, true
}

// Peek returns the oldest element without removing it. Only the consumer
// goroutine may call it; it waits like Poll.
func (q *Queue[T]) Peek() (T, bool) {
	s, _, ok := q.headSlot()
	if !ok {
		var zero T
		return zero, false
	}
	return s.value, true
}

// headSlot returns the published slot of the oldest element and its index,
// moving the consumer to the next chunk when the current one is used up.
func (q *Queue[T]) headSlot() (*slot[T], int64, bool) {
	ci := q.consumerIndex.Load()
	if ci == q.producerIndex.Load() {
		return nil, 0, false
	}
	if ci>>chunkShift != q.head.index.Load() {
		q.advanceHead()
	}
	s := &q.head.slots[ci&chunkMask]
	for !s.ready.Load() {
		runtime.Gosched() // claimed but not yet written: the producer is mid-Offer
	}
	return s, ci, true
}

// advanceHead moves the consumer from a fully read chunk to the next one and
// recycles the old chunk.
func (q *Queue[T]) advanceHead() {
	old := q.head
	next := old.next.Load()
	for next == nil {
		runtime.Gosched() // an element was claimed in next, which is being linked
		next = old.next.Load()
	}
	next.prev.Store(nil)
	q.head = next
	q.recycle(old)
}

// recycle keeps c as the spare unless one is already kept, in which case c
// is left to the garbage collector.
func (q *Queue[T]) recycle(c *chunk[T]) {
	c.index.Store(recycled)
	c.next.Store(nil)
	c.prev.Store(nil)
	q.spare.CompareAndSwap(nil, c)
}

// Len returns the number of elements offered and not yet polled, including
// any whose Offer is still in progress. With concurrent callers it is a
// snapshot that may already be stale.
func (q *Queue[T]) Len() int {
	c := q.consumerIndex.Load() // first, so the result cannot be negative
	n := q.producerIndex.Load() - c
	if q.capacity > 0 {
		n = min(n, q.capacity)
	}
	return int(n)
}

// IsEmpty reports whether there is nothing to poll. Once Offer has returned
// true, IsEmpty reports false on every goroutine until the consumer polls
// that element: the event loop depends on this to decide whether it may
// block in epoll_wait.
func (q *Queue[T]) IsEmpty() bool {
	return q.consumerIndex.Load() == q.producerIndex.Load()
}
