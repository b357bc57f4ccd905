package trace

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// A full ring drops and counts instead of blocking, and reports the drops
// with one KindDrop event once it has room again.
func TestRingDropsAndReports(t *testing.T) {
	r := NewRing(3, 16)
	for i := 0; i < 20; i++ {
		kept := r.Put(Event{Kind: KindRead, A: int64(i)})
		if kept != (i < 16) {
			t.Fatalf("put %d: kept=%v", i, kept)
		}
	}
	if r.Dropped() != 4 {
		t.Fatalf("dropped %d, want 4", r.Dropped())
	}
	got := r.Drain(nil)
	if len(got) != 16 || got[15].A != 15 || got[0].Loop != 3 {
		t.Fatalf("drained %d events", len(got))
	}
	r.Put(Event{Kind: KindRead, A: 99})
	got = r.Drain(nil)
	if len(got) != 2 || got[0].Kind != KindDrop || got[0].A != 4 || got[1].A != 99 {
		t.Fatalf("after room: %+v", got)
	}
}

// Drain returns the events in order when the published span wraps around
// the end of the buffer, and frees their slots.
func TestRingDrainWraps(t *testing.T) {
	r := NewRing(0, 16)
	for i := 0; i < 10; i++ {
		r.Put(Event{Kind: KindRead, A: int64(i), Str: "x"})
	}
	if got := r.Drain(nil); len(got) != 10 {
		t.Fatalf("first drain: %d events", len(got))
	}
	for i := 10; i < 22; i++ { // slots 10..15, then 0..5
		if !r.Put(Event{Kind: KindRead, A: int64(i)}) {
			t.Fatalf("put %d dropped", i)
		}
	}
	got := r.Drain(nil)
	if len(got) != 12 {
		t.Fatalf("second drain: %d events, want 12", len(got))
	}
	for i, e := range got {
		if e.A != int64(10+i) {
			t.Fatalf("event %d has A=%d, want %d", i, e.A, 10+i)
		}
	}
	if r.Len() != 0 {
		t.Fatalf("%d events left", r.Len())
	}
	for i := range r.buf {
		if r.buf[i].Str != "" {
			t.Fatalf("slot %d still holds %q", i, r.buf[i].Str)
		}
	}
}

func TestRingPutDoesNotAllocate(t *testing.T) {
	r := NewRing(0, 1024)
	e := Event{Kind: KindTaskRun, A: 1, Str: "name"}
	allocs := testing.AllocsPerRun(1000, func() {
		r.Put(e)
		if r.Len() > 512 {
			r.head.Store(r.tail.Load()) // consume without copying out
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per Put", allocs)
	}
}

// Events of one loop reach the sinks in the order the loop emitted them,
// with the collector's sequence numbers increasing.
func TestCollectorKeepsPerLoopOrder(t *testing.T) {
	c := NewCollector(Options{RingSize: 1 << 12})
	var mu sync.Mutex
	var got []Event
	c.AddSink(SinkFunc(func(b []Event) {
		mu.Lock()
		got = append(got, b...)
		mu.Unlock()
	}))
	c.Start()
	const loops, per = 3, 3000
	var wg sync.WaitGroup
	for l := 0; l < loops; l++ {
		r := c.AddLoop("loop", "g")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; {
				if r.Put(Event{Kind: KindRead, A: int64(i), Time: c.Clock().Now()}) {
					i++
				}
			}
		}()
	}
	for i := 0; i < 100; i++ {
		c.External(Event{Kind: KindWakeup, Loop: 0, Time: c.Clock().Now()})
	}
	wg.Wait()
	c.Stop()
	next := make([]int64, loops)
	var lastSeq uint64
	wakeups := 0
	for _, e := range got {
		if e.Seq <= lastSeq {
			t.Fatalf("seq %d after %d", e.Seq, lastSeq)
		}
		lastSeq = e.Seq
		switch e.Kind {
		case KindRead:
			if e.A != next[e.Loop] {
				t.Fatalf("loop %d: event %d arrived when %d was due", e.Loop, e.A, next[e.Loop])
			}
			next[e.Loop]++
		case KindWakeup:
			wakeups++
		}
	}
	for l, n := range next {
		if n != per {
			t.Fatalf("loop %d: %d events, want %d", l, n, per)
		}
	}
	if emitted, dropped := c.Stats(); wakeups != 100 || emitted != loops*per+100 || dropped != 0 {
		t.Fatalf("wakeups=%d emitted=%d dropped=%d", wakeups, emitted, dropped)
	}
}

func TestMPRingManyProducers(t *testing.T) {
	r := NewMPRing(1 << 10)
	var wg sync.WaitGroup
	var kept [4]int
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				if r.Put(Event{Kind: KindTaskSubmit, A: int64(p)}) {
					kept[p]++
				}
			}
		}()
	}
	wg.Wait()
	got := r.Drain(nil)
	total := kept[0] + kept[1] + kept[2] + kept[3]
	if len(got) != total || uint64(2000-total) != r.Dropped() {
		t.Fatalf("drained %d, kept %d, dropped %d", len(got), total, r.Dropped())
	}
	if total != 1024 {
		t.Fatalf("kept %d of 2000 in a 1024-slot ring, want 1024", total)
	}
}

func TestFieldsRoundTripThroughSetField(t *testing.T) {
	for _, k := range Kinds() {
		e := Event{Kind: k, A: 1, B: 2, C: 3, D: 4, E: 5, Flag: true, Str: "s"}
		var back Event
		back.Kind = k
		for _, f := range e.Fields(nil) {
			if !back.SetField(f.Name, f) {
				t.Fatalf("%v: SetField(%s) refused", k, f.Name)
			}
		}
		n := len(e.Fields(nil))
		if got := back.Fields(nil); len(got) != n {
			t.Fatalf("%v: %d fields back, want %d", k, len(got), n)
		}
		if pk, ok := ParseKind(k.String()); !ok || pk != k {
			t.Fatalf("ParseKind(%q)", k.String())
		}
	}
}

// A reserved off-loop record holds back, flush after flush, every event
// stamped at or after its stamp, and is delivered before them once
// published; an abandoned one delivers nothing and holds nothing.
func TestCollectorHoldsBackBehindAReservation(t *testing.T) {
	c := NewCollector(Options{})
	loop := c.AddLoop("worker-0", "worker")
	var got []Event
	c.AddSink(SinkFunc(func(b []Event) { got = append(got, b...) }))
	loop.Put(Event{Kind: KindSelectBegin, Time: 1})
	p := c.Reserve()
	if !p.Claimed() {
		t.Fatal("no slot")
	}
	loop.Put(Event{Kind: KindSelectEnd, Time: p.Time + 10})
	c.Flush()
	c.Flush()
	if len(got) != 1 || got[0].Kind != KindSelectBegin {
		t.Fatalf("delivered %+v while a reservation older than the select_end was open", got)
	}
	c.Publish(p, Event{Kind: KindWakeup, Flag: true})
	c.Flush()
	if len(got) != 3 || got[1].Kind != KindWakeup || got[1].Time != p.Time || got[2].Kind != KindSelectEnd {
		t.Fatalf("after the publish: %+v", got)
	}
	q := c.Reserve()
	loop.Put(Event{Kind: KindTaskRun, Time: q.Time + 1})
	c.Abandon(q)
	c.Flush()
	if len(got) != 4 || got[3].Kind != KindTaskRun {
		t.Fatalf("after an abandoned reservation: %+v", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq != got[i-1].Seq+1 {
			t.Fatalf("sequence numbers %d then %d", got[i-1].Seq, got[i].Seq)
		}
	}
}

// The collector's last flush, when it stops, delivers what it drained
// even behind a reservation never published.
func TestCollectorStopDeliversBehindAReservation(t *testing.T) {
	c := NewCollector(Options{})
	loop := c.AddLoop("worker-0", "worker")
	var n int
	c.AddSink(SinkFunc(func(b []Event) { n += len(b) }))
	c.Start()
	p := c.Reserve()
	loop.Put(Event{Kind: KindSelectEnd, Time: p.Time + 1})
	c.Stop()
	if n != 1 {
		t.Fatalf("%d events delivered at stop, want 1", n)
	}
}

// Settle waits out a reservation a producer is about to publish: where a
// Flush leaves the later events held, Settle returns with them delivered,
// the published record before them.
func TestCollectorSettleWaitsForAnOpenReservation(t *testing.T) {
	c := NewCollector(Options{})
	loop := c.AddLoop("worker-0", "worker")
	delivered := collect(c)
	p := c.Reserve()
	loop.Put(Event{Kind: KindSelectEnd, Time: p.Time + 10})
	c.Flush()
	if n := len(delivered()); n != 0 {
		t.Fatalf("Flush delivered %d events behind an open reservation", n)
	}
	publishSoon(c, p)
	c.Settle()
	if got := delivered(); len(got) != 2 || got[0].Kind != KindWakeup || got[1].Kind != KindSelectEnd {
		t.Fatalf("after Settle: %+v", got)
	}
}

// collect adds a sink to c and returns what it has delivered so far.
func collect(c *Collector) (delivered func() []Event) {
	var mu sync.Mutex
	var got []Event
	c.AddSink(SinkFunc(func(b []Event) { mu.Lock(); got = append(got, b...); mu.Unlock() }))
	return func() []Event {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// publishSoon publishes a wakeup in p from another goroutine, 5 ms on:
// a producer between its claim and its record.
func publishSoon(c *Collector, p Pending) {
	go func() {
		time.Sleep(5 * time.Millisecond)
		c.Publish(p, Event{Kind: KindWakeup, Flag: true})
	}()
}

// Settle waits for a claim made before it even when the claim holds
// nothing back: the claim's own event was recorded before the call.
func TestCollectorSettleWaitsForAnOpenClaimsEvent(t *testing.T) {
	c := NewCollector(Options{})
	c.AddLoop("worker-0", "worker")
	delivered := collect(c)
	publishSoon(c, c.Reserve())
	c.Settle()
	if got := delivered(); len(got) != 1 || got[0].Kind != KindWakeup {
		t.Fatalf("after Settle: %+v, want the claim's wakeup", got)
	}
}

// Settle does not wait for a claim made after the call: a producer that
// keeps claiming does not keep it flushing until it gives up.
func TestCollectorSettleLeavesLaterClaims(t *testing.T) {
	c := NewCollector(Options{})
	loop := c.AddLoop("worker-0", "worker")
	var later Pending
	c.AddSink(SinkFunc(func([]Event) {
		if !later.Claimed() {
			// A producer claims after the call, and the loop records an
			// event the claim holds back.
			later = c.Reserve()
			loop.Put(Event{Kind: KindSelectEnd, Time: later.Time + 1})
		}
	}))
	// Two claims before the call, published in turn: the first delivery
	// comes while the second still holds the loop's event back.
	p, q := c.Reserve(), c.Reserve()
	loop.Put(Event{Kind: KindSelectBegin, Time: q.Time + 1})
	go func() {
		time.Sleep(5 * time.Millisecond)
		c.Publish(p, Event{Kind: KindWakeup})
		time.Sleep(5 * time.Millisecond)
		c.Publish(q, Event{Kind: KindWakeup})
	}()
	start := time.Now()
	c.Settle()
	if d := time.Since(start); d >= 500*time.Millisecond {
		t.Errorf("Settle took %v: it waited for a claim made after the call", d)
	}
	c.Publish(later, Event{Kind: KindWakeup})
}
