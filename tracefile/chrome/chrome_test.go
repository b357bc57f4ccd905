package chrome

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

var update = flag.Bool("update", false, "rewrite golden files")

var loops = []trace.LoopInfo{
	{Name: "boss-0", Group: "boss"}, {Name: "worker-0", Group: "worker"}, {Name: "worker-1", Group: "worker"}, {Name: "wheel", Group: "wheel"},
}

const (
	boss    = 0
	worker0 = 1
	worker1 = 2
	wheel   = 3
)

// iteration is one accept on the boss handed to worker w as a register task.
func iteration(t0 int64, w uint16, ch int64) []trace.Event {
	return []trace.Event{
		{Time: t0, Loop: boss, Kind: trace.KindSelectBegin, A: 1_000_000_000, Str: "select"},
		{Time: t0 + 1000, Loop: boss, Kind: trace.KindSelectEnd, A: 1, B: 1000, C: 1},
		{Time: t0 + 1100, Loop: boss, Kind: trace.KindIOBegin},
		{Time: t0 + 1500, Loop: boss, Kind: trace.KindAccept, A: ch, B: 10 + ch, C: 8080},
		{Time: t0 + 1600, Loop: w, Kind: trace.KindTaskSubmit, A: ch, B: 1, Flag: true, Str: "register"},
		{Time: t0 + 1650, Loop: w, Kind: trace.KindWakeup, Flag: true, Str: "boss-0"},
		{Time: t0 + 1700, Loop: boss, Kind: trace.KindIOEnd, A: 1, B: 600},
		{Time: t0 + 1800, Loop: w, Kind: trace.KindSelectEnd, A: 0, B: 5000, C: 1},
		{Time: t0 + 1900, Loop: w, Kind: trace.KindTasksBegin, A: 1, B: -1},
		{Time: t0 + 2000, Loop: w, Kind: trace.KindRegister, A: ch, B: 10 + ch, C: 1},
		{Time: t0 + 2100, Loop: w, Kind: trace.KindTaskRun, A: ch, B: 150, Str: "register"},
		{Time: t0 + 2200, Loop: w, Kind: trace.KindTasksEnd, A: 1, B: 300},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update to accept):\n%s", path, got)
	}
}

func TestGoldenSmall(t *testing.T) {
	var buf bytes.Buffer
	x := New(&buf, Options{Process: "multi", Loops: Loops(loops)})
	x.Consume([]trace.Event{
		{Time: 100, Loop: boss, Kind: trace.KindState, A: int64(trace.StateNotStarted), B: int64(trace.StateStarted)},
		{Time: 200, Loop: worker0, Kind: trace.KindSelectBegin, A: 1_000_000_000, Str: "select"},
	})
	x.Consume(iteration(1000, worker0, 7))
	x.Consume([]trace.Event{
		{Time: 3500, Loop: wheel, Kind: trace.KindWheelTick, A: 1, B: 1, C: 0, D: 2},
		{Time: 3600, Loop: worker0, Kind: trace.KindSelectBegin, A: 0, Str: "select_now"},
	})
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	d := check(t, buf.Bytes())
	golden(t, "small.json", buf.Bytes())

	// What the golden file shows, stated as facts too.
	var names []string
	for _, e := range d.TraceEvents {
		if e.Ph == "X" && *e.Tid == 100002 {
			names = append(names, e.Name)
		}
	}
	if want := []string{"select", "tasks", "register", "select_now"}; !slices.Equal(names, want) {
		t.Errorf("worker-0 slices %v, want %v", names, want)
	}
}

func TestSlices(t *testing.T) {
	type want struct {
		name         string
		ts, dur      int64 // ns
		unterminated bool
	}
	tests := []struct {
		name   string
		events []trace.Event
		want   []want // X slices on loop 0, in output order
	}{
		{
			name: "end without begin is skipped",
			events: []trace.Event{
				{Time: 10, Kind: trace.KindIOEnd, A: 1},
				{Time: 20, Kind: trace.KindIOBegin},
				{Time: 30, Kind: trace.KindIOEnd},
			},
			want: []want{{"io", 20, 10, false}},
		},
		{
			name: "begin without end closes at the last timestamp",
			events: []trace.Event{
				{Time: 10, Kind: trace.KindTasksBegin, A: 3},
				{Time: 50, Loop: 1, Kind: trace.KindWakeup},
			},
			want: []want{{"tasks", 10, 40, true}},
		},
		{
			name: "phase still open when its loop terminates ends there",
			events: []trace.Event{
				{Time: 10, Kind: trace.KindTasksBegin, A: 3},
				{Time: 30, Kind: trace.KindState, B: int64(trace.StateTerminated)},
				{Time: 50, Loop: 1, Kind: trace.KindWakeup},
			},
			want: []want{{"tasks", 10, 20, true}},
		},
		{
			name: "phase begun while another is open ends it",
			events: []trace.Event{
				{Time: 10, Kind: trace.KindSelectBegin, Str: "select"},
				{Time: 20, Kind: trace.KindIOBegin},
				{Time: 30, Kind: trace.KindIOEnd},
				{Time: 35, Kind: trace.KindSelectEnd}, // its begin was ended by io_begin
			},
			want: []want{{"select", 10, 10, true}, {"io", 20, 10, false}},
		},
		{
			name: "rebuild nests in select",
			events: []trace.Event{
				{Time: 10, Kind: trace.KindSelectBegin, Str: "select"},
				{Time: 20, Kind: trace.KindRebuildBegin, A: 512},
				{Time: 30, Kind: trace.KindRebuildEnd, A: 512, B: 3},
				{Time: 40, Kind: trace.KindSelectEnd, C: 1},
			},
			want: []want{{"select", 10, 30, false}, {"rebuild", 20, 10, false}},
		},
		{
			name: "end closes slices opened inside it whose ends were lost",
			events: []trace.Event{
				{Time: 10, Kind: trace.KindSelectBegin},
				{Time: 20, Kind: trace.KindRebuildBegin},
				{Time: 40, Kind: trace.KindSelectEnd},
			},
			want: []want{{"select", 10, 30, false}, {"rebuild", 20, 20, true}},
		},
		{
			name: "tasks nest in their phase and a long task is cut to it",
			events: []trace.Event{
				{Time: 100, Kind: trace.KindTasksBegin},
				{Time: 150, Kind: trace.KindTaskRun, B: 500, Str: "slow"}, // claims to start at -350
				{Time: 160, Kind: trace.KindTaskRun, B: 5},
				{Time: 170, Kind: trace.KindTasksEnd},
			},
			want: []want{{"tasks", 100, 70, false}, {"slow", 101, 49, false}, {"task", 155, 5, false}},
		},
		{
			name: "same timestamps still give distinct starts",
			events: []trace.Event{
				{Time: 5, Kind: trace.KindTasksBegin},
				{Time: 5, Kind: trace.KindTaskRun},
				{Time: 5, Kind: trace.KindTaskRun},
				{Time: 5, Kind: trace.KindTasksEnd},
			},
			want: []want{{"tasks", 5, 1, false}, {"task", 6, 0, false}, {"task", 6, 0, false}},
		},
		{
			name: "time going back never unorders a thread",
			events: []trace.Event{
				{Time: 100, Kind: trace.KindSelectBegin},
				{Time: 90, Kind: trace.KindSelectEnd},
				{Time: 80, Kind: trace.KindIOBegin},
				{Time: 120, Kind: trace.KindIOEnd},
			},
			want: []want{{"select", 100, 0, false}, {"io", 100, 20, false}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Export(&buf, "p", loops, tc.events); err != nil {
				t.Fatal(err)
			}
			d := check(t, buf.Bytes())
			var got []want
			for _, e := range d.TraceEvents {
				if e.Ph == "X" && *e.Tid == 100001 {
					got = append(got, want{e.Name, ns(*e.Ts), ns(*e.Dur), e.Args["unterminated"] == true})
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("slices\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestArgsInstantsCounters(t *testing.T) {
	var buf bytes.Buffer
	err := Export(&buf, "p", loops, []trace.Event{
		{Time: 1, Loop: worker0, Kind: trace.KindSelectBegin, A: 999, Str: "select"},
		{Time: 2001, Loop: worker0, Kind: trace.KindSelectEnd, A: 0, B: 2000, C: 42, Flag: true},
		{Time: 2002, Loop: worker0, Kind: trace.KindState, A: int64(trace.StateStarted), B: int64(trace.StateShuttingDown)},
		{Time: 2003, Loop: worker0, Kind: trace.KindDeadlineCheck, A: 64, Flag: false},
		{Time: 2004, Loop: worker0, Kind: trace.KindDeadlineCheck, A: 128, Flag: true},
		{Time: 2005, Loop: worker0, Kind: trace.KindTaskSubmit, A: 1, B: 17},
		{Time: 2006, Loop: worker0, Kind: trace.KindRead, A: 1, B: 2, C: 3},
		{Time: 2007, Loop: worker0, Kind: trace.KindInject, A: 9, Str: "spurious-wakeups"},
		{Time: 2008, Loop: worker0, Kind: trace.KindRingEnter, A: 5, B: 1, C: 7, D: 5, E: 7},
		{Time: 2009, Loop: worker0, Kind: trace.KindRingSubmit, A: 9, C: 6, Str: "send"},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := check(t, buf.Bytes())
	var sel *tev
	var instants []string
	counters := map[string]float64{}
	for i, e := range d.TraceEvents {
		switch e.Ph {
		case "X":
			sel = &d.TraceEvents[i]
		case "i":
			instants = append(instants, e.Name)
		case "C":
			for k, v := range e.Args {
				counters[e.Name+" "+k] = v.(float64)
			}
		}
	}
	if sel == nil || sel.Name != "select" || *sel.Ts != 1 || *sel.Dur != 2000 {
		t.Fatalf("select slice %+v", sel)
	}
	wantArgs := map[string]any{"timeout_ns": 999.0, "mode": "select", "ready": 0.0, "took_ns": 2000.0, "select_cnt": 42.0, "premature": true}
	for k, v := range wantArgs {
		if sel.Args[k] != v {
			t.Errorf("select arg %s = %v, want %v", k, sel.Args[k], v)
		}
	}
	if want := []string{"state SHUTTING_DOWN", "deadline_check", "inject"}; !slices.Equal(instants, want) {
		t.Errorf("instants %v, want %v (read is no instant; a deadline check only when hit)", instants, want)
	}
	for _, e := range d.TraceEvents {
		if e.Ph == "i" && e.Name == "state SHUTTING_DOWN" && (e.Args["from"] != "STARTED" || e.Args["to"] != "SHUTTING_DOWN") {
			t.Errorf("state args %v", e.Args)
		}
	}
	if counters["worker-0 select_cnt"] != 42 || counters["worker-0 queued"] != 17 ||
		counters["worker-0 sq_depth"] != 5 || counters["worker-0 cq_depth"] != 7 || counters["worker-0 in_flight"] != 6 {
		t.Errorf("counters %v", counters)
	}
}

func TestFlows(t *testing.T) {
	var buf bytes.Buffer
	var evs []trace.Event
	evs = append(evs, iteration(0, worker0, 1)...)
	evs = append(evs, iteration(10_000, worker1, 2)...)
	evs = append(evs,
		trace.Event{Time: 20_000, Loop: worker0, Kind: trace.KindRegister, A: 99}, // a client channel: no accept
		trace.Event{Time: 20_100, Loop: boss, Kind: trace.KindAccept, A: 3},       // its register never came
	)
	if err := Export(&buf, "p", loops, evs); err != nil {
		t.Fatal(err)
	}
	d := check(t, buf.Bytes())
	type end struct {
		ph  string
		tid int64
		id  int64
	}
	var got []end
	for _, e := range d.TraceEvents {
		if e.Ph == "s" || e.Ph == "f" {
			got = append(got, end{e.Ph, *e.Tid, *e.ID})
		}
	}
	want := []end{{"s", 100001, 1_000_000_001}, {"f", 100002, 1_000_000_001}, {"s", 100001, 1_000_000_002}, {"f", 100003, 1_000_000_002}} // handoffs 1 and 2 of pid 1
	if !slices.Equal(got, want) {
		t.Errorf("flows %v, want %v", got, want)
	}
}

func TestProcesses(t *testing.T) {
	var buf bytes.Buffer
	x := New(&buf, Options{})
	models := []string{"single", "multi", "master-slave"}
	procs := make([]*Process, len(models))
	for i, m := range models {
		p, err := x.AddProcess(i+1, m, Loops(loops))
		if err != nil {
			t.Fatal(err)
		}
		procs[i] = p
	}
	for _, bad := range []int{0, -1, MaxPid + 1, 2} {
		if _, err := x.AddProcess(bad, "x", nil); err == nil {
			t.Errorf("AddProcess(%d) succeeded", bad)
		}
	}
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); i < 50; i++ {
				p.Consume(iteration(i*10_000, worker0+uint16(i%2), i))
			}
		}()
	}
	x.Consume(iteration(0, worker0, 1000)) // Consume feeds pid 1
	wg.Wait()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	d := check(t, buf.Bytes())
	names := map[int64]string{}
	tids := map[int64]map[int64]bool{}
	for _, e := range d.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" {
			names[*e.Pid] = e.Args["name"].(string)
		}
		if e.Tid != nil {
			if tids[*e.Pid] == nil {
				tids[*e.Pid] = map[int64]bool{}
			}
			tids[*e.Pid][*e.Tid] = true
		}
	}
	for i, m := range models {
		pid := int64(i + 1)
		if names[pid] != m {
			t.Errorf("pid %d named %q, want %q", pid, names[pid], m)
		}
		if len(tids[pid]) != len(loops) {
			t.Errorf("pid %d has %d threads, want %d", pid, len(tids[pid]), len(loops))
		}
		for tid := range tids[pid] {
			if tid/tidStride != pid {
				t.Errorf("tid %d of pid %d is not pid-scoped", tid, pid)
			}
		}
	}
	if _, err := x.AddProcess(9, "late", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("AddProcess after Close = %v", err)
	}
}

func TestUnknownLoopsAndKinds(t *testing.T) {
	var buf bytes.Buffer
	x := New(&buf, Options{}) // no loop table at all
	x.Consume([]trace.Event{
		{Time: 1, Loop: 2, Kind: trace.KindIOBegin},
		{Time: 2, Loop: 2, Kind: trace.KindIOEnd},
		{Time: 3, Loop: 0, Kind: trace.KindInvalid},
		{Time: 4, Loop: 0, Kind: trace.Kind(200)},
	})
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	d := check(t, buf.Bytes())
	var threads []string
	for _, e := range d.TraceEvents {
		if e.Name == "thread_name" {
			threads = append(threads, e.Args["name"].(string))
		}
	}
	slices.Sort(threads)
	if want := []string{"loop-0", "loop-1", "loop-2"}; !slices.Equal(threads, want) {
		t.Errorf("threads %v, want %v", threads, want)
	}
	if strings.Contains(buf.String(), "invalid") {
		t.Errorf("invalid kinds were exported:\n%s", buf.String())
	}
}

// growingTable is a loop table that gains loops while events flow, as a
// Collector does.
type growingTable struct {
	mu    sync.Mutex
	loops []trace.LoopInfo
}

func (g *growingTable) Loops() []trace.LoopInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.loops)
}

func TestLoopsAddedLater(t *testing.T) {
	g := &growingTable{loops: loops[:1]}
	var buf bytes.Buffer
	x := New(&buf, Options{Loops: g})
	x.Consume([]trace.Event{{Time: 1, Loop: 0, Kind: trace.KindIOBegin}})
	g.mu.Lock()
	g.loops = loops
	g.mu.Unlock()
	x.Consume([]trace.Event{{Time: 2, Loop: 3, Kind: trace.KindWheelExpire}})
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	d := check(t, buf.Bytes())
	named := map[string]bool{}
	for _, e := range d.TraceEvents {
		if e.Name == "thread_name" {
			named[e.Args["name"].(string)] = true
		}
	}
	for _, l := range loops {
		if !named[l.Name] {
			t.Errorf("loop %s not named (named: %v)", l.Name, named)
		}
	}
}

func TestManyTasksUnderOnePhase(t *testing.T) {
	evs := []trace.Event{{Time: 0, Kind: trace.KindTasksBegin, A: 5000}}
	for i := int64(1); i <= 5000; i++ {
		evs = append(evs, trace.Event{Time: i * 10, Kind: trace.KindTaskRun, A: i, B: 5})
	}
	evs = append(evs, trace.Event{Time: 60_000, Kind: trace.KindTasksEnd, A: 5000})
	var buf bytes.Buffer
	x := New(&buf, Options{Loops: Loops(loops)})
	x.Consume(evs[:len(evs)-1])
	if held := len(x.byPid[1].loops[0].pending); held > maxPending+1 {
		t.Errorf("%d slices held in memory, bound is %d", held, maxPending+1)
	}
	x.Consume(evs[len(evs)-1:])
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := jsonUnmarshal(buf.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	// Past the bound, finished tasks are written before their phase, so
	// only nesting (not file order) is checked here.
	n := 0
	for _, e := range d.TraceEvents {
		if e.Ph == "X" {
			n++
		}
	}
	if n != 5001 {
		t.Errorf("%d slices, want 5001", n)
	}
	if err := nestingOnly(&d); err != nil {
		t.Error(err)
	}
}

func TestRandomStreamsStayWellFormed(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		evs := randomEvents(r, 300)
		var buf bytes.Buffer
		if err := Export(&buf, "rand", loops, evs); err != nil {
			t.Fatal(err)
		}
		var d doc
		if err := jsonUnmarshal(buf.Bytes(), &d); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := structure(&d); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// randomEvents makes a stream mixing every kind, loops, and times that
// mostly advance but sometimes stall or go back.
func randomEvents(r *rand.Rand, n int) []trace.Event {
	kinds := trace.Kinds()
	evs := make([]trace.Event, n)
	t := int64(0)
	for i := range evs {
		switch r.IntN(10) {
		case 0:
			t -= r.Int64N(50)
		case 1, 2:
		default:
			t += r.Int64N(1000)
		}
		evs[i] = trace.Event{
			Seq: uint64(i + 1), Time: t, Loop: uint16(r.IntN(5)), Kind: kinds[r.IntN(len(kinds))],
			Flag: r.IntN(2) == 0, A: r.Int64N(6) - 1, B: r.Int64N(3000) - 100, C: r.Int64N(100), D: r.Int64N(10),
			Str: []string{"", "select", "select_now", "task \"x\"\n"}[r.IntN(4)],
		}
	}
	return evs
}

func TestWriteErrors(t *testing.T) {
	boom := errors.New("disk full")
	fw := &failWriter{err: boom}
	x := New(fw, Options{Loops: Loops(loops)})
	for i := int64(0); i < 2000; i++ {
		x.Consume(iteration(i*10_000, worker0, i))
	}
	calls := fw.calls
	x.Consume(iteration(0, worker0, 1))
	if err := x.Flush(); err != boom {
		t.Errorf("Flush = %v, want %v", err, boom)
	}
	if err := x.Close(); err != boom {
		t.Errorf("Close = %v, want %v", err, boom)
	}
	if err := x.Close(); err != boom {
		t.Errorf("second Close = %v, want %v", err, boom)
	}
	if fw.calls != calls {
		t.Errorf("%d writes after the first error", fw.calls-calls)
	}
}

type failWriter struct {
	err   error
	calls int
}

func (f *failWriter) Write(p []byte) (int, error) {
	f.calls++
	return 0, f.err
}

func TestEmptyExport(t *testing.T) {
	var buf bytes.Buffer
	if err := New(&buf, Options{}).Close(); err != nil {
		t.Fatal(err)
	}
	d := check(t, buf.Bytes())
	if len(d.TraceEvents) != 0 {
		t.Errorf("events %v", d.TraceEvents)
	}
}

func TestAppendMicros(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{0, "0.000"}, {1, "0.001"}, {999, "0.999"}, {1000, "1.000"}, {123456789, "123456.789"},
		{-1500, "-1.500"}, {math.MaxInt64, "9223372036854775.807"}, {math.MinInt64, "-9223372036854775.808"},
	}
	for _, tc := range tests {
		if got := string(appendMicros(nil, tc.ns)); got != tc.want {
			t.Errorf("appendMicros(%d) = %s, want %s", tc.ns, got, tc.want)
		}
	}
}

func BenchmarkExporter(b *testing.B) {
	var evs []trace.Event
	for i := int64(0); i < 40; i++ {
		evs = append(evs, iteration(i*10_000, worker0+uint16(i%2), i)...)
	}
	x := New(discard{}, Options{Loops: Loops(loops)})
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			evs[i].Time += 400_000
		}
		x.Consume(evs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
	if err := x.Close(); err != nil {
		b.Fatal(err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
