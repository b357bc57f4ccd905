// Package sim runs scenarios on the engine: it builds the single, multi or
// master-slave topology a scenario describes, binds its server channels,
// drives its clients, plays its timeline of tasks, timers and faults, and at
// the end shuts everything down gracefully, checks the expectations and
// reports a summary. It knows scenarios and the engine, not the UI.
package sim

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/wheel"
	"github.com/reactorviz/reactorviz/scenarios"
)

// Options adjusts a run. The zero value runs the scenario with no trace.
type Options struct {
	// Sinks receive the run's events (the TUI's model, for one). Any sink
	// turns instrumentation on.
	Sinks []trace.Sink
	// TracePath and ChromePath, if set, record a JSONL trace and a
	// Chrome/Perfetto trace of the run.
	TracePath  string
	ChromePath string
	// RingSize is the per-loop event ring size (default 8192 events, or
	// traceRingSize when a trace file is recorded).
	RingSize int
	// Forever runs until Stop instead of for the scenario's duration:
	// serve in the TUI.
	Forever bool
	// Addr, if set, replaces the scenario's server address; the caller has
	// checked it (serve --allow-remote).
	Addr string
	// MaxConnections caps each server channel's open connections; 0 means
	// 20 000.
	MaxConnections int
	// HoldWhilePaused stops the run clock while any loop is paused at its
	// step gate, so a teacher who stops time to explain a phase does not
	// see the run end, or the timeline move on, meanwhile (the TUI).
	HoldWhilePaused bool
}

// Run is one run of a scenario.
type Run struct {
	sc   *scenarios.Scenario
	opts Options
	coll *trace.Collector

	groups  []*reactor.EventLoopGroup
	loops   []*reactor.EventLoop // index i is trace loop i
	byName  map[string]*reactor.EventLoop
	index   map[*reactor.EventLoop]int // position in loops
	served  *servedBy
	split   *splitSampler
	boss    *reactor.EventLoopGroup
	worker  *reactor.EventLoopGroup
	client  *reactor.EventLoopGroup
	servers []*reactor.ServerChannel
	wheel   *wheel.Timer
	faults  map[*reactor.EventLoop]*loopFaults
	// answered counts, per loop, the requests the server's protocol
	// handlers answered (serve's req/s); each written by its loop only.
	answered map[*reactor.EventLoop]*answeredCount
	pool     *pool
	files    *traceFiles

	mu         sync.Mutex
	clients    []*clientGroup
	started    time.Time
	offloading bool
	ended      time.Time     // when the clients were stopped
	held       time.Duration // run clock time spent held
	holdSince  time.Time     // zero unless the clock is held now
	fired      []Fired       // timeline actions played, for the UI's captions
	holds      []hold        // the clock's past holds, for ClockMap

	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	summary  *Summary
	err      error
}

// traceRingSize is the per-loop ring, and the ring of events raised off the
// loops, of a run that records a trace file, which should be complete: room
// for a burst of tens of thousands of events (wakeup-coalescing runs 10 000
// tasks in a few milliseconds, two events each, while other goroutines
// submit thousands more) as the collector writes the previous batch.
// 5 MiB a ring.
const traceRingSize = 1 << 16

func (o Options) collectorOptions() trace.Options {
	if o.RingSize == 0 && (o.TracePath != "" || o.ChromePath != "") {
		return trace.Options{RingSize: traceRingSize, ExternalSize: traceRingSize}
	}
	return trace.Options{RingSize: o.RingSize}
}

// New prepares a run; nothing starts until Start.
func New(sc *scenarios.Scenario, opts Options) (*Run, error) {
	r := &Run{sc: sc, opts: opts, byName: map[string]*reactor.EventLoop{}, index: map[*reactor.EventLoop]int{},
		faults:   map[*reactor.EventLoop]*loopFaults{},
		answered: map[*reactor.EventLoop]*answeredCount{},
		stop:     make(chan struct{}), done: make(chan struct{})}
	r.coll = trace.NewCollector(opts.collectorOptions())
	if err := r.build(); err != nil {
		r.teardown()
		return nil, err
	}
	r.served = newServedBy(len(r.loops))
	r.split = newSplitSampler(r.loops, r.served.hists)
	ensureProcs(len(r.loops) + 1) // + the wheel's thread
	return r, nil
}

// Scenario returns the scenario being run.
func (r *Run) Scenario() *scenarios.Scenario { return r.sc }

// Collector returns the run's event collector.
func (r *Run) Collector() *trace.Collector { return r.coll }

// Groups returns the run's event loop groups, boss (or reactor) first.
func (r *Run) Groups() []*reactor.EventLoopGroup { return r.groups }

// Loops returns every loop; Loops()[i] emits as trace loop index i.
func (r *Run) Loops() []*reactor.EventLoop { return r.loops }

// Wheel returns the run's HashedWheelTimer.
func (r *Run) Wheel() *wheel.Timer { return r.wheel }

// Duration returns how long the run lasts; 0 for a run that lasts until
// Stop.
func (r *Run) Duration() time.Duration {
	if r.opts.Forever {
		return 0
	}
	return r.sc.Duration
}

// RebuildThreshold returns the premature-select count that rebuilds a
// selector, 0 when rebuilding is disabled.
func (r *Run) RebuildThreshold() int {
	if !r.sc.Loop.RebuildEnabled() {
		return 0
	}
	return r.sc.Loop.RebuildThreshold
}

// Elapsed returns the run clock: time since Start, less the time it was
// held.
func (r *Run) Elapsed() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started.IsZero() {
		return 0
	}
	// One reading for both terms, so a held clock stands exactly still.
	now := time.Now()
	el := now.Sub(r.started) - r.held
	if !r.holdSince.IsZero() {
		el -= now.Sub(r.holdSince)
	}
	if r.opts.Forever {
		return el
	}
	return min(el, r.sc.Duration)
}

// wallElapsed is the wall time since Start, up to the end of the run.
func (r *Run) wallElapsed() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.started.IsZero():
		return 0
	case !r.ended.IsZero():
		return r.ended.Sub(r.started)
	}
	return time.Since(r.started)
}

// HoldClock stops (true) or restarts (false) the run clock. With
// Options.HoldWhilePaused the run holds it itself while loops are paused.
// Any goroutine.
func (r *Run) HoldClock(hold bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case hold && r.holdSince.IsZero():
		r.holdSince = time.Now()
	case !hold && !r.holdSince.IsZero():
		now := time.Now()
		r.held += now.Sub(r.holdSince)
		r.noteHold(r.holdSince, now)
		r.holdSince = time.Time{}
	}
}

// holdWhilePaused holds the clock while any loop is paused, when the
// options ask for it. The run's sleeps call it each time they wake.
func (r *Run) holdWhilePaused() {
	if !r.opts.HoldWhilePaused {
		return
	}
	paused := false
	for _, l := range r.loops {
		if l.GateStatus().Paused {
			paused = true
			break
		}
	}
	r.HoldClock(paused)
}

// Done is closed when the run has ended, shut down and been summarised.
func (r *Run) Done() <-chan struct{} { return r.done }

// Stop ends the run early, with the same graceful shutdown as its end.
// Any goroutine; idempotent.
func (r *Run) Stop() { r.stopOnce.Do(func() { close(r.stop) }) }

// Summary returns the run's summary once Done is closed, else nil.
func (r *Run) Summary() *Summary {
	select {
	case <-r.done:
		return r.summary
	default:
		return nil
	}
}

// Err returns what made the run fail (a bind error, say), once Done.
func (r *Run) Err() error {
	<-r.done
	return r.err
}

// Start binds the servers, starts the clients and the timeline, and runs
// until the scenario's duration has passed or Stop is called.
func (r *Run) Start() error {
	if err := r.attachSinks(); err != nil {
		r.teardown()
		close(r.done)
		return err
	}
	r.coll.Start()
	if err := r.bind(); err != nil {
		r.finish(err)
		return err
	}
	r.mu.Lock()
	r.started = time.Now()
	r.mu.Unlock()
	go r.drive()
	return nil
}

// Wait runs Start and waits for the end: the headless path.
func (r *Run) Wait() (*Summary, error) {
	if err := r.Start(); err != nil {
		return nil, err
	}
	<-r.done
	return r.summary, r.err
}

// drive plays the timeline and the clients' windows, then finishes.
func (r *Run) drive() {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); r.playTimeline() }()
	go func() { defer wg.Done(); r.driveClients() }()
	go func() { defer wg.Done(); r.split.run(r.stop) }()
	if r.opts.Forever {
		<-r.stop
	} else {
		r.sleepUntil(r.sc.Duration)
	}
	r.Stop()
	wg.Wait()
	r.finish(nil)
}

// finish shuts everything down in Netty's order — clients, then the
// groups gracefully, then the wheel — and writes the summary.
func (r *Run) finish(cause error) {
	r.Stop()
	r.stopClients()
	r.mu.Lock()
	if !r.started.IsZero() {
		r.ended = time.Now()
	}
	r.mu.Unlock()
	q, to := r.sc.Shutdown.Quiet, r.sc.Shutdown.Timeout
	for _, g := range r.groups {
		g.ShutdownGracefully(q, to)
	}
	for _, g := range r.groups {
		if !g.AwaitTermination(to + 5*time.Second) {
			cause = errors.Join(cause, fmt.Errorf("group %s did not terminate within %v", g.Name(), to+5*time.Second))
		}
	}
	if r.pool != nil {
		r.pool.stop()
	}
	if r.wheel != nil {
		_, _ = r.wheel.Stop()
	}
	r.split.sample()
	r.coll.Stop()
	if err := r.files.close(); err != nil {
		cause = errors.Join(cause, err)
	}
	r.summary = r.summarise()
	r.err = cause
	close(r.done)
}

// teardown releases what New built when the run never starts.
func (r *Run) teardown() {
	for _, g := range r.groups {
		g.ShutdownGracefully(0, 0)
		g.AwaitTermination(5 * time.Second)
	}
	if r.wheel != nil {
		_, _ = r.wheel.Stop()
	}
}
