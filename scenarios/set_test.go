package scenarios

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// setCase is one --set override and what must come of it.
type setCase struct {
	key, value string
	wantErr    string // the whole error text; empty for success
}

// TestSetOnEveryBuiltin applies the overrides docs/scenarios.md promises to every
// built-in: valid values must be accepted, invalid ones refused with a
// message naming the --set argument.
func TestSetOnEveryBuiltin(t *testing.T) {
	cases := []setCase{
		{key: "bosses", value: "4"},
		{key: "bosses", value: "1"},
		{key: "workers", value: "8"},
		{key: "duration", value: "2s"},
		{key: "duration", value: "10s"},
		{key: "loop.io_ratio", value: "100"},
		{key: "loop.io_ratio", value: "1"},
		{key: "loop.rebuild_threshold", value: "0"},
		{key: "loop.rebuild_threshold", value: "1024"},
		{key: "loop.selector", value: "epoll"},
		{key: "loop.selector", value: "nio"},
		{key: "loop.trigger", value: "edge"},
		{key: "loop.trigger", value: "level"},
		{key: "server.reuseport", value: "true"},
		{key: "server.reuseport", value: "false"},
		{key: "server.ports", value: "2"},
		{key: "bosses", value: "0", wantErr: "--set bosses=0: bosses must be 1..64, got 0"},
		{key: "bosses", value: "many", wantErr: `--set bosses=many: bosses must be a whole number, got "many"`},
		{key: "workers", value: "-1", wantErr: "--set workers=-1: workers must be 0..256, got -1"},
		{key: "duration", value: "1h", wantErr: "--set duration=1h: duration must be 100ms..10m, got 1h"},
		{key: "duration", value: "2", wantErr: "--set duration=2: duration must be a duration such as 2s, 500ms or 20us, got 2"},
		{key: "loop.io_ratio", value: "0", wantErr: "--set loop.io_ratio=0: io_ratio must be 1..100, got 0"},
		{key: "loop.io_ratio", value: "101", wantErr: "--set loop.io_ratio=101: io_ratio must be 1..100, got 101"},
		{key: "loop.rebuild_threshold", value: "-5", wantErr: "--set loop.rebuild_threshold=-5: rebuild_threshold must be 0..1000000, got -5"},
		{key: "loop.selector", value: "kqueue", wantErr: "--set loop.selector=kqueue: selector must be one of nio, epoll, io_uring, got kqueue"},
		{key: "loop.trigger", value: "edgy", wantErr: "--set loop.trigger=edgy: trigger must be one of level, edge, got edgy (did you mean edge?)"},
		{key: "server.reuseport", value: "yes", wantErr: `--set server.reuseport=yes: reuseport must be true or false, got "yes"`},
		{key: "server.ports", value: "0", wantErr: "--set server.ports=0: ports must be 1..16, got 0"},
		{key: "loop.iorate", value: "5", wantErr: "--set loop.iorate=5: unknown key iorate in loop"},
	}
	for _, name := range builtinOrder {
		for _, c := range cases {
			t.Run(name+"/"+c.key+"="+c.value, func(t *testing.T) {
				s, err := Load(name)
				if err != nil {
					t.Fatal(err)
				}
				before := *s
				err = s.Set(c.key, c.value)
				if c.wantErr == "" {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					checkSetApplied(t, s, c)
					return
				}
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				var list *ErrorList
				if !errors.As(err, &list) {
					t.Fatalf("want an *ErrorList, got %T", err)
				}
				if s.Loop != before.Loop || s.Server != before.Server || s.Duration != before.Duration || s.Workers != before.Workers || s.Bosses != before.Bosses {
					t.Error("a refused override changed the scenario")
				}
			})
		}
	}
}

// checkSetApplied looks the override up in the typed scenario.
func checkSetApplied(t *testing.T, s *Scenario, c setCase) {
	t.Helper()
	got := map[string]string{
		"bosses":                 strconv.Itoa(s.Bosses),
		"workers":                strconv.Itoa(s.Workers),
		"duration":               durationString(s.Duration),
		"loop.io_ratio":          strconv.Itoa(s.Loop.IORatio),
		"loop.rebuild_threshold": strconv.Itoa(s.Loop.RebuildThreshold),
		"loop.selector":          string(s.Loop.Selector),
		"loop.trigger":           string(s.Loop.Trigger),
		"server.reuseport":       strconv.FormatBool(s.Server.ReusePort),
		"server.ports":           strconv.Itoa(s.Server.Ports),
	}[c.key]
	if got != c.value {
		t.Errorf("after --set %s=%s the scenario has %s", c.key, c.value, got)
	}
}

func TestSet(t *testing.T) {
	base := `name: base
workers: 3
clients:
  - {connections: 2, rate: 10/s}
timeline:
  - {at: 1s, submit: tasks, loop: worker-2}
expect:
  - worker-2.tasks_run > 0
`
	tests := []struct {
		name    string
		src     string
		sets    [][2]string
		wantErr string
		check   func(t *testing.T, s *Scenario)
	}{
		{
			name: "creates a missing section",
			src:  "name: x\n",
			sets: [][2]string{{"loop.io_ratio", "10"}, {"server.reuseport", "true"}},
			check: func(t *testing.T, s *Scenario) {
				if s.Loop.IORatio != 10 || !s.Server.ReusePort {
					t.Errorf("loop %+v server %+v", s.Loop, s.Server)
				}
			},
		},
		{
			name: "fills a section written with no value",
			src:  "name: x\nloop:\n",
			sets: [][2]string{{"loop.trigger", "edge"}},
			check: func(t *testing.T, s *Scenario) {
				if s.Loop.Trigger != TriggerEdge {
					t.Errorf("trigger %s", s.Loop.Trigger)
				}
			},
		},
		{
			name: "later override wins and earlier ones stay",
			src:  base,
			sets: [][2]string{{"loop.io_ratio", "10"}, {"duration", "2s"}, {"loop.io_ratio", "20"}},
			check: func(t *testing.T, s *Scenario) {
				if s.Loop.IORatio != 20 || s.Duration != 2*time.Second {
					t.Errorf("io_ratio %d duration %v", s.Loop.IORatio, s.Duration)
				}
			},
		},
		{
			name: "list index",
			src:  base,
			sets: [][2]string{{"clients.0.rate", "max"}, {"clients.0.via", "engine"}},
			check: func(t *testing.T, s *Scenario) {
				if !s.Clients[0].Rate.Max() || s.Clients[0].Via != ViaEngine {
					t.Errorf("client %+v", s.Clients[0])
				}
				if got := s.Groups()[2].Name; got != GroupClient {
					t.Errorf("engine clients must add the client group, got %s", got)
				}
			},
		},
		{
			name: "flow list clears expectations",
			src:  base,
			sets: [][2]string{{"expect", "[]"}, {"timeline", "[]"}, {"workers", "1"}},
			check: func(t *testing.T, s *Scenario) {
				if len(s.Expect) != 0 || len(s.Timeline) != 0 || s.Workers != 1 {
					t.Errorf("expect %v timeline %v workers %d", s.Expect, s.Timeline, s.Workers)
				}
			},
		},
		{
			name: "flow mapping replaces a section",
			src:  base,
			sets: [][2]string{{"loop", "{io_ratio: 70, selector: epoll}"}},
			check: func(t *testing.T, s *Scenario) {
				if s.Loop.IORatio != 70 || s.Loop.Selector != SelectorEpoll {
					t.Errorf("loop %+v", s.Loop)
				}
			},
		},
		{
			name: "replaces one expectation",
			src:  base,
			sets: [][2]string{{"expect.0", "worker-2.tasks_run >= 5"}},
			check: func(t *testing.T, s *Scenario) {
				if s.Expect[0].Text != "worker-2.tasks_run >= 5" {
					t.Errorf("expect %v", s.Expect)
				}
			},
		},
		{
			name: "any scalar is text for a string field",
			src:  "name: x\n",
			sets: [][2]string{{"summary", "42"}},
			check: func(t *testing.T, s *Scenario) {
				if s.Summary != "42" {
					t.Errorf("summary %q", s.Summary)
				}
			},
		},
		{
			name: "empty value is an empty string",
			src:  "name: x\nsummary: old\n",
			sets: [][2]string{{"summary", ""}},
			check: func(t *testing.T, s *Scenario) {
				if s.Summary != "" {
					t.Errorf("summary %q", s.Summary)
				}
			},
		},
		{
			name:    "cross-field problem names the override",
			src:     base,
			sets:    [][2]string{{"workers", "2"}},
			wantErr: "t.yaml:6:35: unknown loop worker-2: workers is 2 (from --set workers=2), so the worker loops are worker-0..worker-1\nt.yaml:8:5: unknown loop worker-2: workers is 2 (from --set workers=2), so the worker loops are worker-0..worker-1",
		},
		{
			name:    "index out of range",
			src:     base,
			sets:    [][2]string{{"clients.3.rate", "max"}},
			wantErr: "--set clients.3.rate=max: clients has 1 entry; 3 is not an index (0..0)",
		},
		{
			name:    "path through a scalar",
			src:     base,
			sets:    [][2]string{{"workers.count", "1"}},
			wantErr: "--set workers.count=1: workers is not a mapping or a list, so it has no workers.count",
		},
		{
			name:    "empty path part",
			src:     base,
			sets:    [][2]string{{"loop..io_ratio", "1"}},
			wantErr: "--set loop..io_ratio=1: key must be a dotted path such as loop.io_ratio",
		},
		{
			name:    "empty key",
			src:     base,
			sets:    [][2]string{{"", "1"}},
			wantErr: "--set =1: key must be a dotted path such as loop.io_ratio",
		},
		{
			name:    "control character in value",
			src:     base,
			sets:    [][2]string{{"summary", "a\x00b"}},
			wantErr: `--set summary=a\x00b: value contains control character '\x00'`,
		},
		{
			name:    "broken flow value",
			src:     base,
			sets:    [][2]string{{"expect", "[a, b"}},
			wantErr: "--set expect=[a, b: value is not a valid YAML flow list or mapping",
		},
		{
			name:    "unknown key in a flow mapping",
			src:     base,
			sets:    [][2]string{{"server", "{protocol: echo, port: 2}"}},
			wantErr: "--set server={protocol: echo, port: 2}: unknown key port in server (did you mean ports?)",
		},
		{
			name:    "unknown top-level key",
			src:     base,
			sets:    [][2]string{{"threads", "4"}},
			wantErr: "--set threads=4: unknown key threads in the scenario",
		},
		{
			name:    "model change breaks expectations",
			src:     base,
			sets:    [][2]string{{"model", "single"}},
			wantErr: "t.yaml:6:35: unknown loop worker-2: model single has one loop, reactor-0\nt.yaml:8:5: unknown loop worker-2: model single has one loop, reactor-0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			for i, kv := range tt.sets {
				err = s.Set(kv[0], kv[1])
				if err != nil && i < len(tt.sets)-1 {
					t.Fatalf("--set %s=%s: %v", kv[0], kv[1], err)
				}
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error:\n%v\nwant:\n%s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestCloneIsIndependent(t *testing.T) {
	s, err := Load("tour")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Clone()
	if err := c.Set("loop.io_ratio", "90"); err != nil {
		t.Fatal(err)
	}
	c.Clients[0].Connections = 99
	if s.Loop.IORatio != 50 || s.Clients[0].Connections != 2 {
		t.Errorf("clone shares state with the original: io_ratio %d, connections %d", s.Loop.IORatio, s.Clients[0].Connections)
	}
	// The clone remembers its overrides: a later Set replays them.
	if err := c.Set("duration", "2s"); err != nil {
		t.Fatal(err)
	}
	if c.Loop.IORatio != 90 {
		t.Errorf("clone lost its earlier override: io_ratio %d", c.Loop.IORatio)
	}
}

func TestForModel(t *testing.T) {
	tests := []struct {
		name    string
		from    string
		model   Model
		wantErr string
		groups  string
	}{
		{name: "multi to single", from: "multi-reactor", model: ModelSingle, groups: "reactor"},
		{name: "single to master-slave", from: "single-reactor", model: ModelMasterSlave, groups: "boss worker"},
		{name: "timeline names a worker", from: "tour", model: ModelSingle, wantErr: "unknown loop worker-1: model single has one loop, reactor-0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(tt.from)
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.ForModel(tt.model)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, g := range c.Groups() {
				names = append(names, g.Name)
			}
			if c.Model != tt.model || len(c.Expect) != 0 || strings.Join(names, " ") != tt.groups {
				t.Errorf("model %s, %d expectations, groups %v", c.Model, len(c.Expect), names)
			}
			if s.Model == tt.model || len(s.Expect) == 0 {
				t.Error("ForModel changed the original")
			}
		})
	}
}

// TestSetArgumentIsClipped checks how an override is shown as the "file"
// of its problem: whole when short, cut on a character boundary when long
// (counting characters, not bytes), quoted when it is not valid UTF-8.
func TestSetArgumentIsClipped(t *testing.T) {
	emoji := strings.Repeat("😀", 16) // 64 bytes, 16 characters
	long := strings.Repeat("é", 70)
	tests := []struct {
		name, value, wantFile string
	}{
		{name: "short in characters, long in bytes", value: emoji, wantFile: "--set loop.io_ratio=" + emoji},
		{name: "long", value: long, wantFile: "--set loop.io_ratio=" + strings.Repeat("é", 60) + "…"},
		{name: "invalid UTF-8", value: "\xff", wantFile: `--set loop.io_ratio="\xff"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte("name: x\n"))
			if err != nil {
				t.Fatal(err)
			}
			var el *ErrorList
			if err := s.Set("loop.io_ratio", tt.value); !errors.As(err, &el) {
				t.Fatalf("error %v, want an *ErrorList", err)
			}
			if got := el.Problems[0].File; got != tt.wantFile {
				t.Errorf("file %q, want %q", got, tt.wantFile)
			}
			if strings.ContainsRune(el.Error(), 0) {
				t.Errorf("NUL in %q", el.Error())
			}
		})
	}
}

// A problem an override causes elsewhere in the file says which override:
// each failing --set gets its own line naming it, at the position of the
// value it pushed over a limit.
func TestSetNamesTheOverrideBehindAProblemElsewhere(t *testing.T) {
	src := []byte("name: c\nmodel: multi\nserver: {protocol: echo}\nclients:\n  - {connections: 3}\n  - {connections: 3}\n")
	for _, tc := range []struct {
		sets [][2]string
		want string
	}{
		{[][2]string{{"clients.0.connections", "10000"}}, "c.yaml:5:3: clients open 10003 connections in all (from --set clients.0.connections=10000); the limit is 10000"},
		{[][2]string{{"clients.1.connections", "9999"}}, "c.yaml:5:3: clients open 10002 connections in all (from --set clients.1.connections=9999); the limit is 10000"},
		{[][2]string{{"clients.0.payload", "1MiB"}, {"clients.0.pipeline", "64"}},
			"c.yaml:5:19: clients.0 keeps 192.0 MiB in flight (3 connection(s) × 1MiB × pipeline 64) (from --set clients.0.payload=1MiB, --set clients.0.pipeline=64); the limit is 64.0 MiB"},
	} {
		s, err := Parse("c.yaml", src)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range tc.sets[:len(tc.sets)-1] {
			if err := s.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		last := tc.sets[len(tc.sets)-1]
		if err := s.Set(last[0], last[1]); err == nil || err.Error() != tc.want {
			t.Errorf("--set %v: %v\nwant %s", tc.sets, err, tc.want)
		}
	}
}
