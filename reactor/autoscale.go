package reactor

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// AutoScale configures an auto-scaling group of Netty 4.2 (4.2.5+): the
// arguments of AutoScalingEventExecutorChooserFactory's constructor. Every
// Window the group measures each loop's utilisation. A loop below ScaleDown
// for Patience + 1 windows in a row (getAndIncrementIdleCycles() >=
// patience), with no registered channels, is suspended and skipped by
// Next(). Each loop above ScaleUp for more than Patience windows in a row
// counts as busy (loop by loop, not the group's average), and up to
// min(busy loops, MaxRampUp) suspended loops are resumed
// (docs/netty-versions.md).
type AutoScale struct {
	MinThreads  int           // minThreads: never suspend below this many active loops
	MaxThreads  int           // maxThreads: the group's size
	Window      time.Duration // utilizationWindow
	ScaleDown   float64       // scaleDownThreshold, 0..1
	ScaleUp     float64       // scaleUpThreshold, 0..1, above ScaleDown
	MaxRampUp   int           // maxRampUpStep: loops resumed per window at most
	MaxRampDown int           // maxRampDownStep: loops suspended per window at most
	Patience    int           // scalingPatienceCycles
}

// Validate checks a as the factory's constructor does, with its messages.
func (a AutoScale) Validate() error {
	switch {
	case a.MinThreads < 0:
		return fmt.Errorf("minThreads: %d (expected: >= 0)", a.MinThreads)
	case a.MaxThreads <= 0:
		return fmt.Errorf("maxThreads: %d (expected: > 0)", a.MaxThreads)
	case a.MinThreads > a.MaxThreads:
		return fmt.Errorf("minThreads: %d must not be greater than maxThreads: %d", a.MinThreads, a.MaxThreads)
	case a.Window <= 0:
		return fmt.Errorf("utilizationWindow: %v (expected: > 0)", a.Window)
	case a.ScaleDown < 0 || a.ScaleDown > 1:
		return fmt.Errorf("scaleDownThreshold: %v (expected: 0..1)", a.ScaleDown)
	case a.ScaleUp < 0 || a.ScaleUp > 1:
		return fmt.Errorf("scaleUpThreshold: %v (expected: 0..1)", a.ScaleUp)
	case a.ScaleDown >= a.ScaleUp:
		return fmt.Errorf("scaleDownThreshold must be less than scaleUpThreshold: %v >= %v", a.ScaleDown, a.ScaleUp)
	case a.MaxRampUp <= 0:
		return fmt.Errorf("maxRampUpStep: %d (expected: > 0)", a.MaxRampUp)
	case a.MaxRampDown <= 0:
		return fmt.Errorf("maxRampDownStep: %d (expected: > 0)", a.MaxRampDown)
	case a.Patience < 0:
		return fmt.Errorf("scalingPatienceCycles: %d (expected: >= 0)", a.Patience)
	}
	return nil
}

// ErrAutoScaleFlavour is returned when auto-scaling is asked of a loop
// design other than Netty 4.2, which is the first to have it.
var ErrAutoScaleFlavour = errors.New("auto-scaling needs netty 4.2 (AutoScalingEventExecutorChooserFactory, 4.2.5+)")

// scaler is AutoScalingEventExecutorChooser with its UtilizationMonitor.
// The monitor state (the per-loop slices and lastCheck) belongs to whoever
// calls check: the monitor goroutine, or a test.
type scaler struct {
	g   *EventLoopGroup
	cfg AutoScale
	// active is the loops Next() chooses from with their own round-robin
	// counter, replaced off the hot path on every change
	// (AutoScalingState.activeExecutors and activeExecutorsChooser).
	active atomic.Pointer[activeSet]
	allIdx atomic.Uint64 // allExecutorsChooser's counter, with none active
	mu     sync.Mutex    // serialises scale-ups and rebuilds (Netty CASes its state)
	wakeAt uint64        // nextWakeUpIndex: where the next scale-up starts looking

	now        func() int64 // the monitor's clock: the first loop's, a double in tests
	lastCheck  int64
	lastActive []int64
	candidates []*EventLoop
	util       []atomic.Int64 // last utilisation per loop, in permille

	stop     chan struct{}
	done     chan struct{}
	running  bool // the monitor goroutine was started
	stopOnce sync.Once
}

// AutoScale turns g into an auto-scaling group and starts its utilisation
// monitor, which runs every Window until the group shuts down (Netty
// schedules it on GlobalEventExecutor). The loops must follow Netty 4.2 and
// the group's size must be a.MaxThreads.
func (g *EventLoopGroup) AutoScale(a AutoScale) error {
	s, err := g.enableAutoScale(a)
	if err != nil {
		return err
	}
	s.running = true
	go s.monitor()
	return nil
}

// enableAutoScale installs the scaler without its monitor goroutine, so a
// test can drive check itself.
func (g *EventLoopGroup) enableAutoScale(a AutoScale) (*scaler, error) {
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("group %s: %w", g.name, err)
	}
	if g.loops[0].Flavour() != Netty42 {
		return nil, fmt.Errorf("group %s: %w; this group follows netty %s", g.name, ErrAutoScaleFlavour, g.loops[0].Flavour())
	}
	if a.MaxThreads != len(g.loops) {
		return nil, fmt.Errorf("group %s: maxThreads %d must equal the group's size %d", g.name, a.MaxThreads, len(g.loops))
	}
	n := len(g.loops)
	s := &scaler{
		g: g, cfg: a,
		lastActive: make([]int64, n),
		candidates: make([]*EventLoop, 0, n), util: make([]atomic.Int64, n),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	s.now = g.loops[0].now
	s.active.Store(&activeSet{loops: append([]*EventLoop(nil), g.loops...)})
	if !g.scaler.CompareAndSwap(nil, s) {
		return nil, fmt.Errorf("group %s: already auto-scaling", g.name)
	}
	return s, nil
}

func (s *scaler) monitor() {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Window)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.check()
		}
	}
}

// halt stops the monitor, if it runs, and waits for it.
func (s *scaler) halt() {
	s.stopOnce.Do(func() {
		close(s.stop)
		if s.running {
			<-s.done
		}
	})
}

// activeSet is one AutoScalingState's active loops and the chooser over
// them: DefaultEventExecutorChooserFactory.newChooser builds a new one for
// every new state, so its counter starts from 0 after each scale change.
type activeSet struct {
	loops []*EventLoop
	idx   atomic.Uint64
}

// next is AutoScalingEventExecutorChooser.next: round-robin over the
// active loops. With none active (minThreads 0 and the last one just
// suspended) it resumes one and picks from all with the chooser over
// every loop, as Netty does.
func (s *scaler) next() *EventLoop {
	act := s.active.Load()
	if len(act.loops) == 0 {
		s.scaleUp(1, "next")
		i := s.allIdx.Add(1) - 1
		return s.g.loops[i%uint64(len(s.g.loops))]
	}
	i := act.idx.Add(1) - 1
	return act.loops[i%uint64(len(act.loops))]
}

// check is UtilizationMonitor.run: one window's measurement and decision.
func (s *scaler) check() {
	loops := s.g.loops
	if loops[0].State() >= trace.StateShuttingDown {
		return
	}
	now := s.now()
	total := int64(s.cfg.Window)
	if s.lastCheck != 0 {
		total = now - s.lastCheck
	}
	s.lastCheck = now
	if total <= 0 {
		return
	}
	busy := 0
	s.candidates = s.candidates[:0]
	for i, l := range loops {
		s.measure(i, l, total, &busy)
	}
	activeNow := len(s.active.Load().loops)
	if busy > 0 && activeNow < s.cfg.MaxThreads {
		s.scaleUp(min(busy, s.cfg.MaxRampUp, s.cfg.MaxThreads-activeNow), "busy")
		return // as Netty: no scale-down in the window that scaled up
	}
	if len(s.candidates) > 0 && activeNow > s.cfg.MinThreads {
		s.scaleDown(min(len(s.candidates), s.cfg.MaxRampDown, activeNow-s.cfg.MinThreads))
	}
}

// measure takes loop i's utilisation over the window: the I/O and task
// nanoseconds it accumulated (getAndResetAccumulatedActiveTimeNanos), over
// the elapsed time, and counts it idle or busy.
func (s *scaler) measure(i int, l *EventLoop, total int64, busy *int) {
	if l.State().Suspended() {
		s.util[i].Store(0)
		return
	}
	act := l.stats.IONanos.Load() + l.stats.TaskNanos.Load()
	delta := max(act-s.lastActive[i], 0)
	s.lastActive[i] = act
	u := min(1, float64(delta)/float64(total))
	chans := l.stats.Channels.Load()
	switch {
	case u < s.cfg.ScaleDown:
		cycles := l.idleCycles.Add(1) - 1 // getAndIncrementIdleCycles
		l.busyCycles.Store(0)
		if int(cycles) >= s.cfg.Patience && chans <= 0 {
			s.candidates = append(s.candidates, l)
		}
	case u > s.cfg.ScaleUp:
		cycles := l.busyCycles.Add(1) - 1
		l.idleCycles.Store(0)
		if int(cycles) >= s.cfg.Patience {
			*busy++
		}
	default:
		l.resetCycles()
	}
	pm := int64(u * 1000)
	s.util[i].Store(pm)
	if l.tracing() {
		l.emitExternal(trace.Event{Kind: trace.KindUtilisation, A: pm, B: delta, C: total, D: int64(l.idleCycles.Load()), E: chans})
	}
}

func (s *scaler) scaleDown(n int) {
	changed := false
	active := len(s.active.Load().loops)
	for _, l := range s.candidates[:n] {
		// Stamped before the loop is asked: it notes SUSPENDING at once.
		p := l.reserveExternal()
		idle := l.idleCycles.Load()
		if !l.trySuspend() {
			l.abandonExternal(p)
			continue
		}
		active--
		l.publishExternal(p, trace.Event{Kind: trace.KindLoopSuspend, A: int64(idle), B: int64(active)})
		add(&l.stats.Suspensions, 1)
		// Reset on suspension, so a loop resumed is not suspended again at
		// once (the monitor's resetBusyCycles, resetIdleCycles).
		l.resetCycles()
		changed = true
	}
	if changed {
		s.rebuild()
	}
}

// scaleUp is tryScaleUpBy: resume up to n suspended loops, looking from
// nextWakeUpIndex on, so resumes rotate over the group. The new active
// list is the old one with the resumed loops appended at its end, in the
// order they were resumed, and gets a chooser of its own.
func (s *scaler) scaleUp(n int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	loops := s.g.loops
	old := s.active.Load().loops
	act := append(make([]*EventLoop, 0, len(loops)), old...)
	for i := 0; i < len(loops) && len(act)-len(old) < n; i++ {
		l := loops[(s.wakeAt+uint64(i))%uint64(len(loops))]
		if !l.State().Suspended() {
			continue
		}
		// Stamped before the resume, whose task the loop may run at once.
		p := l.reserveExternal()
		if !l.resume() {
			l.abandonExternal(p)
			continue
		}
		act = append(act, l)
		add(&l.stats.Resumes, 1)
		l.publishExternal(p, trace.Event{Kind: trace.KindLoopResume, A: int64(len(act)), Str: reason})
	}
	if woken := len(act) - len(old); woken > 0 {
		s.wakeAt += uint64(woken)
		s.active.Store(&activeSet{loops: act})
	}
}

func (s *scaler) rebuild() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebuildLocked()
}

// rebuildLocked is rebuildActiveExecutors: the loops not suspended, in
// group order, with a new chooser.
func (s *scaler) rebuildLocked() {
	act := make([]*EventLoop, 0, len(s.g.loops))
	for _, l := range s.g.loops {
		if !l.State().Suspended() {
			act = append(act, l)
		}
	}
	s.active.Store(&activeSet{loops: act})
}

// resetCycles is resetIdleCycles and resetBusyCycles: the counts of
// windows in a row a loop was idle or busy, which Netty keeps on the
// executor (SingleThreadEventExecutor.consecutiveIdleCycles and
// consecutiveBusyCycles), so a start resets them as a suspension does.
func (l *EventLoop) resetCycles() {
	l.idleCycles.Store(0)
	l.busyCycles.Store(0)
}

// ActiveCount is activeExecutorCount(): how many loops Next() chooses from.
func (g *EventLoopGroup) ActiveCount() int {
	s := g.scaler.Load()
	if s == nil {
		return len(g.loops)
	}
	return len(s.active.Load().loops)
}

// Utilisations is executorUtilizations(): each loop's utilisation over the
// last window, in permille; nil unless the group auto-scales.
func (g *EventLoopGroup) Utilisations() []int64 {
	s := g.scaler.Load()
	if s == nil {
		return nil
	}
	u := make([]int64, len(g.loops))
	for i := range u {
		u[i] = s.util[i].Load()
	}
	return u
}

// trySuspend is SingleThreadEventExecutor.trySuspend: a running loop is
// asked to suspend and woken so it notices at the end of its iteration; a
// loop that never started is suspended at once.
func (l *EventLoop) trySuspend() bool {
	if l.state.CompareAndSwap(int32(trace.StateStarted), int32(trace.StateSuspending)) {
		l.wakeup(nil)
		return true
	}
	if l.state.CompareAndSwap(int32(trace.StateNotStarted), int32(trace.StateSuspended)) {
		return true
	}
	return l.State().Suspended()
}

// resume is the scale-up's execute(NO_OOP_TASK): the submission moves a
// suspended loop back to STARTED (startThread) and wakes it.
func (l *EventLoop) resume() bool { return l.Execute(func() {}) == nil }

// canSuspend is SingleThreadIoEventLoop.canSuspend: nothing queued, nothing
// scheduled and no registered channel.
func (l *EventLoop) canSuspend() bool {
	return !l.hasTasks() && l.scheduled.Len() == 0 && l.stats.Channels.Load() == 0
}

// suspendIfAsked runs at the end of every iteration: the point where
// SingleThreadIoEventLoop.run leaves its loop when canSuspend(). A loop
// asked to suspend moves SUSPENDING → SUSPENDED once idle. Netty's thread
// then ends and a later execute starts a new one; here the goroutine stays
// parked in its select with nothing to do, and the next submission moves
// the state back to STARTED (docs/netty-differences.md). One atomic load
// when nothing changed.
func (l *EventLoop) suspendIfAsked() {
	s := l.State()
	if s == l.seenState && s != trace.StateSuspending {
		return
	}
	l.noteState() // SUSPENDING gets its own event, even when it lasts no time
	if s == trace.StateSuspending && l.canSuspend() &&
		l.state.CompareAndSwap(int32(trace.StateSuspending), int32(trace.StateSuspended)) {
		l.noteState()
	}
}
