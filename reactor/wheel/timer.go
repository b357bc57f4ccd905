package wheel

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// Worker states, numbered as Netty's WORKER_STATE_* constants.
const (
	workerInit     int32 = 0
	workerStarted  int32 = 1
	workerShutdown int32 = 2
)

// Timer is a hashed wheel timer with its own thread. Its methods are safe
// from any goroutine.
type Timer struct {
	name       string
	tickDur    time.Duration
	mask       int64
	wheel      []bucket
	maxPending int64
	clock      Clock
	tr         *tracer
	onError    func(error)

	state     atomic.Int32
	launched  atomic.Bool
	started   chan struct{} // closed once startTime is set
	wake      chan struct{} // closed by Stop to cut the sleep short
	done      chan struct{} // closed when the wheel thread has exited
	startTime time.Duration // written before started is closed, then read-only
	tid       atomic.Int64

	timeouts  queue  // new timeouts on their way into the slots
	cancelled queue  // cancelled timeouts waiting to be unlinked
	nextID    uint64 // guarded by timeouts.mu

	// Owned by the wheel thread.
	tick        int64
	batch       []*Timeout
	unprocessed []*Timeout // handed to Stop once done is closed

	// Published for Snapshot and Stats.
	ticks      atomic.Int64
	pending    atomic.Int64
	expiredN   atomic.Uint64
	cancelledN atomic.Uint64
	panics     atomic.Uint64
}

// New returns a timer whose thread starts on the first NewTimeout.
func New(cfg Config, opts ...Option) (*Timer, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return &Timer{
		name:       cfg.Name,
		tickDur:    cfg.Tick,
		mask:       int64(cfg.TicksPerWheel - 1),
		wheel:      make([]bucket, cfg.TicksPerWheel),
		maxPending: int64(max(cfg.MaxPending, 0)),
		clock:      o.clock,
		tr:         o.tr,
		onError:    o.onError,
		started:    make(chan struct{}),
		wake:       make(chan struct{}),
		done:       make(chan struct{}),
	}, nil
}

// Name returns the timer's name.
func (t *Timer) Name() string { return t.name }

// TickDuration returns the tick after defaults and the 1 ms floor.
func (t *Timer) TickDuration() time.Duration { return t.tickDur }

// TID returns the Linux thread id of the wheel thread, or 0 before it starts.
func (t *Timer) TID() int { return int(t.tid.Load()) }

// NewTimeout schedules task to run once on the wheel thread after delay,
// starting the thread if this is the first timeout. A delay of zero or less
// fires at the end of the current tick. name labels the timeout in traces.
func (t *Timer) NewTimeout(name string, delay time.Duration, task func()) (*Timeout, error) {
	if task == nil {
		return nil, ErrNilTask
	}
	if err := t.start(); err != nil {
		return nil, err
	}
	to := &Timeout{timer: t, name: name, task: task, deadline: t.deadline(delay)}
	if err := t.enqueue(to); err != nil {
		return nil, err
	}
	return to, nil
}

// deadline is Netty's nanoTime + delay − startTime, saturating at the
// largest duration instead of wrapping.
func (t *Timer) deadline(delay time.Duration) time.Duration {
	d := t.clock.Now() - t.startTime + delay
	if delay > 0 && d < 0 {
		return math.MaxInt64
	}
	return d
}

// enqueue numbers the timeout, counts it as pending and queues it for the
// wheel thread. Under the queue's lock, ids follow queue order without gaps,
// concurrent callers never overshoot the limit, and a closed queue (the
// thread has exited) rejects the timeout.
func (t *Timer) enqueue(to *Timeout) error {
	q := &t.timeouts
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return fmt.Errorf("%w: %s", ErrStopped, t.name)
	}
	if n := t.pending.Load(); t.maxPending > 0 && n >= t.maxPending {
		return fmt.Errorf("%w: %s has %d pending, limit %d", ErrTooManyPending, t.name, n, t.maxPending)
	}
	t.nextID++
	to.id = t.nextID
	t.pending.Add(1)
	q.items = append(q.items, to)
	return nil
}

// start launches the wheel thread once and waits until its start time is
// set, so every deadline is measured from it (Netty's startTimeInitialized).
func (t *Timer) start() error {
	for {
		switch t.state.Load() {
		case workerInit:
			if !t.state.CompareAndSwap(workerInit, workerStarted) {
				continue // lost to another start or to Stop: look again
			}
			t.launched.Store(true)
			go t.run()
		case workerShutdown:
			return fmt.Errorf("%w: %s", ErrStopped, t.name)
		}
		<-t.started
		return nil
	}
}

// Stop ends the wheel thread, waits for it to exit and returns the timeouts
// it never fired, cancelled (Netty 4.1.111, #14083), in id order. Timeouts
// already cancelled are not returned. Calling Stop again returns nothing.
// Stop from a timer task returns ErrStopFromTask.
func (t *Timer) Stop() ([]*Timeout, error) {
	if t.onWheelThread() {
		return nil, fmt.Errorf("%w: %s", ErrStopFromTask, t.name)
	}
	for {
		switch t.state.Load() {
		case workerInit:
			if t.state.CompareAndSwap(workerInit, workerShutdown) {
				return nil, nil
			}
		case workerStarted:
			if t.state.CompareAndSwap(workerStarted, workerShutdown) {
				return t.join(), nil
			}
		case workerShutdown:
			if t.launched.Load() {
				<-t.done // a concurrent Stop is joining; return once it has
			}
			return nil, nil
		}
	}
}

// onWheelThread reports whether the caller is the wheel thread. The thread
// is locked to its goroutine, so its tid identifies it while it lives; the
// tid is read before done is checked so a reused tid cannot match.
func (t *Timer) onWheelThread() bool {
	me := int64(gettid())
	if me != t.tid.Load() {
		return false
	}
	select {
	case <-t.done:
		return false
	default:
		return true
	}
}

// join interrupts the wheel thread's sleep, as Netty interrupts its worker,
// and waits for it to hand over the unprocessed timeouts.
func (t *Timer) join() []*Timeout {
	close(t.wake)
	<-t.done
	left := t.unprocessed
	t.unprocessed = nil
	for _, to := range left {
		to.Cancel()
	}
	return left
}

// Stats are the timer's running totals.
type Stats struct {
	Ticks     int64  // ticks processed
	Pending   int64  // timeouts neither expired nor unlinked after cancellation
	Expired   uint64 // timeouts fired
	Cancelled uint64 // successful Cancel calls, including those Stop made
	Panics    uint64 // tasks that panicked
}

// Stats returns the running totals.
func (t *Timer) Stats() Stats {
	return Stats{
		Ticks:     t.ticks.Load(),
		Pending:   t.pending.Load(),
		Expired:   t.expiredN.Load(),
		Cancelled: t.cancelledN.Load(),
		Panics:    t.panics.Load(),
	}
}

// Snapshot is the wheel as the TUI draws it: a ring of slots and a cursor.
type Snapshot struct {
	Tick         int64         // ticks processed; the next tick to expire
	Cursor       int           // Tick & mask: the slot the next tick expires
	Slots        []int         // timeouts linked in each slot (a cancelled one until the next tick); len = wheel length
	Pending      int64         // as Stats.Pending
	Queued       int           // timeouts not yet moved into a slot
	TickDuration time.Duration // after defaults and the 1 ms floor
}

// Snapshot reads the wheel from any goroutine without stopping it. Each
// value is read atomically, but taken while the thread is mid-tick the
// values may come from slightly different moments.
func (t *Timer) Snapshot() Snapshot {
	tick := t.ticks.Load()
	s := Snapshot{
		Tick:         tick,
		Cursor:       int(tick & t.mask),
		Slots:        make([]int, len(t.wheel)),
		Pending:      t.pending.Load(),
		Queued:       t.timeouts.len(),
		TickDuration: t.tickDur,
	}
	for i := range t.wheel {
		s.Slots[i] = int(t.wheel[i].n.Load())
	}
	return s
}

// sortByID orders timeouts for a deterministic Stop result.
func sortByID(tos []*Timeout) {
	slices.SortFunc(tos, func(a, b *Timeout) int { return cmp.Compare(a.id, b.id) })
}
