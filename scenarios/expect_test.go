package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// fakeRun is a Resolver over a fixed summary.
type fakeRun struct {
	loops  []string
	values map[string]Value
}

func (f fakeRun) Lookup(path string) (Value, bool) {
	v, ok := f.values[path]
	return v, ok
}

func (f fakeRun) Loops() []string { return f.loops }

func sampleRun() fakeRun {
	return fakeRun{
		loops: []string{"boss-0", "boss-1", "worker-0", "worker-1", "worker-2"},
		values: map[string]Value{
			"boss-0.accepted":            IntValue(8),
			"boss-1.accepted":            IntValue(0),
			"boss-0.state":               StringValue("TERMINATED"),
			"boss-1.state":               StringValue("NOT_STARTED"),
			"boss-0.tid":                 IntValue(4312),
			"boss-1.tid":                 IntValue(0),
			"worker-0.registered":        IntValue(3),
			"worker-1.registered":        IntValue(3),
			"worker-2.registered":        IntValue(2),
			"worker-0.rebuilds":          IntValue(1),
			"worker-1.rebuilds":          IntValue(0),
			"worker-2.rebuilds":          IntValue(0),
			"worker-0.wakeups_written":   IntValue(3),
			"worker-1.wakeups_written":   IntValue(2),
			"worker-2.wakeups_written":   IntValue(50),
			"worker-0.tasks_submitted":   IntValue(10000),
			"worker-1.tasks_submitted":   IntValue(10),
			"worker-2.tasks_submitted":   IntValue(40),
			"worker-0.state":             StringValue("TERMINATED"),
			"worker-1.state":             StringValue("TERMINATED"),
			"worker-2.state":             StringValue("SHUTDOWN"),
			"worker-0.name":              IntValue(7), // a broken summary
			"groups.worker.chooser":      StringValue("generic"),
			"groups.worker.size":         IntValue(3),
			"clients.errors":             IntValue(0),
			"clients.throughput_rps":     FloatValue(1234.5),
			"clients.latency_us.p99":     FloatValue(math.NaN()),
			"clients.latency_us.max":     FloatValue(51000),
			"events.dropped":             IntValue(0),
			"model":                      StringValue("multi"),
			"duration_ns":                IntValue(3_000_000_000),
			"worker-1.deadline_checks":   IntValue(-1),
			"clients.bytes_verified":     StringValue("lots"),
			"worker-0.max_select_cnt":    IntValue(512),
			"worker-0.premature":         IntValue(1024),
			"worker-1.max_select_cnt":    IntValue(3),
			"worker-2.max_select_cnt":    IntValue(7),
			"worker-0.tasks_run":         IntValue(5),
			"worker-1.tasks_run":         IntValue(7),
			"worker-2.tasks_run":         IntValue(9),
			"worker-0.io_ns":             IntValue(1),
			"worker-1.io_ns":             IntValue(2),
			"worker-2.io_ns":             IntValue(4),
			"clients.latency_us.p50":     FloatValue(1.5),
			"clients.connections":        IntValue(8),
			"worker-0.wakeups_coalesced": IntValue(9990),
		},
	}
}

func TestEval(t *testing.T) {
	tests := []struct {
		expr     string
		ok       bool
		reason   string
		observed string // path=value pairs, space separated
	}{
		{expr: "boss-0.accepted == 8", ok: true, observed: "boss-0.accepted=8"},
		{expr: "boss-0.accepted > 8", reason: "boss-0.accepted is 8, want > 8", observed: "boss-0.accepted=8"},
		{expr: "8 < boss-0.accepted", reason: "boss-0.accepted is 8, want > 8", observed: "boss-0.accepted=8"},
		{expr: "boss-1.state == NOT_STARTED", ok: true, observed: "boss-1.state=NOT_STARTED"},
		{expr: `boss-1.state == "NOT_STARTED"`, ok: true, observed: "boss-1.state=NOT_STARTED"},
		{expr: "boss-0.state >= SHUTDOWN", ok: true, observed: "boss-0.state=TERMINATED"},
		{expr: "worker-*.state == TERMINATED", reason: "worker-2.state is SHUTDOWN, want == TERMINATED", observed: "worker-0.state=TERMINATED worker-1.state=TERMINATED worker-2.state=SHUTDOWN"},
		{expr: "worker-*.state >= SHUTDOWN", ok: true, observed: "worker-0.state=TERMINATED worker-1.state=TERMINATED worker-2.state=SHUTDOWN"},
		{expr: "sum(worker-*.registered) == 8", ok: true, observed: "sum(worker-*.registered)=8"},
		{expr: "min(worker-*.registered) == 2", ok: true, observed: "min(worker-*.registered)=2"},
		{expr: "max(worker-*.registered) == 3", ok: true, observed: "max(worker-*.registered)=3"},
		{expr: "avg(worker-*.io_ns) < 2.4", ok: true, observed: "avg(worker-*.io_ns)=2.3333333333333335"},
		{expr: "sum(worker-*.registered) == clients.connections", ok: true, observed: "sum(worker-*.registered)=8 clients.connections=8"},
		{expr: "worker-*.wakeups_written < worker-*.tasks_submitted", reason: "worker-2.wakeups_written is 50 and worker-2.tasks_submitted is 40, want worker-2.wakeups_written < worker-2.tasks_submitted", observed: "worker-0.wakeups_written=3 worker-0.tasks_submitted=10000 worker-1.wakeups_written=2 worker-1.tasks_submitted=10 worker-2.wakeups_written=50 worker-2.tasks_submitted=40"},
		{expr: "worker-?.rebuilds <= 1", ok: true, observed: "worker-0.rebuilds=1 worker-1.rebuilds=0 worker-2.rebuilds=0"},
		{expr: "*.state != NOT_STARTED", reason: "boss-1.state is NOT_STARTED, want != NOT_STARTED", observed: "boss-0.state=TERMINATED boss-1.state=NOT_STARTED worker-0.state=TERMINATED worker-1.state=TERMINATED worker-2.state=SHUTDOWN"},
		{expr: `groups.worker.chooser == "generic"`, ok: true, observed: "groups.worker.chooser=generic"},
		{expr: `groups.worker.chooser != "generic"`, reason: `groups.worker.chooser is generic, want != "generic"`, observed: "groups.worker.chooser=generic"},
		{expr: "clients.throughput_rps > 1000", ok: true, observed: "clients.throughput_rps=1234.5"},
		{expr: "clients.latency_us.max >= 50000", ok: true, observed: "clients.latency_us.max=51000"},
		{expr: "clients.latency_us.p50 == 1.5", ok: true, observed: "clients.latency_us.p50=1.5"},
		{expr: "clients.latency_us.p99 < 1000", reason: "clients.latency_us.p99 is NaN, want < 1000", observed: "clients.latency_us.p99=NaN"},
		{expr: "clients.latency_us.p99 != 1000", ok: true, observed: "clients.latency_us.p99=NaN"},
		{expr: "worker-1.deadline_checks > -2", ok: true, observed: "worker-1.deadline_checks=-1"},
		{expr: "duration_ns == 3e9", ok: true, observed: "duration_ns=3000000000"},
		{expr: "duration_ns == 3_000_000_000", ok: true, observed: "duration_ns=3000000000"},
		{expr: `model == "multi"`, ok: true, observed: "model=multi"},
		{expr: "worker-0.max_select_cnt == 512", ok: true, observed: "worker-0.max_select_cnt=512"},
		{expr: "client-*.connected > 0", reason: "no loop matches client-*"},
		{expr: "sum(client-*.connected) > 0", reason: "no loop matches client-*"},
		{expr: "worker-0.closed == 0", reason: "worker-0.closed is not in the run summary"},
		{expr: "sum(worker-*.closed) == 0", reason: "worker-0.closed is not in the run summary"},
		{expr: `worker-0.name == "worker-0"`, reason: "worker-0.name is 7, not a string"},
		{expr: "clients.bytes_verified > 0", reason: `clients.bytes_verified is "lots", not a number`},
		{expr: "worker-0.wakeups_coalesced > worker-0.wakeups_written", ok: true, observed: "worker-0.wakeups_coalesced=9990 worker-0.wakeups_written=3"},
	}
	run := sampleRun()
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e, err := ParseExpect(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			res := e.Eval(run)
			if res.Expr != tt.expr || res.OK != tt.ok || res.Reason != tt.reason {
				t.Errorf("got ok=%v reason=%q, want ok=%v reason=%q", res.OK, res.Reason, tt.ok, tt.reason)
			}
			var obs []string
			for _, o := range res.Observed {
				obs = append(obs, o.Path+"="+o.Value.String())
			}
			if got := strings.Join(obs, " "); got != tt.observed {
				t.Errorf("observed %q, want %q", got, tt.observed)
			}
		})
	}
}

func TestParseExpectErrors(t *testing.T) {
	tests := []struct {
		expr   string
		offset int
		msg    string
	}{
		{expr: "", msg: "empty expectation"},
		{expr: "   ", msg: "empty expectation"},
		{expr: "worker-0.rebuilds", offset: 17, msg: "expected a comparison (==, !=, <, <=, >, >=) after worker-0.rebuilds, found the end"},
		{expr: "worker-0.rebuilds =< 1", offset: 18, msg: `unknown operator "=" (use == to compare)`},
		{expr: "worker-0.rebuilds !! 1", offset: 18, msg: `unknown operator "!"`},
		{expr: "worker-0.rebuilds >= 1 && x", offset: 23, msg: "unexpected character '&'"},
		{expr: "worker-0.rebuilds >= (1)", offset: 21, msg: `expected a value or a summary path, found "("`},
		{expr: "sum(worker-*.rebuilds >= 1", offset: 22, msg: `expected ) after worker-*.rebuilds, found ">="`},
		{expr: "sum() >= 1", offset: 4, msg: `sum needs a loop path such as worker-*.accepted, found ")"`},
		{expr: "worker-0..rebuilds >= 1", offset: 9, msg: `empty name in path "worker-0..rebuilds"`},
		{expr: "worker-0.rebuilds.x >= 1", offset: 9, msg: "unknown loop counter rebuilds.x (did you mean rebuilds?)"},
		{expr: "groups.Worker.size >= 1", offset: 7, msg: `bad group name "Worker"`},
		{expr: "groups.worker.colorful == 1", offset: 0, msg: "unknown summary key groups.worker.colorful; under groups there are groups.worker.name, groups.worker.size, groups.worker.chooser"},
		{expr: "groups.worker.chooserr == 1", offset: 0, msg: "unknown summary key groups.worker.chooserr (did you mean groups.worker.chooser?)"},
		{expr: "worker-[0].rebuilds >= 1", offset: 7, msg: "unexpected character '['"},
		{expr: "worker-0.rebuilds >= 1.2.3", offset: 21, msg: `"1.2.3" is not a number`},
		{expr: "worker-0.state == 'STARTED' extra", offset: 28, msg: `unexpected "extra" after the comparison`},
		{expr: "true == worker-0.rebuilds", offset: 8, msg: "cannot compare true (boolean) with worker-0.rebuilds (integer)"},
		{expr: strings.Repeat("a", 300), offset: 256, msg: "expectation is 300 characters; the limit is 256"},
		{expr: "worker-01.rebuilds >= 1", offset: 0, msg: "unknown name worker-01: expected a loop such as boss-0, worker-1, reactor-0 or client-0, or one of scenario, model, netty, duration_ns, groups, clients, events, wheel, pool, capacity_rps, capacity_loop"},
		{expr: "Worker-*.rebuilds >= 1", offset: 0, msg: `bad loop pattern "Worker-*"; use * as in worker-*`},
		{expr: "état >= 1", offset: 0, msg: "unexpected character 'é'"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := ParseExpect(tt.expr)
			var ee *ExpectError
			if !errors.As(err, &ee) {
				t.Fatalf("want an *ExpectError, got %v", err)
			}
			if ee.Offset != tt.offset || ee.Msg != tt.msg {
				t.Errorf("got offset %d %q, want offset %d %q", ee.Offset, ee.Msg, tt.offset, tt.msg)
			}
		})
	}
}

func TestResultJSON(t *testing.T) {
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{
			name: "one value",
			res:  Result{Expr: "worker-0.rebuilds >= 1", OK: true, Observed: []Observation{{Path: "worker-0.rebuilds", Value: IntValue(1)}}},
			want: `{"expr":"worker-0.rebuilds >= 1","ok":true,"value":1}`,
		},
		{
			name: "several values and a reason",
			res: Result{Expr: "worker-*.state == TERMINATED", Reason: "worker-1.state is STARTED, want == TERMINATED", Observed: []Observation{
				{Path: "worker-0.state", Value: StringValue("TERMINATED")},
				{Path: "worker-1.state", Value: StringValue("STARTED")},
			}},
			want: `{"expr":"worker-*.state == TERMINATED","ok":false,"value":{"worker-0.state":"TERMINATED","worker-1.state":"STARTED"},"reason":"worker-1.state is STARTED, want == TERMINATED"}`,
		},
		{
			name: "nothing read",
			res:  Result{Expr: "client-*.connected > 0", Reason: "no loop matches client-*"},
			want: `{"expr":"client-*.connected > 0","ok":false,"value":null,"reason":"no loop matches client-*"}`,
		},
		{
			name: "NaN and floats",
			res: Result{Expr: "x", OK: true, Observed: []Observation{
				{Path: "a", Value: FloatValue(math.NaN())},
				{Path: "b", Value: FloatValue(0.25)},
				{Path: "c", Value: BoolValue(true)},
				{Path: "d", Value: Value{}},
			}},
			want: `{"expr":"x","ok":true,"value":{"a":null,"b":0.25,"c":true,"d":null}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tt.res); err != nil {
				t.Fatal(err)
			}
			got := bytes.TrimSpace(buf.Bytes())
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Error("invalid JSON")
			}
		})
	}
}

func TestKeyTables(t *testing.T) {
	// The summary's stable keys (docs/scenarios.md) must all be known.
	stableLoop := "name group tid state iterations selects select_nows premature max_select_cnt rebuilds migrated wakeups_written wakeups_coalesced tasks_submitted tasks_rejected tasks_run tail_tasks_run deadline_checks deadline_hits task_panics io_ns task_ns channels accepted bytes_read bytes_written"
	for _, k := range strings.Fields(stableLoop) {
		key, ok := findLoopKey(k)
		if !ok || key.Extra {
			t.Errorf("loop key %s missing or marked extra", k)
		}
	}
	stableRun := "scenario model duration_ns groups.boss.size groups.worker.chooser groups.boss.name clients.connections clients.requests clients.errors clients.bytes_verified clients.throughput_rps clients.latency_us.p50 clients.latency_us.p90 clients.latency_us.p99 clients.latency_us.max events.emitted events.dropped"
	for _, k := range strings.Fields(stableRun) {
		key, ok := findRunKey(k)
		if !ok || key.Extra {
			t.Errorf("run key %s missing or marked extra", k)
		}
	}
	for _, k := range append(LoopKeys(), RunKeys()...) {
		if k.Doc == "" || k.Type == 0 {
			t.Errorf("key %s lacks a type or doc", k.Path)
		}
	}
	if got := strings.Join(States(), " "); got != "NOT_STARTED SUSPENDING SUSPENDED STARTED SHUTTING_DOWN SHUTDOWN TERMINATED" {
		t.Errorf("States() = %s", got)
	}
	if len(Faults()) != len(faults) {
		t.Error("Faults() incomplete")
	}
}

func TestConditions(t *testing.T) {
	s, err := parseWith("c.yaml", []byte(`name: c
model: master-slave
bosses: 4
workers: 3
loop: {selector: epoll, io_ratio: 80, read_buffer: 4KiB}
server: {reuseport: true, ports: 2}
duration: 2s
`), nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cond    string
		want    bool
		wantErr string
		offset  int
	}{
		{cond: "loop.selector == epoll", want: true},
		{cond: "loop.selector != epoll", want: false},
		{cond: "server.reuseport == true && server.ports == 2", want: true},
		{cond: "server.reuseport == true && server.ports == 1", want: false},
		{cond: "model == master-slave && bosses >= 4 && workers < 4", want: true},
		{cond: "loop.io_ratio > 50", want: true},
		{cond: "duration <= 2s", want: true},
		{cond: "duration > 1500ms", want: true},
		{cond: "loop.read_buffer == 4KiB", want: true},
		{cond: "loop.rebuild_threshold == 512", want: true},
		{cond: "wheel.ticks_per_wheel == 512 && shutdown.quiet == 100ms", want: true},
		{cond: "loop.selector < epoll", wantErr: "only == and != apply to loop.selector"},
		{cond: "loop.selector == select", wantErr: `loop.selector takes one of nio, epoll, io_uring, not "select"`},
		{cond: "workers == 3 && bosses", offset: 16, wantErr: `a condition is KEY OP VALUE joined by &&, as in loop.selector == epoll; found "bosses"`},
		{cond: "threads == 3", wantErr: "a condition cannot test threads; it can test netty, model, bosses, workers, client_loops, duration, loop.io_ratio, loop.rebuild_threshold, loop.selector, loop.trigger, loop.task_queue_capacity, loop.read_buffer, loop.slow_motion, loop.task_quantum, server.protocol, server.ports, server.reuseport, wheel.tick, wheel.ticks_per_wheel, shutdown.quiet, shutdown.timeout"},
		{cond: "server.reuseport == yes", wantErr: `server.reuseport takes true or false, not "yes"`},
		{cond: "loop.read_buffer > 4KB", wantErr: `loop.read_buffer takes a size such as 64B, 4KiB or 1MiB, not "4KB"`},
		{cond: strings.Repeat("x", 300), wantErr: "condition is longer than 256 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			got, err := evalCondition(tt.cond, s)
			if tt.wantErr != "" {
				if err == nil || err.Msg != tt.wantErr || err.Offset != tt.offset {
					t.Fatalf("error %+v, want %q at %d", err, tt.wantErr, tt.offset)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConditionalExpectations(t *testing.T) {
	src := `name: c
workers: 2
expect:
  - worker-0.rebuilds >= 0
  - if: loop.selector == epoll
    then: [worker-0.closed >= 1]
    else: [worker-0.rebuilds >= 1, worker-5.rebuilds == 0]
  - if: workers == 2
    then: [worker-1.rebuilds == 0]
`
	tests := []struct {
		name    string
		set     [2]string
		want    []string
		wantErr string
	}{
		// Under nio the else branch is active and its worker-5 is refused;
		// under epoll the same branch is inactive and worker-5 is allowed.
		{name: "nio: else is active", wantErr: "c.yaml:7:36: unknown loop worker-5: workers is 2, so the worker loops are worker-0..worker-1"},
		{name: "epoll: else is inactive", set: [2]string{"loop.selector", "epoll"}, want: []string{"worker-0.rebuilds >= 0", "worker-0.closed >= 1", "worker-1.rebuilds == 0"}},
		{name: "nio, more workers", set: [2]string{"workers", "3"}, wantErr: "c.yaml:7:36: unknown loop worker-5: workers is 3 (from --set workers=3), so the worker loops are worker-0..worker-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sets []setArg
			if tt.set[0] != "" {
				sets = append(sets, setArg{key: tt.set[0], value: tt.set[1]})
			}
			s, err := parseWith("c.yaml", []byte(src), sets, 2)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range s.Expect {
				got = append(got, e.String())
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("active %v, want %v", got, tt.want)
			}
		})
	}
}
