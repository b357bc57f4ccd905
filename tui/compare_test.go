package tui

import (
	"github.com/reactorviz/reactorviz/reactor"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// compareTopology is each model's loop table, as sim builds them.
var compareTopology = map[string][]trace.LoopInfo{
	"single": {{Name: "reactor-0", Group: "reactor"}},
	"multi":  {{Name: "boss-0", Group: "boss"}, {Name: "worker-0", Group: "worker"}, {Name: "worker-1", Group: "worker"}},
	"master-slave": {{Name: "boss-0", Group: "boss"}, {Name: "boss-1", Group: "boss"},
		{Name: "worker-0", Group: "worker"}, {Name: "worker-1", Group: "worker"}},
}

// compareNumbers are the clients' numbers each fake model reports.
var compareNumbers = map[string]fakeClients{
	"single":       {Connections: 16, Requests: 9000, P50us: 240, P99us: 2100},
	"multi":        {Connections: 16, Requests: 12000, P50us: 110, P99us: 1300},
	"master-slave": {Connections: 16, Requests: 12300, P50us: 95, P99us: 1100},
}

type compareFixture struct {
	t         *testing.T
	endAtOnce bool                 // runs end as soon as they start
	onStop    func(f *fakeSession) // each run's Stop hook
	started   func(f *fakeSession) // called once a run has started, on the runner's goroutine
	mu        sync.Mutex
	runs      []*fakeSession
}

func (cf *compareFixture) newRun(m string, sink trace.Sink) (Session, error) {
	table := compareTopology[m]
	f := newFakeSessionWith(cf.t, "multi-reactor", scenarios.Model(m), sink, table)
	f.elapsed, f.duration, f.clients = 3*time.Second, 3*time.Second, compareNumbers[m]
	f.onStop = cf.onStop
	f.onStart = func(f *fakeSession) {
		s := &script{table: table}
		s.at(1)
		for i, l := range table {
			s.started(l.Name, int64(5000+i))
			// Each iteration spends 3 ms in io: worker loops show load.
			for range 2 + 2*i {
				s.iteration(l.Name, 1, "echo")
			}
			s.ev(l.Name, trace.KindTaskSubmit, func(e *trace.Event) { e.A, e.B, e.Str = 900, int64(i+1), "queued" })
		}
		for i := range s.events {
			if s.events[i].Kind == trace.KindIOEnd {
				s.events[i].B = 300e6
			}
		}
		f.feed(s.events...)
		if cf.started != nil {
			cf.started(f)
		}
		if cf.endAtOnce {
			f.finish()
		}
	}
	cf.mu.Lock()
	cf.runs = append(cf.runs, f)
	cf.mu.Unlock()
	return f, nil
}

func (cf *compareFixture) run(i int) *fakeSession {
	cf.mu.Lock()
	defer cf.mu.Unlock()
	if i >= len(cf.runs) {
		return nil
	}
	return cf.runs[i]
}

func TestCompareScreen(t *testing.T) {
	checkGoroutines(t)
	cf := &compareFixture{t: t, endAtOnce: true}
	hs := newHarness(t, 100, 30, func(o Options) error { return runCompare(AxisModel, compare.Models, cf.newRun, nil, o) })
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "all models done") }, "every model to finish")
	golden(t, "compare_done", hs.frame())
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

func TestCompareSkipAndQuit(t *testing.T) {
	checkGoroutines(t)
	cf := &compareFixture{t: t}
	hs := newHarness(t, 100, 30, func(o Options) error { return runCompare(AxisModel, nil, cf.newRun, nil, o) })
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "running single") }, "single to run")
	if got := hs.frame(); !strings.Contains(got, "▶ running 00:03.0/00:03.0") || !strings.Contains(got, "waiting") {
		t.Errorf("single running, the others waiting:\n%s", got)
	}
	hs.press(runeEv('s'))
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "running multi") }, "multi after skipping single")
	if r := cf.run(0); !r.stopped.Load() {
		t.Error("s did not stop the single run")
	}
	if got := hs.frame(); !strings.Contains(got, "■ stopped early") {
		t.Errorf("the skipped column should say so:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
	if r := cf.run(1); !r.stopped.Load() {
		t.Error("q did not stop the running model")
	}
	if r := cf.run(2); r != nil {
		t.Error("a model started after quit")
	}
}

// TestCompareSkipDoesNotCarryOver: a second s pressed while the skipped
// model shuts down must not skip the next model too.
func TestCompareSkipDoesNotCarryOver(t *testing.T) {
	checkGoroutines(t)
	stopping, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	cf := &compareFixture{t: t}
	// The first model's graceful shutdown lasts until the test releases it.
	cf.onStop = func(f *fakeSession) {
		if f.sc.Model == "single" {
			once.Do(func() {
				close(stopping)
				<-release
			})
		}
	}
	// What the runner holds for the next model when multi starts: a skip
	// left over would stop it the moment the runner waits on it.
	var runner atomic.Pointer[compareRunner]
	leftover := make(chan int, 1)
	cf.started = func(f *fakeSession) {
		if f.sc.Model == "multi" {
			leftover <- len(runner.Load().skipCh)
		}
	}
	hs := newHarness(t, 100, 30, func(o Options) error { return runCompare(AxisModel, nil, cf.newRun, nil, o) })
	runner.Store(hs.sh.v.(*compareView).run)
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "running single") }, "single to run")
	hs.press(runeEv('s'))
	select {
	case <-stopping:
	case <-time.After(10 * time.Second):
		t.Fatal("s did not stop the single run")
	}
	hs.press(runeEv('s'))
	close(release)
	select {
	case n := <-leftover:
		if n != 0 {
			t.Error("the second s, pressed while single was stopping, is left for multi")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("multi did not start")
	}
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "running multi") }, "multi to show as running")
	if cf.run(1).stopped.Load() || cf.run(2) != nil {
		t.Error("the second s, pressed while single was stopping, skipped multi too")
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// Once every model has run, the screen shows the verdict its judge
// computes from their summaries; until then it says it waits for them.
func TestCompareVerdict(t *testing.T) {
	checkGoroutines(t)
	cf := &compareFixture{t: t, endAtOnce: true}
	judged := make(chan int, 1)
	judge := func(s []*sim.Summary) compare.Judgement {
		judged <- len(s)
		return compare.Judgement{Verdict: "multi serves 1.3× single's rate at a fifth of its p99",
			Causes: []string{"single's one loop was busy 99%"},
			Checks: []scenarios.Result{{Expr: "single.p99_us >= 2 * multi.p99_us", OK: true}, {Expr: "multi.rps >= 1.2 * single.rps", OK: false}}}
	}
	hs := newHarness(t, 100, 40, func(o Options) error { return runCompare(AxisModel, compare.Models, cf.newRun, judge, o) })
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "all models done") }, "every model to finish")
	got := hs.frame()
	for _, want := range []string{"verdict: multi serves 1.3× single's rate at a fifth of its p99", "why they differ:",
		"· single's one loop was busy 99%", "compare clauses (1 of 2 hold):", "ok single.p99_us >= 2 * multi.p99_us",
		"FAIL multi.rps >= 1.2 * single.rps"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q:\n%s", want, got)
		}
	}
	// The expect column tallies the clauses that name each model: single
	// is named by both (one holds), multi by both, master-slave by none.
	for _, row := range strings.Split(got, "\n") {
		f := strings.Fields(row)
		if len(f) < 9 || !slices.Contains(compare.Models, f[0]) {
			continue
		}
		want := map[string]string{"single": "1/2", "multi": "1/2", "master-slave": "-"}[f[0]]
		if f[len(f)-1] != want {
			t.Errorf("%s's expect cell %q, want %q", f[0], f[len(f)-1], want)
		}
	}
	if n := <-judged; n != len(compare.Models) {
		t.Errorf("judged %d summaries, want %d", n, len(compare.Models))
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// Once every model has run, p replays their recordings in lockstep: a
// timeline per model on one clock, which → moves for all of them.
func TestCompareLockstep(t *testing.T) {
	checkGoroutines(t)
	cf := &compareFixture{t: t, endAtOnce: true}
	hs := newHarness(t, 100, 30, func(o Options) error { return runCompare(AxisModel, compare.Models, cf.newRun, nil, o) })
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "all models done") }, "every model to finish")
	hs.press(runeEv('p'))
	got := hs.frame()
	for _, m := range compare.Models {
		if !strings.Contains(got, "─ "+m+" ") {
			t.Errorf("no %s timeline in the lockstep replay:\n%s", m, got)
		}
	}
	status := func() string {
		for _, line := range strings.Split(hs.frame(), "\n") {
			if i := strings.Index(line, "lockstep replay · "); i >= 0 {
				return line[i:]
			}
		}
		t.Fatalf("no lockstep status:\n%s", hs.frame())
		return ""
	}
	hs.press(keyEv(tcell.KeyHome))
	start := status()
	hs.press(runeEv('z'), runeEv('z'), runeEv('z'), keyEv(tcell.KeyRight))
	if got := status(); got == start || !strings.Contains(got, "100ms window") {
		t.Errorf("zoom and → did not move the lockstep replay: %q, then %q", start, got)
	}
	hs.press(runeEv('p'))
	if got := hs.frame(); strings.Contains(got, "lockstep replay") || !strings.Contains(got, "results") {
		t.Errorf("p did not go back to the columns:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// On a machine too busy for the clients' figures to rank the models, the
// columns show each loop's CPU per request and the capacity with a core
// per loop, and the verdict offers the built-in recording one key away:
// R opens it in the lockstep replay, labelled as not this machine's runs.
func TestCompareBusyMachineOffersTheRecording(t *testing.T) {
	if !reactor.Live {
		t.Skip("the compare screen's runs need the live engine (Linux, without -tags nolive)")
	}
	checkGoroutines(t)
	cf := &compareFixture{t: t, endAtOnce: true}
	cf.started = func(f *fakeSession) {
		s := &sim.Summary{Model: string(f.sc.Model), CapacityRPS: 2400}
		for _, l := range compareTopology[string(f.sc.Model)] {
			ls := sim.LoopSummary{Name: l.Name, Group: l.Group, LoopCPU: &sim.LoopCPU{CPUNanos: 1e9}}
			if l.Group != "boss" {
				ls.CPUNanosPerRequest = 410_000
			}
			s.Loops = append(s.Loops, ls)
		}
		s.Clients.LatencyUS.WorstWindow = &sim.WorstWindow{P99US: 655_400, AtNS: 1_250_000_000}
		f.summary = s
	}
	judge := func([]*sim.Summary) compare.Judgement {
		return compare.Judgement{Verdict: "the machine was busy: ranked instead on each loop's own CPU per request", MachineBusy: true}
	}
	rec := loopRecording("x", "reactor-0", "reactor", 10_000, 0)
	recorded := func(m string) (*jsonl.Trace, bool) {
		return &jsonl.Trace{Header: jsonl.Header{Scenario: "cpu-bound", Model: m, Loops: rec.loops}, Events: rec.events}, true
	}
	hs := newHarness(t, 120, 45, func(o Options) error { return runCompare(AxisModel, compare.Models, cf.newRun, judge, o) },
		func(o *Options) { o.Recorded = recorded })
	waitFor(t, func() bool { return strings.Contains(hs.frame(), "all models done") }, "every model to finish")
	got := hs.frame()
	for _, want := range []string{"410µs/req", "2400 req/s, a core a loop", "worst p99 655ms @1.25s", "one loop runs every handler",
		"2 workers share the handlers", "R: the same comparison recorded on a quiet machine"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q:\n%s", want, got)
		}
	}
	hs.press(runeEv('R'))
	got = hs.frame()
	if !strings.Contains(got, "built-in recordings, made on a quiet machine") || !strings.Contains(got, "lockstep replay") {
		t.Errorf("R did not open the quiet recording, labelled:\n%s", got)
	}
	hs.press(runeEv('R'))
	if got := hs.frame(); strings.Contains(got, "lockstep replay") {
		t.Errorf("R again did not go back to the columns:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}
