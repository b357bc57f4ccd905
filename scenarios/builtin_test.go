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
