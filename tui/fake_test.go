package tui

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeSession is a deterministic Session: real but never-started loops (so
// the step-gate API behaves as the engine's), a fixed clock, and events the
// test feeds into the sink itself.
type fakeSession struct {
	sc        *scenarios.Scenario
	loops     []*reactor.EventLoop
	table     []trace.LoopInfo
	sink      trace.Sink
	elapsed   time.Duration
	duration  time.Duration
	clients   fakeClients
	summary   *sim.Summary // what Summary returns; nil: an empty one
	threshold int
	onStart   func(f *fakeSession) // feeds events, may end the run
	onStop    func(f *fakeSession) // runs in Stop before the run ends
	startErr  error
	fired     []sim.Fired  // the timeline actions it reports as played
	addrs     []string     // where it serves
	held      atomic.Int64 // ns the run clock was held, for ClockMap
	holding   atomic.Bool  // HoldClock's last word
	steps     atomic.Int64 // steps taken through Step
	traceNow  atomic.Int64 // the latest event fed: the fake's trace clock

	sampleMu sync.Mutex // one sample at a time; guards fired

	done     chan struct{}
	doneOnce sync.Once
	started  atomic.Bool
	stopped  atomic.Bool
}

// fakeTopology is boss-0, worker-0..3 and the wheel's trace index.
var fakeTopology = []trace.LoopInfo{
	{Name: "boss-0", Group: "boss"},
	{Name: "worker-0", Group: "worker"},
	{Name: "worker-1", Group: "worker"},
	{Name: "worker-2", Group: "worker"},
	{Name: "worker-3", Group: "worker"},
	{Name: "wheel", Group: "wheel"},
}

func newFakeSession(t testing.TB, name string, m scenarios.Model, sink trace.Sink) *fakeSession {
	return newFakeSessionWith(t, name, m, sink, fakeTopology)
}

// newFakeSessionWith builds a fake of the given loop table; a loop of
// group "wheel" stands for the wheel thread and gets no EventLoop.
func newFakeSessionWith(t testing.TB, name string, m scenarios.Model, sink trace.Sink, table []trace.LoopInfo) *fakeSession {
	t.Helper()
	f := &fakeSession{
		sc:   &scenarios.Scenario{Name: name, Model: m},
		sink: sink, elapsed: 2500 * time.Millisecond, duration: 8 * time.Second,
		threshold: 512, done: make(chan struct{}), table: table,
		clients: fakeClients{Connections: 8, Requests: 2000, P50us: 85, P99us: 900},
	}
	for _, info := range table {
		if info.Group == "wheel" {
			continue
		}
		l, err := reactor.NewEventLoop(info.Name, info.Group, reactor.Config{})
		if err != nil {
			t.Fatalf("NewEventLoop: %v", err)
		}
		f.loops = append(f.loops, l)
	}
	return f
}

func (f *fakeSession) Start() error {
	if f.startErr != nil {
		return f.startErr
	}
	f.started.Store(true)
	if f.onStart != nil {
		f.onStart(f)
	}
	return nil
}

func (f *fakeSession) Done() <-chan struct{} { return f.done }

// Stop ends the run as the engine would: every loop shuts down, and Done
// closes.
func (f *fakeSession) Stop() {
	f.stopped.Store(true)
	if f.onStop != nil {
		f.onStop(f)
	}
	f.finish()
}

func (f *fakeSession) finish() {
	f.doneOnce.Do(func() {
		for _, l := range f.loops {
			l.ShutdownGracefully(0, 0)
		}
		close(f.done)
	})
}

func (f *fakeSession) Elapsed() time.Duration        { return f.elapsed }
func (f *fakeSession) Duration() time.Duration       { return f.duration }
func (f *fakeSession) Scenario() *scenarios.Scenario { return f.sc }
func (f *fakeSession) Loops() []Loop {
	out := make([]Loop, len(f.loops))
	for i, l := range f.loops {
		out[i] = l
	}
	return out
}
func (f *fakeSession) RebuildThreshold() int { return f.threshold }
func (f *fakeSession) Summary() *sim.Summary {
	if f.summary != nil {
		return f.summary
	}
	return &sim.Summary{}
}
func (f *fakeSession) ClockMap() func(int64) time.Duration {
	held := f.held.Load()
	return func(t int64) time.Duration { return time.Duration(t - held) }
}
func (f *fakeSession) Addrs() []string { return f.addrs }
func (f *fakeSession) Answered() int64 { return 42 }
func (f *fakeSession) TraceNow() int64 { return f.traceNow.Load() }
func (f *fakeSession) HoldClock(hold bool) {
	f.holding.Store(hold)
	f.sample(sample.Pause)
}
func (f *fakeSession) ClockHeld() bool { return f.holding.Load() }
func (f *fakeSession) Sample()         { f.sample(sample.Step) }
func (f *fakeSession) Step(_ int, step func()) {
	f.steps.Add(1)
	step()
	f.sample(sample.Step)
}
func (f *fakeSession) LoopTable() []trace.LoopInfo { return loopInfos(f.loops) }

// feed hands events to the sink; the fake's trace clock stands at the
// latest, as a real run's is a moment after it.
func (f *fakeSession) feed(events ...trace.Event) {
	for _, e := range events {
		f.traceNow.Store(max(f.traceNow.Load(), e.Time))
	}
	f.sink.Consume(events)
	f.sample(sample.Tick)
}

// sample puts a sample of the fake's figures in its stream, as a run's
// sampler does: its loops' counters and gates, its clients, the actions
// it reports as played.
func (f *fakeSession) sample(why sample.Reason) {
	rs, ok := f.sink.(trace.RecordSink)
	if !ok {
		return
	}
	// The UI's goroutine (a pause, a step) and the feeding one both come
	// here, as both reach a run's sampler.
	f.sampleMu.Lock()
	defer f.sampleMu.Unlock()
	s := &sample.Sample{Time: f.traceNow.Load(), Reason: why, Elapsed: int64(f.elapsed), Active: int64(f.elapsed),
		Held: f.holding.Load()}
	for i, l := range f.loops {
		g := l.GateStatus()
		s.Loops = append(s.Loops, sample.Loop{Index: i, TID: int64(l.TID()), State: l.State(), Stats: l.Stats(),
			IORatio: l.IORatio(), Gate: sample.Gate{Paused: g.Paused, Waiting: g.Waiting, Phase: g.Phase, Reason: g.Reason, Break: g.Break}})
	}
	c := f.clients
	s.Clients = sample.Clients{Connections: c.Connections, Requests: c.Requests, Errors: c.Errors}
	s.Clients.Latency = fakeHist(c.Requests, c.P50us, c.P99us)
	for _, fd := range f.fired {
		for i, a := range f.sc.Timeline {
			if reflect.DeepEqual(a, fd.Action) {
				s.Fired = append(s.Fired, sample.Fired{Action: i, At: int64(fd.At), Loops: fd.Loops})
				break
			}
		}
	}
	f.fired = nil // each goes in the stream once
	rs.ConsumeRecord(s)
}

// fakeClients are the client figures a fake run reports in its samples.
type fakeClients struct {
	Connections, Requests, Errors int64
	P50us, P99us                  float64
}

// fakeHist is a histogram of n latencies whose p50 and p99 are about the
// given values.
func fakeHist(n int64, p50, p99 float64) sample.Hist {
	if n <= 0 {
		return sample.Hist{}
	}
	lo, hi := uint64(sample.BucketOf(uint64(p50))), uint64(sample.BucketOf(uint64(p99)))
	slow := uint64(n) / 50
	if lo == hi {
		return sample.Hist{N: uint64(n), Counts: []uint64{lo, uint64(n)}}
	}
	return sample.Hist{N: uint64(n), Counts: []uint64{lo, uint64(n) - slow, hi, slow}}
}

// loopInfos is the loop table of loops without a wheel thread.
func loopInfos(loops []*reactor.EventLoop) []trace.LoopInfo {
	var t []trace.LoopInfo
	for _, l := range loops {
		t = append(t, trace.LoopInfo{Name: l.Name(), Group: l.Group()})
	}
	return t
}

func loopIndex(table []trace.LoopInfo, name string) uint16 {
	for j, l := range table {
		if l.Name == name {
			return uint16(j)
		}
	}
	return 0
}

// script builds events for one loop with a running clock (ms).
type script struct {
	table  []trace.LoopInfo
	events []trace.Event
	now    int64
}

func (s *script) at(ms int64) *script { s.now = ms * 1e6; return s }

func (s *script) ev(loop string, k trace.Kind, set func(e *trace.Event)) *script {
	e := trace.Event{Time: s.now, Loop: loopIndex(s.table, loop), Kind: k}
	if set != nil {
		set(&e)
	}
	s.events = append(s.events, e)
	s.now += 10_000 // 10 µs apart, so the log reads in order
	return s
}

func (s *script) started(loop string, tid int64) *script {
	return s.ev(loop, trace.KindState, func(e *trace.Event) {
		e.A, e.B, e.C = int64(trace.StateNotStarted), int64(trace.StateStarted), tid
	})
}

// iteration is one select → io → tasks turn with the given tasks run.
func (s *script) iteration(loop string, ready int64, tasks ...string) *script {
	s.ev(loop, trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 1e9 })
	s.ev(loop, trace.KindSelectEnd, func(e *trace.Event) { e.A, e.B, e.C = ready, 2e6, 1 })
	s.ev(loop, trace.KindIOBegin, nil)
	s.ev(loop, trace.KindIOEnd, func(e *trace.Event) { e.A, e.B = ready, 40_000 })
	if len(tasks) > 0 {
		s.ev(loop, trace.KindTasksBegin, func(e *trace.Event) { e.A, e.B = int64(len(tasks)), 40_000 })
		for i, name := range tasks {
			s.ev(loop, trace.KindTaskRun, func(e *trace.Event) { e.A, e.B, e.Str = int64(100+i), 5000, name })
		}
		s.ev(loop, trace.KindTasksEnd, func(e *trace.Event) { e.A, e.B = int64(len(tasks)), 12_000 })
	}
	return s
}

// tourEvents is a short, fixed picture of the tour: the boss accepted
// connections and handed them to workers; worker-0 has queued tasks and
// scheduled timers; worker-1 suffered premature selects.
func tourEvents(f *fakeSession) []trace.Event { return tourScript().events }

func tourScript() *script {
	s := &script{table: fakeTopology}
	s.at(1).started("boss-0", 4101)
	s.ev("boss-0", trace.KindRegister, func(e *trace.Event) { e.A, e.B, e.C = 1, 7, 1 })
	for i, w := range []string{"worker-0", "worker-1", "worker-2"} {
		s.at(int64(10 + i))
		s.ev("boss-0", trace.KindAccept, func(e *trace.Event) { e.A, e.B, e.C = int64(2+i), int64(9+i), 40000 })
		s.ev(w, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B, e.Flag, e.Str = 100, 1, true, "register" })
		s.ev(w, trace.KindWakeup, func(e *trace.Event) { e.Flag, e.Str = true, "boss-0" })
		s.started(w, int64(4110+i))
		s.iteration(w, 0, "register")
		s.ev(w, trace.KindRegister, func(e *trace.Event) { e.A, e.B, e.C = int64(2+i), int64(9+i), 0x2001 })
	}
	s.at(200)
	for i := range 5 {
		s.iteration("worker-0", 1)
		s.ev("worker-0", trace.KindRead, func(e *trace.Event) { e.A, e.B, e.C = 2, 9, 64 })
		s.ev("worker-0", trace.KindWrite, func(e *trace.Event) { e.A, e.B, e.C = 2, 9, 64 })
		s.ev("worker-0", trace.KindTaskSubmit, func(e *trace.Event) {
			e.A, e.B, e.Flag, e.Str = int64(10+i), int64(i+1), true, "flood"
		})
		s.ev("worker-0", trace.KindWakeup, func(e *trace.Event) { e.Str = "external" })
	}
	s.ev("worker-0", trace.KindTimerSchedule, func(e *trace.Event) { e.A, e.B, e.C, e.Str = 1, 2900e6, 0, "idle-check" })
	s.ev("worker-0", trace.KindTimerSchedule, func(e *trace.Event) { e.A, e.B, e.C, e.Str = 2, 2600e6, 500e6, "heartbeat" })
	s.at(400)
	for range 3 {
		s.ev("worker-1", trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 1e9 })
		s.ev("worker-1", trace.KindSelectEnd, func(e *trace.Event) { e.C, e.Flag = 300, true })
	}
	s.ev("worker-1", trace.KindInject, func(e *trace.Event) { e.A, e.Str = 30, "spurious-wakeups" })
	s.ev("worker-1", trace.KindSelectEnd, func(e *trace.Event) { e.C, e.Flag = 301, true })
	s.at(2400)
	s.iteration("worker-2", 1)
	s.ev("worker-0", trace.KindSelectBegin, func(e *trace.Event) { e.Str, e.A = "select", 200e6 })
	return s
}

// harness runs a screen on a simulation screen with the ticker off; the
// test draws frames and presses keys through the app's own queue.
type harness struct {
	t    testing.TB
	scr  tcell.SimulationScreen
	sh   *shell
	done chan error
}

// startWait bounds how long a screen may take to start: a replay reads
// and folds its recording first, which under -race on a loaded 2-core
// machine has taken over 10 s.
const startWait = 60 * time.Second

func newHarness(t testing.TB, w, h int, start func(o Options) error, adjust ...func(*Options)) *harness {
	t.Helper()
	scr := tcell.NewSimulationScreen("UTF-8")
	ready := make(chan *shell, 1)
	o := Options{Screen: scr, NoTicker: true, NoColor: true, StopTimeout: 5 * time.Second}
	for _, f := range adjust {
		f(&o)
	}
	o.ready = func(sh *shell) { ready <- sh }
	hs := &harness{t: t, scr: scr, done: make(chan error, 1)}
	go func() { hs.done <- start(o) }()
	select {
	case hs.sh = <-ready:
	case err := <-hs.done:
		t.Fatalf("screen ended before it ran: %v", err)
	case <-time.After(startWait):
		t.Fatal("screen did not start")
	}
	// SetScreen initialised the screen at its default size; resize now.
	scr.SetSize(w, h)
	return hs
}

// frame refreshes, draws and returns the screen as text. It draws twice:
// a query is sized by the draw before it, and the screen may have been
// resized since.
func (h *harness) frame() string {
	h.sh.app.QueueUpdateDraw(func() { h.sh.v.refresh() })
	h.sh.app.QueueUpdateDraw(func() { h.sh.v.refresh() })
	var out string
	h.sh.app.QueueUpdate(func() { out = screenText(h.scr) })
	return out
}

// press sends keys through the app's input capture on the UI goroutine.
func (h *harness) press(keys ...*tcell.EventKey) {
	for _, k := range keys {
		h.sh.app.QueueUpdateDraw(func() { h.sh.handleKey(k) })
	}
}

func (h *harness) resize(w, hh int) {
	h.sh.app.QueueUpdate(func() { h.scr.SetSize(w, hh) })
}

// quit presses q and waits for the screen to return.
func (h *harness) quit() error {
	h.press(runeEv('q'))
	select {
	case err := <-h.done:
		return err
	case <-time.After(20 * time.Second):
		h.t.Fatal("the screen did not quit")
		return nil
	}
}

func runeEv(r rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone) }
func keyEv(k tcell.Key) *tcell.EventKey {
	return tcell.NewEventKey(k, 0, tcell.ModNone)
}

// screenText returns the simulation screen's cells as lines, trailing
// spaces trimmed.
func screenText(scr tcell.SimulationScreen) string {
	cells, w, h := scr.GetContents()
	var b strings.Builder
	for y := range h {
		var line strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				line.WriteByte(' ')
				continue
			}
			line.WriteString(string(c.Runes))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// golden compares got with testdata/name.golden, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("screen differs from %s (go test ./tui -update rewrites it)\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

// checkGoroutines is the shared leak check: goroutines and descriptors.
var checkGoroutines = leaktest.Check

// waitFor polls cond until it holds, for effects of background goroutines.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	leaktest.WaitFor(t, what, cond)
}

// A long caption's page is picked by the wall clock; tests draw its first.
func init() { captionClock = func() time.Time { return time.Unix(0, 0) } }
