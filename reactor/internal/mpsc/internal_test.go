package mpsc

import (
	"math/rand/v2"
	"testing"
)

// TestPublishOutOfOrder claims indices spanning several chunks and publishes
// them in a shuffled order, as producers preempted between claim and publish
// would. The first publish past the tail links the missing chunks; earlier
// indices then walk back along prev links. The consumer must still see
// index order.
func TestPublishOutOfOrder(t *testing.T) {
	const n = 5*chunkSize + 7
	q := New[int64](0)
	idxs := make([]int64, n)
	for i := range idxs {
		idx, ok := q.claim()
		if !ok {
			t.Fatalf("claim %d refused", i)
		}
		idxs[i] = idx
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { idxs[i], idxs[j] = idxs[j], idxs[i] })
	for _, idx := range idxs {
		q.publish(idx, idx)
	}
	for want := range int64(n) {
		if v, ok := q.Poll(); !ok || v != want {
			t.Fatalf("Poll = %d, %v; want %d, true", v, ok, want)
		}
	}
	if !q.IsEmpty() {
		t.Fatal("queue not empty after draining")
	}
}

// TestConsumedChunkIsReused checks the recycling path directly: the chunk
// the consumer leaves becomes the spare and is the next chunk linked.
func TestConsumedChunkIsReused(t *testing.T) {
	q := New[int](0)
	first := q.head
	for i := range chunkSize + 1 {
		q.Offer(i)
	}
	for range chunkSize + 1 {
		q.Poll()
	}
	if q.spare.Load() != first {
		t.Fatal("the chunk the consumer left was not kept as the spare")
	}
	if first.index.Load() != recycled || first.prev.Load() != nil || first.next.Load() != nil {
		t.Fatal("recycled chunk still carries its index or links")
	}
	for i := range chunkSize {
		q.Offer(i)
	}
	if q.tail.Load() != first || first.index.Load() != 2 {
		t.Fatalf("chunk 2 was not the recycled chunk")
	}
}
