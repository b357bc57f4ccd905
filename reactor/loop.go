package reactor

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	unix "github.com/reactorviz/reactorviz/reactor/internal/sys"

	"github.com/reactorviz/reactorviz/reactor/internal/mpsc"
	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// ErrRejected is returned for work offered to a loop that has shut down or
// whose bounded task queue is full (Netty's RejectedExecutionException).
var ErrRejected = errors.New("task rejected")

// task is one unit of work on a loop's queue. A task with a nil fn is
// Netty's WAKEUP_TASK marker: it only makes hasTasks true, and pollTask
// skips it.
type task struct {
	fn   func()
	name string
	id   uint64
}

// EventLoop is one thread with one selector (an epoll instance), serving the
// channels registered with it for life and running the tasks handed to it.
//
// Its fields are grouped by who may touch them, the rule Netty keeps by
// convention (SingleThreadEventExecutor's inEventLoop asserts):
//
//   - fixed: set by NewEventLoop before the loop is shared, then only read,
//     by any goroutine.
//   - shared: read or written by goroutines other than the loop's, each
//     field made for it (an atomic, a lock, a many-producer queue).
//   - owned: the loop thread's alone. NewEventLoop may set them up (the go
//     statement that starts the thread orders those writes before the
//     thread's reads); after that, other goroutines reach them only through
//     a task run on the loop.
type EventLoop struct {
	fixed
	shared
	owned
}

// fixed is what NewEventLoop sets and nothing changes after.
type fixed struct {
	name  string
	group string
	cfg   Config

	tasks      *mpsc.Queue[task]
	tailTasks  *mpsc.Queue[task]
	wakeFD     int        // producers write it to wake the loop; closed after the last one left
	design     loopDesign // what differs per Flavour (flavour.go); producers call its wake
	terminated chan struct{}

	ring    *trace.Ring
	sw      *trace.Switch
	clock   *trace.Clock
	coll    *trace.Collector
	loopIdx uint16
	nowFn   func() int64

	// beforeRecord, when set (tests only, before the loop is shared),
	// runs on a producer between its wakeup's action (the eventfd write
	// or not) and its record of it.
	beforeRecord func()
}

// shared is what other goroutines read or write while the loop runs.
type shared struct {
	state    atomic.Int32 // trace.State
	launched atomic.Bool  // the loop goroutine was started
	tid      atomic.Int32
	ioRatio  atomic.Int32

	quietNanos   atomic.Int64
	timeoutNanos atomic.Int64
	fatalErr     atomic.Pointer[error]

	gate  gate
	stats counters
	split timeSplit

	// idleCycles and busyCycles are the windows in a row an auto-scaling
	// group's monitor found the loop idle or busy; every start resets them.
	idleCycles atomic.Int32
	busyCycles atomic.Int32

	producers
}

// producers are the atomics every submission from another goroutine
// writes. They sit on cache lines of their own, so a burst of Execute calls
// does not keep taking from the loop thread the lines it reads and writes
// on every iteration (its counters, its owned state). The loop writes
// wakenUp and nextWakeup too, once per select: that is the handshake.
type producers struct {
	_ cpu.CacheLinePad

	inflight atomic.Int64  // producers between enter and exit
	taskIDs  atomic.Uint64 // the last task id handed out
	wakenUp  atomic.Bool   // Netty ≤4.1.43's wakenUp: a wakeup is already pending
	woken    atomic.Bool   // the selector's own latch, like the JDK's interruptTriggered

	// nextWakeup is nextWakeupNanos of Netty 4.1.44+ and 4.2's epoll
	// handler: AWAKE, NONE or the deadline a sleeping loop blocks until.
	nextWakeup atomic.Int64

	_ cpu.CacheLinePad
}

// owned belongs to the loop thread.
type owned struct {
	poller    *poll.Poller
	events    []poll.Event
	selected  []selectedKey
	chans     []*Channel // indexed by fd
	scheduled schedHeap
	schedSeq  uint64
	readBuf   []byte
	scratch   []byte // shared output buffer, lent to one channel at a time
	injected  []int  // fault fds living only in the current epoll instance
	lastExec  int64
	lastYield int64         // when yieldIfDue last yielded
	seenState trace.State   // the last state the loop thread reported
	uring     *uringHandler // the io_uring handler, or nil on epoll
	// selectCnt and interrupted are run()'s own in Netty 4.1.44+.
	selectCnt   int64
	interrupted bool
	// iterationBegun marks the first phase event of an iteration (a
	// select_begin, or a tasks_begin when 4.1 skipped the select), the
	// boundary a trace's reader counts iterations by: 4.1.43 may select
	// several times in one iteration and 4.1 may skip the I/O phase or
	// the select, so neither the selects nor the I/O phases count them.
	iterationBegun bool
	// gracefulStart is when confirmShutdown first ran.
	gracefulStart int64
	// beforePublish, when set (tests only, before the loop starts), runs
	// after the select's first hasTasks() and before nextWakeup is
	// published.
	beforePublish func()
	// failPoller, when set (tests only), is the error a rebuild's new
	// epoll instance fails with.
	failPoller error
}

var offSwitch trace.Switch // the switch of loops with no collector: always off

// NewEventLoop creates a loop named name (for example "worker-3") in group.
// Its epoll instance and eventfd are opened now; its thread starts lazily on
// the first Execute or Register (Netty's startThread).
func NewEventLoop(name, group string, cfg Config) (*EventLoop, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	l := &EventLoop{
		fixed: fixed{
			name: name, group: group, cfg: cfg,
			tasks:      mpsc.New[task](cfg.QueueCapacity),
			tailTasks:  mpsc.New[task](0),
			terminated: make(chan struct{}),
			sw:         &offSwitch,
		},
		owned: owned{
			events:   make([]poll.Event, defaultEvents),
			selected: make([]selectedKey, 0, defaultEvents),
		},
	}
	l.state.Store(int32(trace.StateNotStarted))
	l.nextWakeup.Store(wakeAwake)
	l.design = newDesign(l)
	l.ioRatio.Store(int32(cfg.IORatio))
	l.quietNanos.Store(int64(DefaultQuietPeriod))
	l.timeoutNanos.Store(int64(DefaultShutdownTimeout))
	l.gate.init()
	if cfg.Collector != nil {
		l.coll = cfg.Collector
		l.clock = cfg.Collector.Clock()
		l.ring = cfg.Collector.AddLoop(name, group)
		l.loopIdx = l.ring.Loop()
		l.sw = cfg.Collector.Switch()
	} else {
		l.clock = trace.NewClock()
	}
	l.nowFn = cfg.Now
	if l.nowFn == nil {
		l.nowFn = l.clock.Now
	}
	if err := l.openSelector(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *EventLoop) openSelector() error {
	if l.cfg.Selector == SelectorIOUring {
		// Probe first so a machine without io_uring fails here, saying
		// why; then the ring is made now, as the epoll instance is, and
		// started on the loop's thread (SINGLE_ISSUER).
		if err := probeIOUring(); err != nil {
			return err
		}
		efd, err := poll.NewEventFD()
		if err != nil {
			return err
		}
		if err := l.uring.create(); err != nil {
			unix.Close(efd)
			return fmt.Errorf("%s: io_uring ring setup failed: %w", l.name, err)
		}
		l.wakeFD = efd
		return nil
	}
	p, err := poll.Open()
	if err != nil {
		return err
	}
	efd, err := poll.NewEventFD()
	if err != nil {
		p.Close()
		return err
	}
	l.wakeFD = efd // fixed for the loop's life: producers write it
	if err := l.addWakeFD(p); err != nil {
		p.Close()
		unix.Close(efd)
		return err
	}
	l.poller = p
	return nil
}

// addWakeFD registers the eventfd edge-triggered: one notification per
// write, and it is never read (Netty's epoll transport does the same).
func (l *EventLoop) addWakeFD(p *poll.Poller) error { return l.epollAdd(p, l.wakeFD, poll.In|poll.ET) }

// epollAdd, epollMod and epollDel are the loop's epoll_ctl calls, each
// counted as it is made. p is the loop's epoll instance, or a rebuild's
// new one before it takes the old one's place.
func (l *EventLoop) epollAdd(p *poll.Poller, fd int, events uint32) error {
	add(&l.stats.EpollCtl, 1)
	return p.Add(fd, events)
}

func (l *EventLoop) epollMod(fd int, events uint32) error {
	add(&l.stats.EpollCtl, 1)
	return l.poller.Mod(fd, events)
}

func (l *EventLoop) epollDel(fd int) error {
	add(&l.stats.EpollCtl, 1)
	return l.poller.Del(fd)
}

// Name returns the loop's name, for example "boss-0".
func (l *EventLoop) Name() string { return l.name }

// Group returns the name of the loop's group.
func (l *EventLoop) Group() string { return l.group }

// State returns the loop's lifecycle state. Any goroutine.
func (l *EventLoop) State() trace.State { return trace.State(l.state.Load()) }

// TID returns the Linux thread id of the loop's thread, or 0 before it
// starts. Any goroutine.
func (l *EventLoop) TID() int { return int(l.tid.Load()) }

// Stats returns a snapshot of the loop's counters without stopping it.
func (l *EventLoop) Stats() Stats {
	s := l.stats.Load()
	s.QueueDepth = int64(l.tasks.Len())
	return s
}

// IORatio returns the current ioRatio.
func (l *EventLoop) IORatio() int { return int(l.ioRatio.Load()) }

// SetIORatio changes the ioRatio, 1..100, as NioEventLoop.setIoRatio does.
// Any goroutine; the loop reads it once per iteration. A change is traced
// as an io_ratio event, so a replay knows each loop's ratio, not only the
// one the run started with.
func (l *EventLoop) SetIORatio(r int) error {
	if err := ValidateIORatio(r); err != nil {
		return err
	}
	if l.InEventLoop() {
		if old := l.ioRatio.Swap(int32(r)); old != int32(r) && l.tracing() {
			l.emit(trace.Event{Kind: trace.KindIORatio, A: int64(r), B: int64(old)})
		}
		return nil
	}
	// Stamped before the swap: the loop's next batch may use the new ratio.
	p := l.reserveExternal()
	if old := l.ioRatio.Swap(int32(r)); old != int32(r) {
		l.publishExternal(p, trace.Event{Kind: trace.KindIORatio, A: int64(r), B: int64(old)})
	} else {
		l.abandonExternal(p)
	}
	return nil
}

// Terminated is closed once the loop reaches TERMINATED.
func (l *EventLoop) Terminated() <-chan struct{} { return l.terminated }

// Err returns the error that stopped the loop, if any.
func (l *EventLoop) Err() error {
	if p := l.fatalErr.Load(); p != nil {
		return *p
	}
	return nil
}

// InEventLoop reports whether the caller runs on this loop's thread. The
// loop goroutine is locked to its OS thread for life and the thread exits
// with it, so no other goroutine ever runs on a thread with that id (short
// of the kernel wrapping its thread ids around), and comparing them is exact.
func (l *EventLoop) InEventLoop() bool {
	tid := l.tid.Load()
	return tid != 0 && int32(unix.Gettid()) == tid
}

func (l *EventLoop) now() int64 { return l.nowFn() }

func (l *EventLoop) tracing() bool { return l.sw.On() }

// emit puts an event on the loop's ring. Only the loop thread calls it, and
// only after checking tracing(), so a disabled site costs one atomic load.
func (l *EventLoop) emit(e trace.Event) {
	e.Time = l.clock.Now()
	l.ring.Put(e)
}

// emitAt is emit with a timestamp the caller already has.
func (l *EventLoop) emitAt(t int64, e trace.Event) {
	e.Time = t
	l.ring.Put(e)
}

// emitExternal records an event raised on another goroutine through the
// collector's shared multi-producer ring. It is for events whose action
// the loop cannot see before the record (a rejection, a measurement); an
// action the loop may react to at once is recorded with reserveExternal.
func (l *EventLoop) emitExternal(e trace.Event) {
	e.Time = l.clock.Now()
	e.Loop = l.loopIdx
	l.coll.External(e)
}

// reserveExternal stamps an event of another goroutine before its action
// (the eventfd write, the task offered): the loop can react to the action
// at once, and the record must not come after the reaction, in time or in
// the trace. It returns the zero Pending when not tracing (or the ring is
// full); otherwise publishExternal or abandonExternal must follow.
func (l *EventLoop) reserveExternal() trace.Pending {
	if !l.tracing() {
		return trace.Pending{}
	}
	return l.coll.Reserve()
}

// publishExternal records e at the time reserveExternal stamped; nothing
// for a zero p.
func (l *EventLoop) publishExternal(p trace.Pending, e trace.Event) {
	if p.Claimed() {
		e.Loop = l.loopIdx
		l.coll.Publish(p, e)
	}
}

// abandonExternal releases p when its action did not happen, or left
// nothing to record; nothing for a zero p.
func (l *EventLoop) abandonExternal(p trace.Pending) {
	if p.Claimed() {
		l.coll.Abandon(p)
	}
}

// Execute runs fn on the loop thread, in submission order. Any goroutine.
func (l *EventLoop) Execute(fn func()) error { return l.submit("", fn, nil, true) }

// ExecuteNamed is Execute with a name shown in traces and the UI.
func (l *EventLoop) ExecuteNamed(name string, fn func()) error {
	return l.submit(name, fn, nil, true)
}

// LazyExecute queues fn without waking a sleeping loop (Netty's
// lazyExecute): it runs when the loop next wakes for another reason.
func (l *EventLoop) LazyExecute(name string, fn func()) error {
	return l.submit(name, fn, nil, false)
}

// ExecuteAfterEventLoopIteration queues a tail task: it runs after the next
// runAllTasks batch (Netty's SingleThreadEventLoop tail tasks). Any goroutine.
// Like SingleThreadEventLoop.executeAfterEventLoopIteration it wakes the
// loop but never starts its thread: a tail task offered to a loop that has
// not started waits until something else starts it (or its shutdown runs it).
func (l *EventLoop) ExecuteAfterEventLoopIteration(name string, fn func()) error {
	if fn == nil {
		return errors.New("nil task")
	}
	if !l.enter() {
		return l.reject("event loop terminated")
	}
	defer l.exit()
	l.tailTasks.Offer(task{fn: fn, name: name, id: l.taskIDs.Add(1)})
	if !l.InEventLoop() {
		l.wakeup(nil)
	}
	return nil
}

// enter admits a producer unless the loop has reached SHUTDOWN. Between
// enter and exit the loop will neither do its final drain nor close its
// eventfd: it moves to SHUTDOWN, then waits for inflight to reach zero. So
// a task is either rejected or run by that drain, and a wakeup never writes
// a closed descriptor. (Netty removes a late task from its queue instead;
// an MPSC queue cannot remove from the middle.)
func (l *EventLoop) enter() bool {
	l.inflight.Add(1)
	if l.State() >= trace.StateShutdown {
		l.inflight.Add(-1)
		return false
	}
	return true
}

func (l *EventLoop) exit() { l.inflight.Add(-1) }

func (l *EventLoop) reject(why string) error {
	add(&l.stats.TasksRejected, 1)
	if l.tracing() {
		l.emitExternal(trace.Event{Kind: trace.KindTaskReject, Str: why})
	}
	return fmt.Errorf("%s: %w: %s", l.name, ErrRejected, why)
}

// submit is Netty's execute(task, immediate): enqueue first, then start the
// thread if needed, then wake the loop unless the caller is the loop itself.
// from names the loop the submission comes from, if any.
func (l *EventLoop) submit(name string, fn func(), from *EventLoop, immediate bool) error {
	if fn == nil {
		return errors.New("nil task")
	}
	if !l.enter() {
		return l.reject("event loop terminated")
	}
	defer l.exit()
	inLoop := from == l || (from == nil && l.InEventLoop())
	id := l.taskIDs.Add(1)
	// From another goroutine the submission is stamped before the offer:
	// the loop may run the task as soon as it is queued.
	var p trace.Pending
	if !inLoop {
		p = l.reserveExternal()
	}
	if !l.tasks.Offer(task{fn: fn, name: name, id: id}) {
		l.abandonExternal(p)
		return l.reject(fmt.Sprintf("task queue full (%d)", l.cfg.QueueCapacity))
	}
	add(&l.stats.TasksSubmitted, 1)
	l.traceSubmit(id, name, inLoop, from, p)
	if !inLoop {
		l.startThread()
		if immediate {
			l.wakeup(from)
		}
	}
	return nil
}

// traceSubmit records a submission with its producer: the task queue is
// multi-producer, single-consumer (C13), and a trace that names who fed it
// lets the UI draw the producers feeding the one loop that drains it. A
// submission from another goroutine fills the slot p that submit reserved
// before offering the task.
func (l *EventLoop) traceSubmit(id uint64, name string, inLoop bool, from *EventLoop, p trace.Pending) {
	if inLoop && !l.tracing() || !inLoop && !p.Claimed() {
		return
	}
	e := trace.Event{Kind: trace.KindTaskSubmit, A: int64(id), B: int64(l.tasks.Len()), Flag: !inLoop, Str: name}
	if from != nil && from != l && from.coll == l.coll {
		e.C = int64(from.loopIdx) + 1
	}
	if inLoop {
		l.emit(e)
	} else {
		l.publishExternal(p, e)
	}
}

// wakeup is NioEventLoop.wakeup(inEventLoop=false): the loop design decides
// whether to write the eventfd (≤4.1.43 and 4.2 NIO: only if wakenUp flips
// false → true; 4.1.44+ and 4.2 epoll: only if nextWakeupNanos was not
// AWAKE; 4.2 io_uring: only if no earlier write awaits its completion), so
// N submissions to a sleeping loop cost one write (C11).
//
// The wakeup is stamped before the write, not after: once the eventfd is
// written the loop may return from its select, run the task and trace it
// all before this goroutine gets the CPU back, and the trace must show the
// wakeup before the select it ends.
func (l *EventLoop) wakeup(from *EventLoop) {
	p := l.reserveExternal()
	written := l.design.wake()
	if l.beforeRecord != nil {
		l.beforeRecord() // tests: the producer held between its write and its record
	}
	if written {
		add(&l.stats.WakeupsWritten, 1)
	} else {
		add(&l.stats.WakeupsCoalesced, 1)
	}
	if p.Claimed() {
		src := "external"
		if from != nil {
			src = from.name
		}
		l.publishExternal(p, trace.Event{Kind: trace.KindWakeup, Flag: written, Str: src})
	}
}

// wakeSelector is Selector.wakeup(): one eventfd write, latched until a
// select sees it, as the JDK latches interruptTriggered.
func (l *EventLoop) wakeSelector() bool {
	if !l.woken.CompareAndSwap(false, true) {
		return false
	}
	if err := poll.WriteEventFD(l.wakeFD); err != nil {
		l.woken.Store(false)
		return false
	}
	return true
}

// selfWakeup is the loop's own selector.wakeup() after select in
// NioEventLoop.run (4.1.43): it covers a wakeup that landed between clearing wakenUp and
// selecting, at the price of a non-blocking next select (#9112).
func (l *EventLoop) selfWakeup() {
	if l.wakeSelector() {
		add(&l.stats.SelfWakeups, 1)
		if l.tracing() {
			l.emit(trace.Event{Kind: trace.KindWakeup, Flag: true, Str: l.name})
		}
	}
}

// startThread is Netty's startThread: the first submission CASes the state
// from NOT_STARTED to STARTED and launches the loop goroutine. In Netty 4.2
// a submission also moves a SUSPENDED loop back to STARTED (the resume of
// an auto-scaling group); its goroutine is launched only if it never was.
// A SUSPENDING loop is left alone, as 4.2's startThread leaves it: the
// task keeps canSuspend() false until it has run, then the loop suspends.
func (l *EventLoop) startThread() {
	s := trace.State(l.state.Load())
	if s != trace.StateNotStarted && s != trace.StateSuspended {
		return
	}
	if l.state.CompareAndSwap(int32(s), int32(trace.StateStarted)) {
		// 4.2's startThread calls resetIdleCycles(); resetBusyCycles(); on
		// every start, from ST_NOT_STARTED as from ST_SUSPENDED: a loop the
		// monitor saw idle before its first task starts from 0. (Before
		// 4.2 the counts do not exist and stay 0.)
		l.resetCycles()
		l.startGoroutine(s)
	}
}

func (l *EventLoop) startGoroutine(from trace.State) {
	if !l.launched.CompareAndSwap(false, true) {
		return
	}
	started := make(chan struct{})
	go l.threadMain(started, from)
	<-started // the thread id is known before anyone can ask InEventLoop
}

func (l *EventLoop) threadMain(started chan struct{}, from trace.State) {
	runtime.LockOSThread()
	l.tid.Store(int32(unix.Gettid()))
	close(started)
	l.seenState = from
	l.noteState()
	// Buffers are made here, not in NewEventLoop, so a loop that never
	// starts costs no memory beyond its struct and two descriptors.
	l.lastExec = l.now()
	if l.uring != nil {
		// No shared read buffer (the kernel picks a provided buffer) and no
		// shared scratch: a reply buffer belongs to its send until the
		// send completes.
		if err := l.uring.open(); err != nil {
			// Say why, on the loop's own ring: the loop stops at once and
			// the group's chooser deals it no more connections.
			err = fmt.Errorf("%s: io_uring ring start failed, the loop stops: %w", l.name, err)
			l.selectorFailed(err)
			if l.tracing() {
				l.emit(trace.Event{Kind: trace.KindException, B: -1, Str: err.Error()})
			}
		}
	} else {
		l.readBuf = make([]byte, l.cfg.ReadBufferSize)
		l.scratch = make([]byte, 0, 4096)
	}
	l.run()
	l.finishShutdown()
	// No UnlockOSThread: l.tid stays recorded, and an unlocked thread would
	// go back to the scheduler to run other goroutines, which InEventLoop
	// would then take for the loop. A goroutine that exits locked takes its
	// thread with it.
}

func (l *EventLoop) setState(to trace.State) {
	l.state.Store(int32(to))
	l.noteState()
}

// noteState reports a state change the loop has not reported yet. Another
// goroutine moves the state to SHUTTING_DOWN; the loop reports it when it
// notices, so all of a loop's state events come from its own ring.
func (l *EventLoop) noteState() {
	s := l.State()
	if s == l.seenState {
		return
	}
	if l.tracing() {
		e := trace.Event{Kind: trace.KindState, A: int64(l.seenState), B: int64(s), C: int64(l.tid.Load())}
		if s == trace.StateShuttingDown {
			// What confirmShutdown will wait for, so a screen can count
			// the quiet period down.
			e.D, e.E = l.quietNanos.Load(), l.timeoutNanos.Load()
		}
		l.emit(e)
	}
	l.seenState = s
}

func (l *EventLoop) hasTasks() bool { return !l.tasks.IsEmpty() || !l.tailTasks.IsEmpty() }

// quietWait parks the loop thread between two looks at the quiet period
// (confirmShutdown). Netty sleeps 100 ms; here the quiet period is counted
// on the run clock, so while a learner holds the run the loop waits out
// the hold first, rather than look again and again at a clock that has not
// moved.
func (l *EventLoop) quietWait(d int64) {
	if held := l.clock.Held(); held != nil {
		<-held
	}
	time.Sleep(time.Duration(d))
}
