package mpsc_test

import (
	"runtime"
	"sync"
	"testing"
	"weak"

	"github.com/reactorviz/reactorviz/reactor/internal/mpsc"
)

// item identifies one offer: which producer made it and its position in
// that producer's sequence.
type item struct {
	producer int
	seq      int
}

func TestPollEmpty(t *testing.T) {
	q := mpsc.New[int](0)
	if v, ok := q.Poll(); ok || v != 0 {
		t.Fatalf("Poll on empty queue = %d, %v; want 0, false", v, ok)
	}
	if v, ok := q.Peek(); ok || v != 0 {
		t.Fatalf("Peek on empty queue = %d, %v; want 0, false", v, ok)
	}
	if !q.IsEmpty() || q.Len() != 0 {
		t.Fatalf("new queue: IsEmpty %v, Len %d; want true, 0", q.IsEmpty(), q.Len())
	}
}

func TestLenIsEmptyAndPeekTrackContents(t *testing.T) {
	q := mpsc.New[string](0)
	for i, s := range []string{"a", "b", "c"} {
		q.Offer(s)
		if q.Len() != i+1 || q.IsEmpty() {
			t.Fatalf("after %d offers: Len %d, IsEmpty %v", i+1, q.Len(), q.IsEmpty())
		}
	}
	if v, ok := q.Peek(); !ok || v != "a" {
		t.Fatalf("Peek = %q, %v; want a, true", v, ok)
	}
	if q.Len() != 3 {
		t.Fatalf("Peek removed an element: Len %d", q.Len())
	}
	for _, want := range []string{"a", "b", "c"} {
		if v, ok := q.Poll(); !ok || v != want {
			t.Fatalf("Poll = %q, %v; want %q, true", v, ok, want)
		}
	}
	if !q.IsEmpty() || q.Len() != 0 {
		t.Fatalf("drained queue: IsEmpty %v, Len %d; want true, 0", q.IsEmpty(), q.Len())
	}
}

// TestChunkBoundaries keeps the queue at several depths while many chunks
// go by, so the consumer crosses chunk ends with elements both behind and
// ahead of it, and consumed chunks are recycled for later ones.
func TestChunkBoundaries(t *testing.T) {
	for _, depth := range []int{1, 2, 1023, 1024, 1025, 3000} {
		q := mpsc.New[int](0)
		next, want := 0, 0
		for range depth {
			q.Offer(next)
			next++
		}
		for range 5 * 1024 {
			q.Offer(next)
			next++
			if v, ok := q.Poll(); !ok || v != want {
				t.Fatalf("depth %d: Poll = %d, %v; want %d, true", depth, v, ok, want)
			}
			want++
			if q.Len() != depth {
				t.Fatalf("depth %d: Len %d after element %d", depth, q.Len(), want)
			}
		}
		for want < next {
			if v, ok := q.Poll(); !ok || v != want {
				t.Fatalf("depth %d: drain Poll = %d, %v; want %d, true", depth, v, ok, want)
			}
			want++
		}
		if !q.IsEmpty() {
			t.Fatalf("depth %d: not empty after draining", depth)
		}
	}
}

func TestBoundedRejectsExactlyWhenFull(t *testing.T) {
	for _, capacity := range []int{1, 5, 1024, 1500, 3000} {
		q := mpsc.New[int](capacity)
		if q.Cap() != capacity {
			t.Fatalf("Cap = %d; want %d", q.Cap(), capacity)
		}
		for i := range capacity {
			if !q.Offer(i) {
				t.Fatalf("cap %d: Offer %d refused before full", capacity, i)
			}
		}
		if q.Offer(-1) {
			t.Fatalf("cap %d: Offer accepted on a full queue", capacity)
		}
		if q.Len() != capacity {
			t.Fatalf("cap %d: Len %d; want %d", capacity, q.Len(), capacity)
		}
		// Each poll frees exactly one place, across chunk ends too.
		for i := range 2 * capacity {
			if v, ok := q.Poll(); !ok || v != i {
				t.Fatalf("cap %d: Poll = %d, %v; want %d, true", capacity, v, ok, i)
			}
			if !q.Offer(capacity + i) {
				t.Fatalf("cap %d: Offer refused after a poll", capacity)
			}
			if q.Offer(-1) {
				t.Fatalf("cap %d: Offer accepted beyond capacity", capacity)
			}
		}
	}
}

func TestNegativeCapacityIsUnbounded(t *testing.T) {
	q := mpsc.New[int](-5)
	if q.Cap() != 0 {
		t.Fatalf("Cap = %d; want 0", q.Cap())
	}
	for i := range 5000 {
		if !q.Offer(i) {
			t.Fatalf("Offer %d refused by an unbounded queue", i)
		}
	}
}

// TestManyProducersKeepOrder checks the queue's two promises under
// contention: every element arrives exactly once, and each producer's
// elements arrive in the order it offered them.
func TestManyProducersKeepOrder(t *testing.T) {
	const producers, perProducer = 4, 100_000
	for _, capacity := range []int{0, 2048} {
		q := mpsc.New[item](capacity)
		var wg sync.WaitGroup
		for p := range producers {
			wg.Go(func() {
				for i := 0; i < perProducer; {
					if q.Offer(item{producer: p, seq: i}) {
						i++
					} else {
						runtime.Gosched() // bounded and full: let the consumer catch up
					}
				}
			})
		}
		next := make([]int, producers)
		for received := 0; received < producers*perProducer; {
			it, ok := q.Poll()
			if !ok {
				runtime.Gosched()
				continue
			}
			if it.seq != next[it.producer] {
				t.Fatalf("cap %d: producer %d: got seq %d, want %d", capacity, it.producer, it.seq, next[it.producer])
			}
			next[it.producer]++
			received++
		}
		wg.Wait()
		if v, ok := q.Poll(); ok {
			t.Fatalf("cap %d: extra element %+v after all were received", capacity, v)
		}
	}
}

// TestConcurrentObservers runs producers, the consumer, and goroutines
// calling Len and IsEmpty together. Len must stay within the bound, and
// whenever IsEmpty reports false to the consumer, Poll must succeed.
func TestConcurrentObservers(t *testing.T) {
	const producers, perProducer, capacity = 3, 20_000, 100
	q := mpsc.New[int](capacity)
	done := make(chan struct{})
	var observers sync.WaitGroup
	var lenErr int
	observers.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if n := q.Len(); n < 0 || n > capacity {
				lenErr = n
			}
			_ = q.IsEmpty()
			runtime.Gosched() // with one P, a busy observer would starve the others for a time slice
		}
	})

	var wg sync.WaitGroup
	for range producers {
		wg.Go(func() {
			for i := 0; i < perProducer; {
				if q.Offer(i) {
					i++
				} else {
					runtime.Gosched()
				}
			}
		})
	}
	for received := 0; received < producers*perProducer; {
		if q.IsEmpty() {
			runtime.Gosched()
			continue
		}
		if _, ok := q.Poll(); !ok {
			t.Fatal("Poll failed right after IsEmpty reported false")
		}
		received++
	}
	wg.Wait()
	close(done)
	observers.Wait()
	if lenErr != 0 {
		t.Fatalf("Len reported %d, outside [0, %d]", lenErr, capacity)
	}
}

// TestOfferVisibleToLaterIsEmpty is the event loop's wakeup handshake: a
// producer offers and then signals; whoever receives the signal must see a
// non-empty queue until the element is polled.
func TestOfferVisibleToLaterIsEmpty(t *testing.T) {
	const rounds = 2000
	q := mpsc.New[int](0)
	offered := make(chan int)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range rounds {
			q.Offer(i)
			offered <- i
		}
		close(offered)
	})
	for i := range offered {
		if q.IsEmpty() {
			t.Fatalf("round %d: IsEmpty true after Offer returned", i)
		}
		if v, ok := q.Poll(); !ok || v != i {
			t.Fatalf("round %d: Poll = %d, %v", i, v, ok)
		}
	}
	wg.Wait()
}

// TestPolledSlotReleasesReference checks that a polled element is not kept
// alive by the queue, so a task's captured state can be collected.
func TestPolledSlotReleasesReference(t *testing.T) {
	q := mpsc.New[*[1 << 10]byte](0)
	ref := offerAndPoll(q, func() *[1 << 10]byte { return new([1 << 10]byte) })
	runtime.GC()
	if ref.Value() != nil {
		t.Fatal("polled element still reachable from the queue")
	}
	runtime.KeepAlive(q)
}

// offerAndPoll offers a fresh element, polls it back and returns only a weak
// pointer to it, so no strong reference outlives the call.
//
//go:noinline
func offerAndPoll[T any](q *mpsc.Queue[*T], mk func() *T) weak.Pointer[T] {
	v := mk()
	ref := weak.Make(v)
	q.Offer(v)
	q.Poll()
	return ref
}

// TestSteadyStateDoesNotAllocate checks that consumed chunks are reused: a
// queue whose depth stays bounded crosses chunk after chunk without
// allocating.
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	q := mpsc.New[int](0)
	cycle := func() {
		for i := range 2048 {
			q.Offer(i)
			q.Poll()
		}
	}
	cycle() // warm up: the first crossing allocates the chunk that is then reused
	if n := testing.AllocsPerRun(20, cycle); n != 0 {
		t.Fatalf("%v allocations per 2048 offers; want 0", n)
	}
}
