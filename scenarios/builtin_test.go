package scenarios

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestBuiltinsParse(t *testing.T) {
	for _, name := range builtinOrder {
		t.Run(name, func(t *testing.T) {
			s, err := Load(name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != name {
				t.Errorf("file %s.yaml is named %q inside", name, s.Name)
			}
			if s.Summary == "" || len(s.Concepts) == 0 || len(s.Expect) == 0 {
				t.Errorf("a built-in needs a summary, concepts and expectations; got %q, %v, %d clauses", s.Summary, s.Concepts, len(s.Expect))
			}
			if len(s.Warnings()) != 0 {
				t.Errorf("warnings in a built-in: %v", s.Warnings())
			}
			// CI runs every built-in headless on two cores: keep them short.
			// The tour is the one meant to be watched from start to end.
			limit := 4 * time.Second
			if name == Default {
				limit = 25 * time.Second
			}
			if s.Duration < 2*time.Second || s.Duration > limit {
				t.Errorf("duration %v; built-ins run 2s..%v", s.Duration, limit)
			}
			src, _ := BuiltinSource(name)
			if !strings.HasPrefix(string(src), "# ") {
				t.Error("a built-in starts with a comment saying what to watch")
			}
		})
	}
}

// TestBuiltinOrder keeps the presentation list and the embedded files in
// step, so a new file cannot be forgotten in `reactorviz list`.
func TestBuiltinOrder(t *testing.T) {
	entries, err := fs.Glob(builtinFS, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, strings.TrimSuffix(e, ".yaml"))
	}
	if got, want := slices.Sorted(slices.Values(files)), slices.Sorted(slices.Values(builtinOrder)); !slices.Equal(got, want) {
		t.Errorf("embedded %v, listed %v", got, want)
	}
	var listed []string
	for _, info := range Builtin() {
		listed = append(listed, info.Name)
	}
	if !slices.Equal(listed, builtinOrder) {
		t.Errorf("Builtin() = %v", listed)
	}
	if listed[0] != Default {
		t.Errorf("the first built-in is %s, want the default %s", listed[0], Default)
	}
}

// TestBuiltinsCoverChecklist checks that together the built-ins show every
// concept of the teaching checklist (seeds/README.md), and that the
// scenarios docs/concepts.md names all exist.
func TestBuiltinsCoverChecklist(t *testing.T) {
	covered := map[string]bool{}
	for _, info := range Builtin() {
		for _, c := range info.Concepts {
			covered[c] = true
		}
	}
	for i := 1; i <= 26; i++ {
		c := "C" + strconv.Itoa(i)
		if !covered[c] {
			t.Errorf("no built-in covers %s", c)
		}
	}
	required := []string{
		"tour", "single-reactor", "multi-reactor", "master-slave", "boss-idle", "chooser",
		"lazy-start", "spurious-wakeup", "jdk-epoll-bug", "io-ratio", "task-deadline-64",
		"wakeup-coalescing", "scheduled-timers", "blocking-handler", "edge-vs-level",
		"graceful-shutdown", "client-bootstrap", "http-plaintext", "resp-ping",
	}
	for _, name := range required {
		if !slices.Contains(builtinOrder, name) {
			t.Errorf("missing built-in %s", name)
		}
	}
	models := map[Model]bool{}
	for _, info := range Builtin() {
		models[info.Model] = true
	}
	if len(models) != 3 {
		t.Errorf("built-ins use models %v; want all three", models)
	}
}

// TestBuiltinsExerciseEveryFeature checks that every fault and timeline
// action appears in at least one built-in, so a headless run of all of them
// exercises the whole simulation.
func TestBuiltinsExerciseEveryFeature(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range builtinOrder {
		s, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range s.Timeline {
			switch a := a.(type) {
			case Inject:
				seen["inject "+string(a.Fault)] = true
			case Submit:
				seen["submit tail="+strconv.FormatBool(a.Tail)+" from "+string(a.From)] = true
			case Schedule:
				seen["schedule "+string(a.Mode)] = true
			case WheelTimeouts:
				seen["wheel"] = true
			case SetIORatio:
				seen["set"] = true
			case Offload:
				seen["offload"] = true
			case Shutdown:
				seen["shutdown"] = true
			}
		}
		for _, c := range s.Clients {
			seen["via "+string(c.Via)] = true
			seen["protocol "+string(c.Protocol)] = true
		}
		seen["selector "+string(s.Loop.Selector)] = true
		seen["trigger "+string(s.Loop.Trigger)] = true
	}
	want := []string{
		"submit tail=false from external", "submit tail=false from loop", "submit tail=true from external",
		"schedule once", "schedule fixed-rate", "schedule fixed-delay",
		"wheel", "set", "offload", "shutdown",
		"via net", "via engine", "protocol echo", "protocol http", "protocol resp",
		"selector nio", "trigger level", "trigger edge",
	}
	for _, f := range faults {
		want = append(want, "inject "+f)
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no built-in uses %s", w)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.yaml")
	writeFile(t, good, "name: mine\n")
	bad := filepath.Join(dir, "bad.yml")
	writeFile(t, bad, "name: bad\nworkers: x\n")
	huge := filepath.Join(dir, "huge.yaml")
	writeFile(t, huge, strings.Repeat("#", MaxFileSize+10))

	tests := []struct {
		name    string
		arg     string
		want    string // scenario name on success
		wantErr string // substring of the error
		unknown bool   // error wraps ErrUnknownScenario
	}{
		{name: "built-in", arg: "chooser", want: "chooser"},
		{name: "file by path", arg: good, want: "mine"},
		{name: "bad file", arg: bad, wantErr: bad + ":2:10: workers must be a whole number"},
		{name: "huge file", arg: huge, wantErr: huge + ": file is larger than 1 MiB"},
		{name: "missing path", arg: filepath.Join(dir, "nope.yaml"), wantErr: "no such file"},
		{name: "unknown name", arg: "no-such-scenario", wantErr: `unknown scenario "no-such-scenario"`, unknown: true},
		{name: "directory", arg: dir + "/", wantErr: "is a directory"},
		{name: "path-looking built-in name", arg: "./tour", wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(tt.arg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s.Name != tt.want {
					t.Errorf("loaded %q, want %q", s.Name, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
			}
			if got := errors.Is(err, ErrUnknownScenario); got != tt.unknown {
				t.Errorf("errors.Is(err, ErrUnknownScenario) = %v", got)
			}
		})
	}
}

func TestBuiltinSource(t *testing.T) {
	if _, ok := BuiltinSource("../parse.go"); ok {
		t.Error("BuiltinSource must not reach outside the embedded files")
	}
	src, ok := BuiltinSource("tour")
	if !ok || !strings.Contains(string(src), "name: tour") {
		t.Errorf("tour source: %v %q", ok, src)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The compare workloads parse, say what to watch, and carry compare
// clauses; their names may shadow a scenario's only under compare.
func TestWorkloadsParse(t *testing.T) {
	if got := len(Workloads()); got != len(workloadOrder) {
		t.Fatalf("Workloads() lists %d, want %d", got, len(workloadOrder))
	}
	for _, name := range workloadOrder {
		t.Run(name, func(t *testing.T) {
			s, err := LoadWorkload(name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != name || s.Summary == "" || len(s.Compare) == 0 || len(s.Warnings()) != 0 {
				t.Errorf("workload %s: name %q, summary %q, %d compare clauses, warnings %v",
					name, s.Name, s.Summary, len(s.Compare), s.Warnings())
			}
			src, _ := WorkloadSource(name)
			if !strings.HasPrefix(string(src), "# ") {
				t.Error("a workload starts with a comment saying what to watch")
			}
			for _, m := range models {
				if _, err := s.ForModel(Model(m)); err != nil {
					t.Errorf("under %s: %v", m, err)
				}
			}
		})
	}
	s, err := Load("blocking-handler")
	if err != nil || len(s.Compare) != 0 {
		t.Errorf("Load(blocking-handler) must be the scenario, got %v, %d compare clauses", err, len(s.Compare))
	}
}

// A compare clause reads figures by model, scales by its factor, and is
// skipped when it reads a model that was not run.
func TestCompareClauseEval(t *testing.T) {
	figs := map[string]float64{"single.p99_us": 1000, "multi.p99_us": 150}
	get := func(m, f string) (float64, bool) { v, ok := figs[m+"."+f]; return v, ok }
	for _, tc := range []struct {
		clause string
		ok     bool
		reason string
	}{
		{clause: "single.p99_us >= 5 * multi.p99_us", ok: true},
		{clause: "single.p99_us >= 7 * multi.p99_us", ok: false, reason: "1000 >= 1050 does not hold"},
		{clause: "2 * single.p99_us == 2000", ok: true},
		{clause: "master-slave.p99_us < single.p99_us", ok: true, reason: "skipped: a model it reads was not run"},
	} {
		c, err := ParseCompare(tc.clause)
		if err != nil {
			t.Fatalf("%s: %v", tc.clause, err)
		}
		res := c.Eval(get)
		if res.OK != tc.ok || res.Reason != tc.reason {
			t.Errorf("%s: ok %v reason %q, want %v %q", tc.clause, res.OK, res.Reason, tc.ok, tc.reason)
		}
	}
}

// LoadBuiltin knows the built-ins and the compare workloads, and reads no
// file, even one that exists.
func TestLoadBuiltinOpensNoFile(t *testing.T) {
	for _, name := range []string{"tour", "cpu-bound"} {
		if _, err := LoadBuiltin(name); err != nil {
			t.Errorf("LoadBuiltin(%q): %v", name, err)
		}
	}
	p := filepath.Join(t.TempDir(), "tour.yaml")
	if err := os.WriteFile(p, []byte("name: tour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{p, "/etc/passwd", "../tour", ""} {
		if _, err := LoadBuiltin(name); !errors.Is(err, ErrUnknownScenario) {
			t.Errorf("LoadBuiltin(%q) = %v, want ErrUnknownScenario", name, err)
		}
	}
}
