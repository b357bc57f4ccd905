package trace

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"
)

// Sink receives events from a Collector. Consume runs on the collector's
// goroutine, never on a loop thread; the batch is reused once it returns. A
// slow sink makes the rings fill and drop, it never slows a loop.
type Sink interface {
	Consume(batch []Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(batch []Event)

// Consume calls f.
func (f SinkFunc) Consume(batch []Event) { f(batch) }

// LoopInfo names a loop that emits events: "boss-0" in group "boss".
type LoopInfo struct {
	Name  string
	Group string
}

// Options configures a Collector. Zero values take the defaults.
type Options struct {
	RingSize     int           // events per loop ring; default 8192
	ExternalSize int           // events in the shared off-loop ring; default 8192
	Interval     time.Duration // how often the rings are drained; default 2 ms
}

// Collector owns the rings of one run, drains them on its own goroutine and
// fans the events out to sinks.
type Collector struct {
	clock *Clock
	sw    Switch
	opts  Options
	ext   *MPRing

	mu    sync.Mutex // guards loops, rings and sinks
	loops []LoopInfo
	rings []*Ring
	sinks []Sink

	drainMu sync.Mutex // one consumer at a time
	batch   []Event
	held    []Event // drained, but later than an off-loop event still to come
	seq     uint64
	emitted uint64

	stop    chan struct{}
	done    chan struct{}
	sinkAdd chan struct{} // AddSink's nudge to a drain waiting for its first sink
}

// NewCollector returns a collector with no sinks; its switch is off until a
// sink is added.
func NewCollector(opts Options) *Collector {
	if opts.RingSize <= 0 {
		opts.RingSize = 8192
	}
	if opts.ExternalSize <= 0 {
		opts.ExternalSize = 8192
	}
	if opts.Interval <= 0 {
		opts.Interval = 2 * time.Millisecond
	}
	return &Collector{clock: NewClock(), opts: opts, ext: NewMPRing(opts.ExternalSize),
		sinkAdd: make(chan struct{}, 1)}
}

// Clock returns the run's time base.
func (c *Collector) Clock() *Clock { return c.clock }

// Switch returns the flag emission sites check before building an event.
func (c *Collector) Switch() *Switch { return &c.sw }

// AddLoop registers a loop (or the wheel thread) and returns the ring it
// alone writes.
func (c *Collector) AddLoop(name, group string) *Ring {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := NewRing(uint16(len(c.rings)), c.opts.RingSize)
	c.loops = append(c.loops, LoopInfo{Name: name, Group: group})
	c.rings = append(c.rings, r)
	return r
}

// Loops returns the registered loops; an Event's Loop indexes this slice.
func (c *Collector) Loops() []LoopInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.loops)
}

// LoopIndex returns the index of the named loop.
func (c *Collector) LoopIndex(name string) (uint16, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, l := range c.loops {
		if l.Name == name {
			return uint16(i), true
		}
	}
	return 0, false
}

// External queues an event raised off the loop threads. Safe from any
// goroutine; a full ring drops and counts.
func (c *Collector) External(e Event) bool { return c.ext.Put(e) }

// Reserve stamps an off-loop event before the producer acts, so the event
// is never later than what its action causes on a loop: a wakeup written
// to a loop's eventfd is stamped before the select it ends returns. Until
// the producer publishes it (Publish, or Abandon), the drain holds back
// every event stamped after it, so the trace also delivers cause before
// effect. Safe from any goroutine; the zero Pending when the ring is full.
func (c *Collector) Reserve() Pending { return c.ext.Reserve(c.clock.Now) }

// Publish records e in the slot p reserved, at p's time; nothing for a
// zero p.
func (c *Collector) Publish(p Pending, e Event) { c.ext.Publish(p, e) }

// Abandon releases a reservation that turned out to have nothing to
// record; nothing for a zero p.
func (c *Collector) Abandon(p Pending) { c.ext.Publish(p, Event{}) }

// AddSink attaches a sink and turns emission on.
func (c *Collector) AddSink(s Sink) {
	c.mu.Lock()
	c.sinks = append(c.sinks, s)
	c.mu.Unlock()
	c.sw.Set(true)
	select {
	case c.sinkAdd <- struct{}{}:
	default:
	}
}

// Start drains the rings every Interval until Stop.
func (c *Collector) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		return
	}
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go c.run(c.stop, c.done)
}

func (c *Collector) run(stop, done chan struct{}) {
	defer close(done)
	// With no sink the switch is off and nothing is emitted, so there is
	// nothing to drain: wait for the first sink rather than tick. A ticker
	// wakes a thread 500 times a second, and on a server pinned to one core
	// every wakeup preempts the loop it shares the core with.
	c.mu.Lock()
	idle := len(c.sinks) == 0
	c.mu.Unlock()
	if idle {
		select {
		case <-stop:
			c.flush(nil, true)
			return
		case <-c.sinkAdd:
		}
	}
	t := time.NewTicker(c.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			c.flush(nil, true)
			return
		case <-t.C:
			c.Flush()
		}
	}
}

// Stop ends the background drain after one last Flush. Emission stays as it
// was, so a Flush afterwards still collects late events.
func (c *Collector) Stop() {
	c.mu.Lock()
	stop, done := c.stop, c.done
	c.stop, c.done = nil, nil
	c.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// RecordSink is a Sink that also takes the stream's records that are not
// events (a run's samples, reactor/trace/sample), in order with the events.
// ConsumeRecord runs on the goroutine that called Deliver.
type RecordSink interface {
	ConsumeRecord(rec any)
}

// Deliver drains every ring, delivers what it found, then hands rec to every
// sink that is a RecordSink: rec follows every event delivered before it and
// precedes every later one. Unlike an event it is never dropped. Any
// goroutine but a sink's.
func (c *Collector) Deliver(rec any) { c.flush(rec, false) }

// Flush drains every ring now and delivers what it found. Events of one loop
// keep their order; events of different loops are merged by time. An
// off-loop producer that reserved a slot and has not published it yet
// (Reserve) holds back the events stamped at or after its stamp, until a
// later Flush: the trace never shows an effect before its cause.
func (c *Collector) Flush() { c.flush(nil, false) }

// Settle is Flush, repeated until every off-loop claim made before the
// call (Reserve) is published and delivered, with what it held back: the
// caller then sees every event recorded before it, as a test reading what
// the loops did must. Claims made after the call are not waited for. A
// claim covers a non-blocking offer and at most one eventfd write, so
// this is brief; it gives up after a second. The collector's own drains
// never wait.
func (c *Collector) Settle() {
	from := c.clock.Now()
	deadline := time.Now().Add(time.Second)
	// A claim stamped at from may predate the call: a held clock stands.
	for c.flush(nil, false) <= from && time.Now().Before(deadline) {
		time.Sleep(20 * time.Microsecond)
	}
}

// flush is Flush, then rec (if any) to the record sinks; the last one, when
// the collector stops, delivers everything it drained, whatever a producer
// still holds. It returns the off-loop ring's watermark after the drain
// (MPRing.DrainWatermark): the earliest time an event still held or to
// come from an open claim may carry.
func (c *Collector) flush(rec any, last bool) (wm int64) {
	c.mu.Lock()
	rings := c.rings
	sinks := c.sinks
	c.mu.Unlock()

	c.drainMu.Lock()
	defer c.drainMu.Unlock()
	b := append(c.batch[:0], c.held...)
	c.held = c.held[:0]
	// The loops' rings first, then the off-loop ring: an event a producer
	// claims after this looked at its ring is stamped after every event
	// drained here.
	for _, r := range rings {
		b = r.Drain(b)
	}
	b, wm = c.ext.DrainWatermark(b)
	defer func() {
		if rec == nil {
			return
		}
		for _, s := range sinks {
			if rs, ok := s.(RecordSink); ok {
				rs.ConsumeRecord(rec)
			}
		}
	}()
	if len(b) == 0 {
		c.batch = b
		return wm
	}
	// A drain is most often one busy loop's events, already in time
	// order: checking costs a comparison an event, a stable sort many.
	if !slices.IsSortedFunc(b, byTime) {
		slices.SortStableFunc(b, byTime)
	}
	if !last && wm != math.MaxInt64 {
		// A loop stamps its events in order, so what is held back of one
		// loop is all after what goes out.
		i, _ := slices.BinarySearchFunc(b, wm, func(e Event, t int64) int { return cmp.Compare(e.Time, t) })
		c.held = append(c.held, b[i:]...)
		b = b[:i]
		if len(b) == 0 {
			c.batch = b
			return wm
		}
	}
	for i := range b {
		c.seq++
		b[i].Seq = c.seq
	}
	c.emitted += uint64(len(b))
	for _, s := range sinks {
		s.Consume(b)
	}
	c.batch = b
	return wm
}

// byTime orders events by their time.
func byTime(x, y Event) int {
	switch {
	case x.Time < y.Time:
		return -1
	case x.Time > y.Time:
		return 1
	}
	return 0
}

// Stats returns how many events were delivered and how many were dropped.
// It waits for a drain in progress, sinks and all; Dropped does not.
func (c *Collector) Stats() (emitted, dropped uint64) {
	dropped = c.Dropped()
	c.drainMu.Lock()
	emitted = c.emitted
	c.drainMu.Unlock()
	return emitted, dropped
}

// Dropped returns how many events were dropped because a ring was full. It
// reads the rings' atomic counters and takes only mu, which is never held
// across a drain, so a UI may call it every frame even while a slow sink
// (a trace file) holds the drain.
func (c *Collector) Dropped() uint64 {
	c.mu.Lock()
	rings := c.rings
	c.mu.Unlock()
	var dropped uint64
	for _, r := range rings {
		dropped += r.Dropped()
	}
	return dropped + c.ext.Dropped()
}
