package scenarios

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/bad")

// TestBadFiles parses every file under testdata/bad and compares the
// problems, one FILE:LINE:COL: message per line, with NAME.golden.
func TestBadFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// A fixed CPU count keeps workers: 0 messages machine-independent.
			_, err = parseWith(file, data, nil, 4)
			var list *ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("want an *ErrorList, got %v", err)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("problems differ from %s\n--- got\n%s--- want\n%s", golden, got, want)
			}
			checkWellFormed(t, list)
		})
	}
}

// checkWellFormed asserts the shape every error list must have: at least one
// problem, each with a file and a message, sorted, on one line each.
func checkWellFormed(t *testing.T, list *ErrorList) {
	t.Helper()
	if len(list.Problems) == 0 {
		t.Fatal("empty ErrorList")
	}
	for i, p := range list.Problems {
		if p.File == "" || p.Msg == "" || strings.ContainsAny(p.Msg, "\n\r") || p.Line < 0 || p.Col < 0 {
			t.Errorf("malformed problem %#v", p)
		}
		if p.Line > 0 && p.Col == 0 {
			t.Errorf("problem with a line but no column: %#v", p)
		}
		if i > 0 {
			prev := list.Problems[i-1]
			if prev.Line > 0 && (p.Line <= 0 || p.Line < prev.Line || p.Line == prev.Line && p.Col < prev.Col) {
				t.Errorf("problems out of order: %v before %v", prev, p)
			}
		}
	}
}

func TestMinimalFileGetsDefaults(t *testing.T) {
	s, err := parseWith("min.yaml", []byte("name: min\n"), nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{name: "model", got: s.Model, want: ModelMulti},
		{name: "bosses", got: s.Bosses, want: 1},
		{name: "workers", got: s.Workers, want: 0},
		{name: "duration", got: s.Duration, want: 3 * time.Second},
		{name: "io_ratio", got: s.Loop.IORatio, want: 50},
		{name: "rebuild_threshold", got: s.Loop.RebuildThreshold, want: 512},
		{name: "selector", got: s.Loop.Selector, want: SelectorNIO},
		{name: "trigger", got: s.Loop.Trigger, want: TriggerLevel},
		{name: "task_queue_capacity", got: s.Loop.TaskQueue, want: 0},
		{name: "read_buffer", got: s.Loop.ReadBuffer, want: 64 << 10},
		{name: "slow_motion", got: s.Loop.SlowMotion, want: time.Duration(0)},
		{name: "protocol", got: s.Server.Protocol, want: ProtocolEcho},
		{name: "ports", got: s.Server.Ports, want: 1},
		{name: "reuseport", got: s.Server.ReusePort, want: false},
		{name: "addr", got: s.Server.Addr, want: "127.0.0.1:0"},
		{name: "tick", got: s.Wheel.Tick, want: 100 * time.Millisecond},
		{name: "ticks_per_wheel", got: s.Wheel.TicksPerWheel, want: 512},
		{name: "quiet", got: s.Shutdown.Quiet, want: 100 * time.Millisecond},
		{name: "timeout", got: s.Shutdown.Timeout, want: 2 * time.Second},
		{name: "clients", got: len(s.Clients), want: 0},
		{name: "expect", got: len(s.Expect), want: 0},
		{name: "worker loops (2 x 3 CPUs)", got: len(s.Groups()[1].Loops), want: 6},
		{name: "rebuild enabled", got: s.Loop.RebuildEnabled(), want: true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestFullFileDecodes(t *testing.T) {
	src := `name: full
summary: Everything set.
model: master-slave
bosses: 3
workers: 4
client_loops: 2
duration: 5s
loop: {io_ratio: 70, rebuild_threshold: 2, selector: epoll, trigger: edge, task_queue_capacity: 4096, read_buffer: 4KiB, slow_motion: 10ms}
server: {protocol: echo, ports: 2, reuseport: true, addr: "127.0.0.1:9000"}
clients:
  - {connections: 3, payload: 4KiB, rate: 0.5/s, pipeline: 8, requests: 10, via: engine, start: 1s, stop: 4s}
timeline:
  - {at: 3s, pause: 200ms, loop: worker-*}
  - {at: 1s, inject: slow-task, loop: worker-0, duration: 20ms}
  - {at: 1s, submit: tail-tasks, loop: worker-1, count: 5, cost: 1ms, from: loop}
  - {at: 2s, schedule: timers, loop: boss-2, count: 2, delay: 1s, period: 100ms, mode: fixed-delay}
  - {at: 2s, wheel: timeouts, count: 10, delay: 1s, cancel: 3}
  - {at: 2s, set: io_ratio, value: 100}
  - {at: 2s, offload: on, pool: 8}
  - {at: 4s, shutdown: graceful, timeout: 1s}
wheel: {tick: 10ms, ticks_per_wheel: 100}
shutdown: {quiet: 0, timeout: 1s}
expect:
  - client-*.connected == 3
`
	s, err := parseWith("full.yaml", []byte(src), nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Loop; got != (LoopConfig{IORatio: 70, RebuildThreshold: 2, Selector: SelectorEpoll, Trigger: TriggerEdge, TaskQueue: 4096, ReadBuffer: 4096, SlowMotion: 10 * time.Millisecond, TaskQuantum: time.Second}) {
		t.Errorf("loop = %+v", got)
	}
	if s.Loop.RebuildEnabled() {
		t.Error("rebuild_threshold 2 must disable rebuilding")
	}
	wantClient := Client{Protocol: ProtocolEcho, Connections: 3, Payload: 4096, Rate: Rate{PerSecond: 0.5}, Pipeline: 8, Requests: 10, Via: ViaEngine, Load: LoadClosed, Start: time.Second, Stop: 4 * time.Second}
	if len(s.Clients) != 1 || s.Clients[0] != wantClient {
		t.Errorf("clients = %+v, want %+v", s.Clients, wantClient)
	}
	if got := s.Clients[0].Rate.Interval(); got != 2*time.Second {
		t.Errorf("rate interval = %v, want 2s", got)
	}
	if got := s.Wheel.Length(); got != 128 {
		t.Errorf("wheel length = %d, want 128 (100 rounded up to a power of two)", got)
	}
	var kinds []string
	for _, a := range s.Timeline {
		kinds = append(kinds, strings.TrimPrefix(fmt.Sprintf("%T", a), "scenarios."))
	}
	wantOrder := "Inject Submit Schedule WheelTimeouts SetIORatio Offload Pause Shutdown"
	if got := strings.Join(kinds, " "); got != wantOrder {
		t.Errorf("timeline order = %s, want %s (sorted by at, stable)", got, wantOrder)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{name: "schedule", got: s.Timeline[2], want: Schedule{Step: Step{At: 2 * time.Second}, Loop: "boss-2", Count: 2, Delay: time.Second, Period: 100 * time.Millisecond, Mode: ScheduleFixedDelay, From: FromExternal}},
		{name: "submit", got: s.Timeline[1], want: Submit{Step: Step{At: time.Second}, Loop: "worker-1", Count: 5, Cost: time.Millisecond, From: FromLoop, Tail: true}},
		{name: "set", got: s.Timeline[4], want: SetIORatio{Step: Step{At: 2 * time.Second}, Loop: "*", IORatio: 100}},
		{name: "offload", got: s.Timeline[5], want: Offload{Step: Step{At: 2 * time.Second}, On: true, Pool: 8}},
		{name: "pause", got: s.Timeline[6], want: Pause{Step: Step{At: 3 * time.Second}, Loop: "worker-*", For: 200 * time.Millisecond}},
		{name: "shutdown inherits quiet", got: s.Timeline[7], want: Shutdown{Step: Step{At: 4 * time.Second}, Quiet: 0, Timeout: time.Second}},
		{name: "wheel", got: s.Timeline[3], want: WheelTimeouts{Step: Step{At: 2 * time.Second}, Count: 10, Delay: time.Second, Cancel: 3}},
		{name: "inject", got: s.Timeline[0], want: Inject{Step: Step{At: time.Second}, Fault: FaultSlowTask, Loop: "worker-0", Duration: 20 * time.Millisecond}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
		}
	}
	groups := s.Groups()
	var shape []string
	for _, g := range groups {
		shape = append(shape, g.Name+"="+strings.Join(g.Loops, ",")+"/"+g.Chooser())
	}
	wantShape := "boss=boss-0,boss-1,boss-2/generic worker=worker-0,worker-1,worker-2,worker-3/power-of-two client=client-0,client-1/power-of-two"
	if got := strings.Join(shape, " "); got != wantShape {
		t.Errorf("groups = %s, want %s", got, wantShape)
	}
	if got := strings.Join(s.MatchLoops("*-1"), ","); got != "boss-1,worker-1,client-1" {
		t.Errorf("MatchLoops(*-1) = %s", got)
	}
	if len(s.Expect) != 1 {
		t.Errorf("expect = %+v", s.Expect)
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "bosses under single",
			src:  "name: w\nmodel: single\nbosses: 2\nworkers: 3\n",
			want: []string{
				"w.yaml:3:9: bosses does not apply to model single: its one loop, reactor-0, accepts and does I/O",
				"w.yaml:4:10: workers does not apply to model single: its one loop, reactor-0, does all the I/O",
			},
		},
		{
			name: "bosses under multi",
			src:  "name: w\nbosses: 4\n",
			want: []string{"w.yaml:2:9: model multi has one boss loop; bosses: 4 takes effect with model master-slave"},
		},
		{
			name: "late actions and clients",
			src:  "name: w\nduration: 1s\nclients:\n  - {start: 2s}\n  - {stop: 5s}\ntimeline:\n  - {at: 1s, submit: tasks, loop: worker-0}\n",
			want: []string{
				"w.yaml:4:13: these clients start at 2s, when the run (1s) is over",
				"w.yaml:5:12: stop 5s is after the end of the run (1s); the clients stop with the run",
				"w.yaml:7:10: this action at 1s never happens: the run ends at 1s",
			},
		},
		{
			name: "payload for http",
			src:  "name: w\nserver: {protocol: http}\nclients:\n  - {payload: 1KiB}\nclient_loops: 2\n",
			want: []string{
				"w.yaml:4:15: payload applies to echo clients only; http clients send fixed requests",
				"w.yaml:5:15: client_loops has no effect: no client uses via: engine",
			},
		},
		{name: "none", src: "name: w\nmodel: master-slave\nbosses: 4\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("w.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range s.Warnings() {
				got = append(got, w.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestStopDefaultsToDuration(t *testing.T) {
	s, err := Parse("s.yaml", []byte("name: s\nduration: 2s\nclients:\n  - {connections: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Clients[0].Stop != 2*time.Second {
		t.Errorf("stop = %v, want the run's duration", s.Clients[0].Stop)
	}
	if err := s.Set("duration", "5s"); err != nil {
		t.Fatal(err)
	}
	if s.Clients[0].Stop != 5*time.Second {
		t.Errorf("after --set duration=5s, stop = %v, want 5s", s.Clients[0].Stop)
	}
}

// TestHostileInput checks that inputs built to exhaust a parser are refused
// with one clear problem and bounded memory. Time is not asserted (tests
// never time things); BenchmarkHostile measures it.
func TestHostileInput(t *testing.T) {
	for _, h := range hostileInputs() {
		t.Run(h.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Parse("h.yaml", h.data)
			runtime.ReadMemStats(&after)
			var list *ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("want an *ErrorList, got %v", err)
			}
			checkWellFormed(t, list)
			if !strings.Contains(err.Error(), h.want) {
				t.Errorf("error %q does not mention %q", err, h.want)
			}
			if len(list.Problems) > 5 {
				t.Errorf("%d problems; a hostile file should get a short answer", len(list.Problems))
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

type hostile struct {
	name string
	data []byte
	want string
}

func hostileInputs() []hostile {
	laughs := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for c := 'b'; c <= 'z'; c++ {
		laughs += string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n"
		prev = string(c)
	}
	selfRef := "name: &x [*x, *x]\n"
	return []hostile{
		{name: "billion laughs", data: []byte(laughs), want: "YAML aliases (*a) are not supported"},
		{name: "self-referencing alias", data: []byte(selfRef), want: "YAML anchors (&x) are not supported"},
		{name: "too large", data: []byte("name: x\nnotes: \"" + strings.Repeat("a", MaxFileSize) + "\"\n"), want: "file is larger than 1 MiB"},
		{name: "NUL bytes", data: []byte("name: x\x00\x00\x00"), want: "h.yaml:1:8: NUL byte"},
		{name: "invalid UTF-8", data: []byte("name: \xff\xfe"), want: "h.yaml:1:7: invalid UTF-8"},
		{name: "deep flow nesting", data: []byte(strings.Repeat("[", 9000) + strings.Repeat("]", 9000)), want: "nesting is deeper than 16 levels"},
		{name: "deeper than the parser allows", data: []byte(strings.Repeat("[", 20000)), want: "YAML syntax"},
		{name: "wide flow list", data: []byte("name: x\nexpect: [" + strings.Repeat("1,", 300000) + "1]\n"), want: "more than 40000 YAML separators"},
		{name: "many keys", data: []byte("name: x\n" + strings.Repeat("k: 1\n", 30000)), want: "more than 40000 YAML separators"},
		{name: "many nodes under the separator cap", data: []byte("name: x\nexpect: [" + strings.Repeat("a b,", 12000) + "]\n"), want: "more than 10000 YAML nodes"},
		{name: "long list", data: []byte("name: x\nexpect:\n" + strings.Repeat("  - boss-0.accepted > 0\n", 5000)), want: "expect has 5000 entries; the limit is 128"},
		{name: "long scalar", data: []byte("name: " + strings.Repeat("a", 500000) + "\n"), want: "name is 500000 characters; the limit is 64"},
		{name: "long expectation", data: []byte("name: x\nexpect: [\"" + strings.Repeat("a", 5000) + "\"]\n"), want: "an expectation is 5000 characters; the limit is 256"},
	}
}

func BenchmarkHostile(b *testing.B) {
	for _, h := range hostileInputs() {
		b.Run(h.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = Parse("h.yaml", h.data)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{name: "positioned", p: Problem{File: "a.yaml", Line: 3, Col: 7, Msg: "m"}, want: "a.yaml:3:7: m"},
		{name: "whole file", p: Problem{File: "a.yaml", Msg: "m"}, want: "a.yaml: m"},
		{name: "override", p: Problem{File: "--set workers=x", Msg: "m"}, want: "--set workers=x: m"},
		{name: "line without column", p: Problem{File: "a.yaml", Line: 2, Msg: "m"}, want: "a.yaml:2:1: m"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestErrorListCapsOutput(t *testing.T) {
	var list ErrorList
	for i := 1; i <= 150; i++ {
		list.Problems = append(list.Problems, Problem{File: "f", Line: i, Col: 1, Msg: "m"})
	}
	lines := strings.Split(list.Error(), "\n")
	if len(lines) != maxPrinted+1 || lines[maxPrinted] != "f: ... and 50 more problems" {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// A timeout that does not parse is one problem, in the shutdown: section and
// in a timeline shutdown alike; it is not compared with the quiet period as
// if it were 0.
func TestBadShutdownTimeoutIsOneProblem(t *testing.T) {
	for _, src := range []string{
		"name: s\nshutdown: {quiet: 1s, timeout: soon}\n",
		"name: s\ntimeline:\n  - {at: 1s, shutdown: graceful, quiet: 1s, timeout: soon}\n",
	} {
		_, err := Parse("s.yaml", []byte(src))
		var list *ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("%q: want an *ErrorList, got %v", src, err)
		}
		if len(list.Problems) != 1 || !strings.Contains(list.Problems[0].Msg, "timeout must be") {
			t.Errorf("%q: problems:\n%v\nwant one, about the timeout", src, err)
		}
	}
}
