package model

import "slices"

// Bounds of the per-loop mirrors. The engine's queue and heap are unbounded;
// the mirrors keep only what the UI can show and count the rest.
const (
	// QueueMirrorCap is how many submitted-not-yet-run tasks are kept by
	// name. The UI shows a handful; the rest are counted in Hidden.
	QueueMirrorCap = 256
	// TimerMirrorCap is how many scheduled tasks are kept by id. When more
	// are pending, the latest deadlines are forgotten first: the UI shows
	// the earliest ones, and the next deadline stays exact.
	TimerMirrorCap = 4096
	// HistoryLen is the number of queue-depth samples kept per loop.
	HistoryLen = 64
	// HistoryBucket is the time one history sample covers, in event time.
	HistoryBucket int64 = 100e6 // 100 ms
	// runScan is how far down the queue mirror a task_run looks for its
	// task when it is not at the head (events lost to a full ring).
	runScan = 16
)

// TaskRef names one task in the queue mirror.
type TaskRef struct {
	ID    int64 // the queue's task id, which task_run reports
	Name  string
	Timer bool // moved over from the scheduled heap (timer_due)
	// External says another thread submitted it; Producer is 1 + that
	// thread's loop index, 0 when it is no loop (task_submit's producer).
	External bool
	Producer int64
	From     string // the producer's name, set in a snapshot: a loop, "self" or "outside"
}

// taskQueue mirrors the head of a loop's MPSC task queue from task_submit,
// timer_due and task_run events. It is a FIFO like the queue it mirrors.
// Past QueueMirrorCap it keeps the tasks behind the head as runs of
// consecutive ids of one name, as a flood submits them, and feeds them to
// the head as the kept ones run, so a flood thousands deep still shows
// its head; what no run describes is only counted.
type taskQueue struct {
	buf    []TaskRef // ring, grows up to QueueMirrorCap
	head   int
	n      int
	hidden int64       // tasks known to be queued but not kept one by one
	runs   []hiddenRun // the oldest of them, in order; inRuns in all
	inRuns int64
}

// hiddenRun is a stretch of queued tasks the mirror holds as a range:
// n tasks like first, with consecutive ids from first's.
type hiddenRun struct {
	first TaskRef
	n     int64
}

// hiddenRunCap bounds the runs kept: a queue fed by many producers in
// turn makes a run per task, and the rest is counted.
const hiddenRunCap = 64

func (q *taskQueue) at(i int) TaskRef { return q.buf[(q.head+i)%len(q.buf)] }

func (q *taskQueue) push(t TaskRef) {
	if q.hidden > 0 || q.n == QueueMirrorCap {
		q.hide(t)
		return
	}
	q.keep(t)
}

func (q *taskQueue) keep(t TaskRef) {
	if q.n == len(q.buf) {
		grown := make([]TaskRef, min(max(2*len(q.buf), 8), QueueMirrorCap))
		for i := range q.n {
			grown[i] = q.at(i)
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = t
	q.n++
}

// hide counts t behind the kept head, in a run when every hidden task
// before it is in one (FIFO order allows no other).
func (q *taskQueue) hide(t TaskRef) {
	q.hidden++
	if q.hidden-1 != q.inRuns {
		return
	}
	if k := len(q.runs) - 1; k >= 0 && q.runs[k].extends(t) {
		q.runs[k].n++
		q.inRuns++
		return
	}
	if len(q.runs) < hiddenRunCap {
		q.runs = append(q.runs, hiddenRun{first: t, n: 1})
		q.inRuns++
	}
}

// extends reports whether t is the task after the run's last: like them,
// with the next id.
func (r *hiddenRun) extends(t TaskRef) bool {
	next := r.first
	next.ID += r.n
	return next == t
}

// refill moves hidden tasks from the runs to the kept head while there is
// room.
func (q *taskQueue) refill() {
	for q.n < QueueMirrorCap && len(q.runs) > 0 {
		r := &q.runs[0]
		q.keep(r.first)
		r.first.ID++
		r.n--
		q.hidden--
		q.inRuns--
		if r.n == 0 {
			q.runs = q.runs[1:]
		}
	}
	if len(q.runs) == 0 {
		q.runs = nil
	}
}

func (q *taskQueue) popFront(k int) {
	for range k {
		q.buf[q.head] = TaskRef{} // let the name go
		q.head = (q.head + 1) % len(q.buf)
		q.n--
	}
	if q.n == 0 {
		q.head = 0
	}
}

// run removes the task that just ran and reports whether it was a queued
// one. Tail tasks run too but were never queued, so an id that is not found
// leaves the mirror alone. When the task is found below the head, the tasks
// above it ran without their events (a full ring) and go as well.
func (q *taskQueue) run(id int64, name string, byIDOnly bool) bool {
	for i := range min(q.n, runScan) {
		t := q.at(i)
		if t.ID == id && (byIDOnly || t.Name == name) {
			q.popFront(i + 1)
			q.refill()
			return true
		}
	}
	if q.n == 0 && q.hidden > q.inRuns {
		q.hidden--
		return true
	}
	return false
}

// resync trusts the engine's own count (tasks_begin.queued) over the mirror:
// extra mirrored tasks ran unseen, missing ones were submitted unseen.
func (q *taskQueue) resync(depth int64) {
	total := int64(q.n) + q.hidden
	switch {
	case total > depth:
		extra := total - depth
		cut := min(extra, q.hidden)
		q.hidden -= cut
		q.trimRuns()
		q.popFront(int(min(extra-cut, int64(q.n))))
	case total < depth:
		q.hidden += depth - total
	}
}

// trimRuns drops the newest runs' tasks the hidden count no longer has.
func (q *taskQueue) trimRuns() {
	for q.inRuns > q.hidden {
		k := len(q.runs) - 1
		cut := min(q.runs[k].n, q.inRuns-q.hidden)
		q.runs[k].n -= cut
		q.inRuns -= cut
		if q.runs[k].n == 0 {
			q.runs = q.runs[:k]
		}
	}
}

func (q *taskQueue) first(n int) []TaskRef {
	out := make([]TaskRef, 0, min(n, q.n))
	for i := range min(n, q.n) {
		out = append(out, q.at(i))
	}
	return out
}

func (q *taskQueue) clone() taskQueue {
	c := taskQueue{hidden: q.hidden, n: q.n, inRuns: q.inRuns, runs: slices.Clone(q.runs)}
	if q.n > 0 {
		c.buf = q.first(q.n)
	}
	return c
}

// TimerRef is one scheduled task in the heap mirror.
type TimerRef struct {
	ID       int64
	Name     string
	Deadline int64 // ns on the run's clock
	Period   int64 // >0 fixed rate, <0 fixed delay, 0 one-shot
}

// timerSet mirrors a loop's scheduled-task heap from timer_schedule,
// timer_due and timer_cancel events. Two heaps over (deadline, id) find the
// earliest timer (the next deadline) and the latest (the one to forget when
// the mirror is full) in O(log n); entries removed from the map stay in the
// heaps until they surface, and the heaps are rebuilt when stale entries
// outnumber live ones, which keeps them bounded too.
type timerSet struct {
	byID      map[int64]TimerRef
	untracked int64 // pending timers forgotten because the mirror was full
	early     keyHeap
	late      keyHeap
}

type timerKey struct{ deadline, id int64 }

func (k timerKey) before(o timerKey) bool {
	return k.deadline < o.deadline || (k.deadline == o.deadline && k.id < o.id)
}

func (s *timerSet) count() int64 { return int64(len(s.byID)) + s.untracked }

// live reports whether a heap entry still describes a pending timer.
func (s *timerSet) live(k timerKey) bool {
	t, ok := s.byID[k.id]
	return ok && t.Deadline == k.deadline
}

func (s *timerSet) add(t TimerRef) {
	if s.byID == nil {
		s.byID = make(map[int64]TimerRef)
	}
	k := timerKey{t.Deadline, t.ID}
	if _, ok := s.byID[t.ID]; !ok && len(s.byID) >= TimerMirrorCap {
		s.untracked++
		latest, _ := s.peek(&s.late)
		if latest.before(k) {
			return
		}
		// Forget the latest pending timer to keep this earlier one.
		delete(s.byID, latest.id)
	}
	s.byID[t.ID] = t
	s.early.push(k, false)
	s.late.push(k, true)
	s.compact()
}

func (s *timerSet) remove(id int64) {
	if _, ok := s.byID[id]; !ok {
		if s.untracked > 0 {
			s.untracked--
		}
		return
	}
	delete(s.byID, id)
	s.compact()
}

// peek drops stale entries from the top of h and returns the live one.
func (s *timerSet) peek(h *keyHeap) (timerKey, bool) {
	for len(h.a) > 0 {
		if k := h.a[0]; s.live(k) {
			return k, true
		}
		h.pop()
	}
	return timerKey{}, false
}

// compact rebuilds the heaps from the map when most entries are stale.
func (s *timerSet) compact() {
	if len(s.early.a) <= 2*len(s.byID)+64 {
		return
	}
	s.early.a, s.late.a = s.early.a[:0], s.late.a[:0]
	for _, t := range s.byID {
		k := timerKey{t.Deadline, t.ID}
		s.early.push(k, false)
		s.late.push(k, true)
	}
}

// nextDeadline returns the earliest deadline the mirror knows.
func (s *timerSet) nextDeadline() (int64, bool) {
	k, ok := s.peek(&s.early)
	return k.deadline, ok
}

// top returns the n earliest timers in heap order (deadline, id).
func (s *timerSet) top(n int) []TimerRef {
	if n <= 0 || len(s.byID) == 0 {
		return nil
	}
	out := make([]TimerRef, 0, min(n, len(s.byID)))
	for _, t := range s.byID {
		k := timerKey{t.Deadline, t.ID}
		// Insertion into a short sorted slice: n is a handful.
		i := len(out)
		for i > 0 && k.before(timerKey{out[i-1].Deadline, out[i-1].ID}) {
			i--
		}
		if i >= n {
			continue
		}
		out = slices.Insert(out, i, t)
		if len(out) > n {
			out = out[:n]
		}
	}
	return out
}

func (s *timerSet) clone() timerSet {
	c := timerSet{untracked: s.untracked}
	if len(s.byID) > 0 {
		// Not maps.Clone: it keeps the source's table size, and a
		// replay's checkpoints hold many clones of a map that grew and
		// shrank (BenchmarkReplayBuild: +20 % memory).
		c.byID = make(map[int64]TimerRef, len(s.byID))
		for k, v := range s.byID {
			c.byID[k] = v
		}
		c.early.a = slices.Clone(s.early.a)
		c.late.a = slices.Clone(s.late.a)
		c.early.max, c.late.max = s.early.max, s.late.max
	}
	return c
}

// keyHeap is a binary heap of timer keys: a min-heap, or a max-heap when
// max is set (fixed by the first push).
type keyHeap struct {
	a   []timerKey
	max bool
}

func (h *keyHeap) less(i, j int) bool {
	if h.max {
		return h.a[j].before(h.a[i])
	}
	return h.a[i].before(h.a[j])
}

func (h *keyHeap) push(k timerKey, isMax bool) {
	h.max = isMax
	h.a = append(h.a, k)
	for i := len(h.a) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.a[i], h.a[p] = h.a[p], h.a[i]
		i = p
	}
}

func (h *keyHeap) pop() {
	n := len(h.a) - 1
	h.a[0] = h.a[n]
	h.a = h.a[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
}

// history keeps the largest queue depth seen in each HistoryBucket of
// event time, for the sparkline. A loop that emits nothing keeps its last
// depth: history.upTo pads the gap when a snapshot is taken.
type history struct {
	samples [HistoryLen]int64
	n       int   // samples filled, up to HistoryLen
	bucket  int64 // bucket of the newest sample
	last    int64 // the current depth
}

func (h *history) note(t, depth int64) {
	b := t / HistoryBucket
	switch {
	case h.n == 0:
		h.bucket, h.n = b, 1
		h.samples[0] = depth
	case b > h.bucket:
		h.advance(b)
	}
	i := (h.n - 1) % HistoryLen
	h.samples[i] = max(h.samples[i], depth)
	h.last = depth
}

// advance opens buckets up to b, each starting at the current depth.
func (h *history) advance(b int64) {
	gap := min(b-h.bucket, HistoryLen)
	for range gap {
		h.samples[h.n%HistoryLen] = h.last
		h.n++
	}
	h.bucket = b
	// Keep n bounded without losing the ring position.
	if h.n >= 2*HistoryLen {
		h.n -= HistoryLen
	}
}

// upTo returns the samples, oldest first, padded to time t.
func (h *history) upTo(t int64) []int64 {
	if h.n == 0 {
		return nil
	}
	c := *h
	if b := t / HistoryBucket; b > c.bucket {
		c.advance(b)
	}
	k := min(c.n, HistoryLen)
	out := make([]int64, k)
	for i := range k {
		out[i] = c.samples[(c.n-k+i)%HistoryLen]
	}
	return out
}
