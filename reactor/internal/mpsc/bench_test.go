package mpsc_test

import (
	"runtime"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/internal/mpsc"
)

// task has the shape of what an event loop queues.
type task struct {
	// run is never called: the benchmarks measure the queue, not the task.
	run  func()
	name string
	id   uint64
}

func noop() {}

// BenchmarkOfferPoll is the cost of one hand-over with no contention.
func BenchmarkOfferPoll(b *testing.B) {
	q := mpsc.New[task](0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Offer(task{run: noop, name: "t", id: uint64(i)})
		q.Poll()
	}
}

// BenchmarkOfferContended has GOMAXPROCS goroutines offering while one
// consumer polls, the load of a busy worker loop.
func BenchmarkOfferContended(b *testing.B) {
	benchContended(b, 0)
}

// BenchmarkOfferContendedBounded is the same with a bound, so producers claim
// with a compare-and-swap instead of an add.
func BenchmarkOfferContendedBounded(b *testing.B) {
	benchContended(b, 1<<16)
}

func benchContended(b *testing.B, capacity int) {
	q := mpsc.New[task](capacity)
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		defer close(done)
		for n := 0; n < b.N; {
			if _, ok := q.Poll(); ok {
				n++
			} else {
				runtime.Gosched()
			}
		}
	}()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for !q.Offer(task{run: noop, name: "t"}) {
				runtime.Gosched()
			}
		}
	})
	<-done
}

// BenchmarkChannelContended is the same load through a buffered channel, for
// comparison.
func BenchmarkChannelContended(b *testing.B) {
	ch := make(chan task, 1<<16)
	done := make(chan struct{})
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		defer close(done)
		for range b.N {
			<-ch
		}
	}()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			ch <- task{run: noop, name: "t"}
		}
	})
	<-done
}
