package trace

import "testing"

// BenchmarkEmit is one event into a loop's ring, the cost every emission
// site pays with a sink attached (the timestamp is the caller's, taken
// where the loop reads the clock anyway). Target: ≤ 25 ns, 0 allocs. The
// ring is drained every 4096 events, in the same goroutine, standing in for
// the collector's periodic drain; the drain's cost is included.
func BenchmarkEmit(b *testing.B) {
	r := NewRing(0, 1<<13)
	buf := make([]Event, 0, 1<<13)
	var sw Switch
	sw.Set(true)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if sw.On() {
			r.Put(Event{Kind: KindRead, Time: int64(i), A: 7, B: 9, C: 512})
		}
		if i&4095 == 4095 {
			buf = r.Drain(buf[:0])
		}
	}
	if r.Dropped() != 0 {
		b.Fatalf("%d events dropped", r.Dropped())
	}
}

// BenchmarkEmitOff is an emission site with no sink: one atomic load.
func BenchmarkEmitOff(b *testing.B) {
	r := NewRing(0, 16)
	var sw Switch
	for i := 0; i < b.N; i++ {
		if sw.On() {
			r.Put(Event{Kind: KindRead})
		}
	}
}

// BenchmarkEmitWithClock adds a monotonic clock read to Emit: what a site
// pays when it has no timestamp of its own.
func BenchmarkEmitWithClock(b *testing.B) {
	r := NewRing(0, 1<<10)
	c := NewClock()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Put(Event{Kind: KindRead, Time: c.Now()})
		if r.Len() > 512 {
			r.head.Store(r.tail.Load())
		}
	}
}

// discard is a sink that keeps nothing.
type discard struct{}

func (discard) Consume([]Event) {}

// BenchmarkFlush is the collector's drain of 1024 events from a busy loop
// while another loop is idle, as under serve with one worker: the drain
// copies them out, orders them by time and numbers them. Its cost is per
// event, on the collector's goroutine, never a loop's.
func BenchmarkFlush(b *testing.B) {
	c := NewCollector(Options{RingSize: 1 << 12})
	busy := c.AddLoop("worker-0", "worker")
	c.AddLoop("boss-0", "boss")
	c.AddSink(discard{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for j := range 1024 {
			busy.Put(Event{Kind: KindRead, Time: int64(i*1024 + j), A: 7})
		}
		c.Flush()
	}
	b.ReportMetric(float64(b.N*1024)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkExternalPut is one off-loop event through the shared ring, the
// cost a producer pays per record with a sink attached, drained every
// 4096 events as BenchmarkEmit is.
func BenchmarkExternalPut(b *testing.B) {
	r := NewMPRing(1 << 13)
	buf := make([]Event, 0, 1<<13)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Put(Event{Kind: KindWakeup, Time: int64(i), Flag: true})
		if i&4095 == 4095 {
			buf = r.Drain(buf[:0])
		}
	}
}

// BenchmarkExternalReserve is BenchmarkExternalPut done in two steps, as
// a wakeup is recorded: claim and stamp before the action, fill after.
func BenchmarkExternalReserve(b *testing.B) {
	r := NewMPRing(1 << 13)
	buf := make([]Event, 0, 1<<13)
	var t int64
	now := func() int64 { t++; return t }
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Publish(r.Reserve(now), Event{Kind: KindWakeup, Flag: true})
		if i&4095 == 4095 {
			buf = r.Drain(buf[:0])
		}
	}
}
