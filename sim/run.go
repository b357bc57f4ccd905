// Package sim runs scenarios on the engine: it builds the single, multi or
// master-slave topology a scenario describes, binds its server channels,
// drives its clients, plays its timeline of tasks, timers and faults, and at
// the end shuts everything down gracefully, checks the expectations and
// reports a summary. It knows scenarios and the engine, not the UI.
package sim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/reactor/wheel"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim/load"
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
	// TraceTo, if set, receives the JSONL trace as it is made, a few
	// lines at a time within traceStreamFlush, and its end line when the
	// run finishes; the run does not close it. A page showing the run
	// live reads it (sim/remote). Its Write must not block for long: the
	// collector waits for it.
	TraceTo io.Writer
	// RingSize is the per-loop event ring size (default 8192 events, or
	// traceRingSize when a trace file is recorded).
	RingSize int
	// ExternalRingSize is the size of the ring of events raised off the
	// loops; 0 gives it RingSize.
	ExternalRingSize int
	// Forever runs until Stop instead of for the scenario's duration:
	// serve in the TUI.
	Forever bool
	// Addr, if set, replaces the scenario's server address; the caller has
	// checked it (serve --allow-remote).
	Addr string
	// MaxConnections caps each server channel's open connections; 0 means
	// 20 000.
	MaxConnections int
}

// Run is one run of a scenario.
type Run struct {
	cpu      map[string]threadCPU // each loop's CPU and run-queue wait when the load stopped; finish's goroutine
	design   *designCounter       // set by CountDesign before the run starts
	cpuFrom  cpuTicks             // the machine's and this process's CPU when the run started
	otherCPU float64              // share of the CPUs other processes used while it ran; -1 unknown

	sc   *scenarios.Scenario
	opts Options
	coll *trace.Collector

	groups  []*reactor.EventLoopGroup
	loops   []*reactor.EventLoop // index i is trace loop i
	byName  map[string]*reactor.EventLoop
	index   map[*reactor.EventLoop]int // position in loops
	served  *servedBy
	sampler *sampler
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
	clients    []*load.Group // started so far
	started    int64         // on the run clock (the collector's); 0 until Start
	offloading bool
	ended      int64  // when the clients were stopped, on the run clock
	holding    bool   // HoldClock's last word: the whole run is paused
	stepping   []bool // per loop: stepped while the run is held

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
	// A flood submitted from outside raises its task_submit and wakeup
	// events off the loops, into the shared ring: it needs the room of a
	// loop's ring as much as the loop that runs the tasks does.
	return trace.Options{RingSize: o.RingSize, ExternalSize: cmp.Or(o.ExternalRingSize, o.RingSize)}
}

// New prepares a run; nothing starts until Start.
func New(sc *scenarios.Scenario, opts Options) (*Run, error) {
	r := &Run{sc: sc, opts: opts, byName: map[string]*reactor.EventLoop{}, index: map[*reactor.EventLoop]int{},
		faults:   map[*reactor.EventLoop]*loopFaults{},
		answered: map[*reactor.EventLoop]*answeredCount{},
		stop:     make(chan struct{}), done: make(chan struct{})}
	r.coll = trace.NewCollector(opts.collectorOptions())
	if err := r.build(); err != nil {
		r.Discard()
		return nil, err
	}
	r.served = newServedBy(len(r.loops), r.runNow)
	r.sampler = &sampler{r: r, nudge: make(chan sample.Reason, 1)}
	r.stepping = make([]bool, len(r.loops))
	for i, l := range r.loops {
		l.SetOnPark(func() { r.parked(i) })
	}
	ensureProcs(len(r.loops) + 1) // + the wheel's thread
	return r, nil
}

// Scenario returns the scenario being run.
func (r *Run) Scenario() *scenarios.Scenario { return r.sc }

// Collector returns the run's event collector.
func (r *Run) Collector() *trace.Collector { return r.coll }

// LoopTable is the run's trace loop table: its loops in index order, then
// the wheel's thread, which emits as a loop of its own.
func (r *Run) LoopTable() []trace.LoopInfo { return r.coll.Loops() }

// Dropped is how many events the run's rings dropped so far. It does not
// wait for the collector's drain, so a screen may ask every frame.
func (r *Run) Dropped() uint64 { return r.coll.Dropped() }

// runNow is the run clock as a time: what the clients, the sampler and
// the server's registrations read, so a hold is in none of their
// intervals.
func (r *Run) runNow() time.Time {
	c := r.coll.Clock()
	return c.Epoch().Add(time.Duration(c.Now()))
}

// TraceNow reads the clock the run's events are stamped with.
func (r *Run) TraceNow() int64 { return r.coll.Clock().Now() }

// Loops returns every loop; Loops()[i] emits as trace loop index i.
func (r *Run) Loops() []*reactor.EventLoop { return r.loops }

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

// Elapsed returns the run clock since Start: wall time less the time the
// whole run was held (HoldClock), capped at the scenario's duration.
func (r *Run) Elapsed() time.Duration {
	r.mu.Lock()
	started := r.started
	r.mu.Unlock()
	if started == 0 {
		return 0
	}
	el := time.Duration(r.coll.Clock().Now() - started)
	if r.opts.Forever {
		return el
	}
	return min(el, r.sc.Duration)
}

// activeElapsed is the run clock since Start, up to the end of the run:
// the time the clients had to send in.
func (r *Run) activeElapsed() time.Duration {
	r.mu.Lock()
	started, ended := r.started, r.ended
	r.mu.Unlock()
	switch {
	case started == 0:
		return 0
	case ended != 0:
		return time.Duration(ended - started)
	}
	return time.Duration(r.coll.Clock().Now() - started)
}

// HoldClock stops (true) or restarts (false) the run clock: the whole run
// is paused. The loops are paused at their gates by the caller; the clock
// stops the rest, which keeps its schedule on it: the scenario's timeline,
// the clients (no request is sent, and latency does not count the hold),
// the wheel's thread and the last second's sampler. Resuming continues
// every schedule as if no time had passed. A loop stopped on its own (a
// breakpoint, a step while the others run) does not hold the clock.
// Any goroutine.
func (r *Run) HoldClock(hold bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holding = hold
	clear(r.stepping)
	r.coll.Clock().Hold(hold)
	r.sampler.soon(sample.Pause)
}

// Sample asks the run's sampler for a sample soon: a loop's gate was told
// to pause or step, and the stream should say so. It never waits. Any
// goroutine.
func (r *Run) Sample() { r.sampler.soon(sample.Step) }

// ClockHeld reports whether the run clock is held: the whole run is
// paused, whether or not any loop can park (a loop shutting down never
// parks at its gate; it waits on the clock). Any goroutine.
func (r *Run) ClockHeld() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holding
}

// Step runs step, a step of loop l's gate (Step or StepIteration). While
// the whole run is held, the clock runs for the step and stands still
// again as soon as l parks: the picture gains exactly what the stepped
// phase took. Any goroutine.
func (r *Run) Step(l *reactor.EventLoop, step func()) {
	r.mu.Lock()
	if i, ok := r.index[l]; ok && r.holding {
		r.stepping[i] = true
		r.coll.Clock().Hold(false)
	}
	r.mu.Unlock()
	step()
}

// parked is loop i's gate telling that it parked: the end of a step taken
// while the run is held, which holds the clock again once no stepped loop
// is still running. On the loop thread.
func (r *Run) parked(i int) {
	r.sampler.soon(sample.Step)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.holding || !r.stepping[i] {
		return
	}
	r.stepping[i] = false
	for _, s := range r.stepping {
		if s {
			return
		}
	}
	r.coll.Clock().Hold(true)
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
		r.Discard()
		close(r.done)
		return err
	}
	r.coll.Start()
	if err := r.bind(); err != nil {
		r.finish(err)
		return err
	}
	r.cpuFrom = readCPUTicks()
	r.mu.Lock()
	r.started = max(r.coll.Clock().Now(), 1)
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
	go func() { defer wg.Done(); r.sampler.run(r.stop) }()
	if r.opts.Forever {
		<-r.stop
	} else if r.sleepUntil(r.sc.Duration) {
		r.waitOutStops()
	}
	r.Stop()
	wg.Wait()
	r.finish(nil)
}

// endPause is the gate reason of the loops a run's end pauses.
const endPause = "the run's end: space ends it"

// waitOutStops keeps the end of a run from taking away a loop the learner
// stopped on its own (a breakpoint, a step) while the others ran: the
// whole run is paused there instead, as space pauses it, the stopped loop
// where it stood, and it ends once the learner lets it run on.
func (r *Run) waitOutStops() {
	stopped := false
	for _, l := range r.Loops() {
		if l.GateStatus().Paused && l.State() < trace.StateShuttingDown {
			stopped = true
		}
	}
	if !stopped {
		return
	}
	r.HoldClock(true)
	for _, l := range r.Loops() {
		if !l.GateStatus().Paused {
			l.PauseRun(endPause)
		}
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for r.ClockHeld() {
		select {
		case <-r.stop:
			return
		case <-tick.C:
		}
	}
}

// finish shuts everything down in Netty's order — clients, then the
// groups gracefully, then the wheel — and writes the summary.
func (r *Run) finish(cause error) {
	r.Stop()
	// The loops' quiet periods and the wheel's stop read the run clock:
	// a run held when it is stopped ends on a running one.
	r.HoldClock(false)
	r.stopClients()
	r.cpu = r.sampleCPU()
	r.otherCPU = otherShare(r.cpuFrom, readCPUTicks(), r.Elapsed())
	r.mu.Lock()
	if r.started != 0 {
		r.ended = r.coll.Clock().Now()
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
	for _, l := range r.loops {
		// A loop that stopped on its own (its io_uring ring could not be
		// set up) served part of the run at best: a runtime failure.
		if err := l.Err(); err != nil {
			cause = errors.Join(cause, err)
		}
	}
	if r.pool != nil {
		r.pool.stop()
	}
	if r.wheel != nil {
		_, _ = r.wheel.Stop()
	}
	r.sampler.take(sample.End)
	r.coll.Stop()
	if err := r.files.close(); err != nil {
		cause = errors.Join(cause, err)
	}
	r.summary = r.summarise()
	r.err = cause
	close(r.done)
}

// Discard releases what New built, for a run that will not start.
func (r *Run) Discard() {
	for _, g := range r.groups {
		g.ShutdownGracefully(0, 0)
		g.AwaitTermination(5 * time.Second)
	}
	if r.wheel != nil {
		_, _ = r.wheel.Stop()
	}
}
