package wheel

import "sync"

// queue carries timeouts from any goroutine to the wheel thread: Netty's
// MPSC queues of new and of cancelled timeouts. A mutex-guarded slice is
// enough off the event loops' hot path; producers hold the lock for one
// append, the wheel thread for one tick's batch.
type queue struct {
	mu     sync.Mutex
	items  []*Timeout
	closed bool
}

// shrinkAbove is the capacity past which an emptied queue lets its backing
// array go, so one burst does not pin its memory for the timer's life.
const shrinkAbove = 4096

// push appends to unless the queue is closed.
func (q *queue) push(to *Timeout) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.items = append(q.items, to)
	return true
}

// take moves up to limit timeouts, oldest first, onto dst.
func (q *queue) take(dst []*Timeout, limit int) []*Timeout {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.items), limit)
	dst = append(dst, q.items[:n]...)
	rest := copy(q.items, q.items[n:])
	clear(q.items[rest:])
	q.items = q.items[:rest]
	if rest == 0 && cap(q.items) > shrinkAbove {
		q.items = nil
	}
	return dst
}

// close refuses further pushes and returns what was queued.
func (q *queue) close() []*Timeout {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	items := q.items
	q.items = nil
	return items
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
