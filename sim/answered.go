package sim

import "sync/atomic"

// answeredCount is one loop's count of requests answered, padded to a cache
// line of its own: each loop adds to its count on every read, and loops on
// other cores must not contend for the line.
type answeredCount struct {
	atomic.Int64
	_ [56]byte
}

// Answered is how many requests the server's protocol handlers have
// answered so far, over every loop: what serve's requests per second come
// from. Echo has no requests and counts none. Any goroutine.
func (r *Run) Answered() int64 {
	var n int64
	for _, c := range r.answered {
		n += c.Load()
	}
	return n
}
