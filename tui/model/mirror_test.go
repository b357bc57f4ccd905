package model

import "testing"

// A flood deeper than the mirror keeps its head: the tasks behind the
// kept ones are held as runs of consecutive ids and move up as the head
// runs, so after 300 of 1000 have run the head is the 301st, named.
func TestQueueMirrorKeepsAFloodsHead(t *testing.T) {
	var q taskQueue
	for id := int64(1); id <= 1000; id++ {
		q.push(TaskRef{ID: id, Name: "flood"})
	}
	if q.n != QueueMirrorCap || q.hidden != 1000-QueueMirrorCap || len(q.runs) != 1 {
		t.Fatalf("kept %d, hidden %d in %d runs", q.n, q.hidden, len(q.runs))
	}
	for id := int64(1); id <= 300; id++ {
		if !q.run(id, "flood", false) {
			t.Fatalf("task %d not found", id)
		}
	}
	head := q.first(2)
	if len(head) != 2 || head[0].ID != 301 || head[1].ID != 302 || int64(q.n)+q.hidden != 700 {
		t.Fatalf("head %+v, kept %d, hidden %d; want 301, 302 and 700 in all", head, q.n, q.hidden)
	}
	// Another producer's task between flood tasks starts a run of its own,
	// and keeps its place in line.
	q.push(TaskRef{ID: 5000, Name: "other"})
	q.push(TaskRef{ID: 1001, Name: "flood"})
	for id := int64(301); id <= 1000; id++ {
		q.run(id, "flood", false)
	}
	if head := q.first(2); len(head) != 2 || head[0].ID != 5000 || head[1].ID != 1001 {
		t.Fatalf("head %+v; want 5000 then 1001", head)
	}
}
