package remote

import (
	"encoding/json"
	"sync"
)

// outbox holds what goes to the page, in order, for one writer goroutine:
// the answers and the trace as they come, and at most one state, read when
// it is its turn to go so that it is fresh. A writer that never waits for
// the page keeps the collector, which writes the trace, from waiting on a
// browser.
type outbox struct {
	mu    sync.Mutex
	ready chan struct{} // signalled when something is queued
	items []item
	// queued counts the bytes held for the page, from when they are
	// queued until they are written: what is being written counts, so a
	// page that reads slowly is cut off when max bytes are held for it,
	// not when max more wait behind the message it has not yet taken.
	// A trace message counts its whole allocation.
	queued  int
	max     int
	stated  bool // a state is queued
	closed  bool
	fellOut bool // max was passed
}

// item is a message to send; state, when set, makes the message when it
// is sent.
type item struct {
	binary bool
	data   []byte
	size   int // what it counts in queued
	state  func() []byte
}

func newOutbox(max int) *outbox { return &outbox{ready: make(chan struct{}, 1), max: max} }

// chunk is the size of a trace message: trace bytes after trace bytes go
// as one message of up to this much, allocated once, since fewer, larger
// messages are cheaper for the page.
const chunk = 256 << 10

func (o *outbox) push(it item) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.fellOut:
		return ErrFellBehind
	case o.closed:
		return errClosed
	}
	n := len(o.items)
	if it.binary && n > 0 && o.items[n-1].binary && len(o.items[n-1].data)+len(it.data) <= cap(o.items[n-1].data) {
		o.items[n-1].data = append(o.items[n-1].data, it.data...)
		o.signal()
		return nil
	}
	size := len(it.data)
	if it.binary {
		size = max(size, min(chunk, o.max/4))
	}
	if o.queued+size > o.max {
		o.fellOut = true
		o.items = nil
		o.signal()
		return ErrFellBehind
	}
	if it.binary {
		it.data = append(make([]byte, 0, size), it.data...)
	}
	it.size = size
	o.items = append(o.items, it)
	o.queued += size
	o.signal()
	return nil
}

func (o *outbox) signal() {
	select {
	case o.ready <- struct{}{}:
	default:
	}
}

// text queues a message.
func (o *outbox) text(m message) {
	b, _ := json.Marshal(m)
	_ = o.push(item{data: b})
}

// state queues a state unless one waits already.
func (o *outbox) state(read func() []byte) {
	o.mu.Lock()
	if o.stated {
		o.mu.Unlock()
		return
	}
	o.stated = true
	o.mu.Unlock()
	_ = o.push(item{state: read})
}

// close lets drain send what is queued and return.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.signal()
	o.mu.Unlock()
}

// take returns what is queued, and whether the outbox is closed or the
// page fell behind.
func (o *outbox) take() ([]item, bool, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	items := o.items
	o.items = nil
	return items, o.closed, o.fellOut
}

// drain writes what is queued to c until the outbox is closed and empty,
// or the page fell behind, or a write fails. A write to a page that is
// gone fails within the connection's write deadline.
func (o *outbox) drain(c Conn) error {
	for {
		items, closed, fell := o.take()
		if fell {
			return ErrFellBehind
		}
		for _, it := range items {
			data := it.data
			if it.state != nil {
				o.mu.Lock()
				o.stated = false
				o.mu.Unlock()
				data = it.state()
			}
			if err := c.WriteMessage(it.binary, data); err != nil {
				return err
			}
			o.mu.Lock()
			o.queued -= it.size
			o.mu.Unlock()
		}
		if closed && len(items) == 0 {
			return nil
		}
		if len(items) == 0 {
			<-o.ready
		}
	}
}
