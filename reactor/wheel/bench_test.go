package wheel

import (
	"testing"
	"time"
)

// BenchmarkNewTimeout measures scheduling from one goroutine: the pending
// count, the queue append and the Timeout allocation.
func BenchmarkNewTimeout(b *testing.B) {
	tm, err := New(Config{Tick: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	noop := func() {}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tm.NewTimeout("bench", time.Hour, noop); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if _, err := tm.Stop(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkNewTimeoutParallel shows the cost of the mutex-guarded queue
// when several goroutines schedule at once.
func BenchmarkNewTimeoutParallel(b *testing.B) {
	tm, err := New(Config{Tick: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	noop := func() {}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := tm.NewTimeout("bench", time.Hour, noop); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	if _, err := tm.Stop(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTransferExpire drives the tick by hand, without the wheel
// thread: per timeout, the queue hand-off, the move into a slot, the
// expiry and an empty task.
func BenchmarkTransferExpire(b *testing.B) {
	tm, err := New(Config{Tick: 10 * time.Millisecond, TicksPerWheel: 512}, WithClock(newFakeClock(0)))
	if err != nil {
		b.Fatal(err)
	}
	noop := func() {}
	const perTick = 1024
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		to := &Timeout{timer: tm, id: uint64(i), task: noop, deadline: time.Duration(tm.tick) * tm.tickDur}
		if err := tm.enqueue(to); err != nil {
			b.Fatal(err)
		}
		if i++; i%perTick == 0 {
			tm.processTick(time.Duration(tm.tick+1) * tm.tickDur)
		}
	}
}
