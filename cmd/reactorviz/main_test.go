//go:build linux && !nolive

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

func TestExitCodes(t *testing.T) {
	failing := writeFile(t, "failing.yaml", `name: failing
summary: an expectation that cannot hold
model: multi
duration: 200ms
server: {protocol: echo}
expect:
  - boss-0.accepted == 42
`)
	broken := writeFile(t, "broken.yaml", "name: broken\nmodel: triple\nworkers: -1\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{name: "version", args: []string{"version"}, code: exitOK, out: "reactorviz"},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage, err: "unknown command"},
		{name: "unknown flag", args: []string{"list", "--bogus"}, code: exitUsage, err: "bogus"},
		{name: "unknown scenario", args: []string{"run", "no-such-scenario", "--headless"}, code: exitUsage},
		{name: "bad set", args: []string{"run", "tour", "--headless", "--set", "loop.io_ratio=0"}, code: exitUsage, err: "io_ratio"},
		{name: "bad set key", args: []string{"run", "tour", "--headless", "--set", "loop.nope=1"}, code: exitUsage},
		{name: "missing argument", args: []string{"run"}, code: exitUsage},
		{name: "show unknown", args: []string{"show", "nope"}, code: exitUsage},
		{name: "show", args: []string{"show", "tour"}, code: exitOK, out: "name: tour"},
		{name: "validate broken", args: []string{"validate", broken}, code: exitUsage, err: broken + ":2:"},
		{name: "expectation fails", args: []string{"run", failing, "--headless"}, code: exitExpect, out: "FAIL", err: "running failing headless for "},
		{name: "serve refuses remote", args: []string{"serve", "--headless", "--addr", "10.1.2.3:80"}, code: exitUsage, err: "--allow-remote"},
		{name: "serve bad protocol", args: []string{"serve", "--protocol", "gopher"}, code: exitUsage},
		{name: "serve bad port", args: []string{"serve", "--headless", "--addr", "127.0.0.1:99999"}, code: exitUsage, err: "port"},
		{name: "trace and chrome one file", args: []string{"run", "tour", "--headless", "--trace", "x.out", "--chrome", "./x.out"}, code: exitUsage, err: "are the same file"},
		{name: "serve negative duration", args: []string{"serve", "--headless", "--duration", "-1s"}, code: exitUsage, err: "--duration -1s: duration must be positive"},
		{name: "serve bad transport", args: []string{"serve", "--headless", "--transport", "kqueue"}, code: exitUsage, err: "--transport"},
		{name: "serve too many workers", args: []string{"serve", "--headless", "--workers", "300"}, code: exitUsage, err: "--workers"},
		{name: "replay missing", args: []string{"replay", "/nonexistent.jsonl", "--headless"}, code: exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, out, errs)
			}
			if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic:") {
				t.Fatalf("stack trace on stderr:\n%s", errs)
			}
		})
	}
}

// A bad --duration is reported once, under the flag's own name, not as the
// --set it is applied through.
func TestBadDurationMessage(t *testing.T) {
	code, _, errs := runCLI(t, "run", "tour", "--headless", "--duration", "20m")
	want := "reactorviz: --duration 20m0s: duration must be 100ms..10m, got 20m0s\n"
	if code != exitUsage || errs != want {
		t.Fatalf("exit %d (want %d)\nstderr: %q\nwant:   %q", code, exitUsage, errs, want)
	}
}

func TestHelpOnEveryCommand(t *testing.T) {
	for _, c := range commands {
		code, out, _ := runCLI(t, c.name, "--help")
		if code != exitOK || !strings.Contains(out, "usage: reactorviz "+c.name) && c.name != "help" {
			t.Errorf("%s --help: exit %d, %q", c.name, code, out)
		}
	}
}

// TestShowHelpListsTheFields: show's help is the decoder's table of
// fields, by the paths --set takes.
func TestShowHelpListsTheFields(t *testing.T) {
	code, out, _ := runCLI(t, "show", "--help")
	if code != exitOK || !strings.Contains(out, scenarios.FieldHelp()) {
		t.Fatalf("show --help: exit %d, %q", code, out)
	}
	for _, path := range []string{"loop.io_ratio", "clients.N.rate", "autoscale.step_down", "timeline.N.inject"} {
		if !strings.Contains(out, "  "+path+" ") {
			t.Errorf("show --help does not list %s", path)
		}
	}
}

func TestServeBindFailureIsRuntimeError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errs := runCLI(t, "serve", "--headless", "--addr", ln.Addr().String(), "--duration", "100ms")
	if code != exitRuntime {
		t.Fatalf("exit %d, want %d: %s", code, exitRuntime, errs)
	}
}

func TestServeRunsAndStops(t *testing.T) {
	code, out, errs := runCLI(t, "serve", "--headless", "--json", "--addr", "127.0.0.1:0", "--workers", "1", "--duration", "200ms")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Scenario string
		Loops    []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("--json printed more than one JSON object: %v\n%s", err, out)
	}
	// multi: boss-0, started by the bind and shut down, and one worker that
	// no connection ever started (loops start lazily, as in Netty).
	want := []struct{ Name, State string }{{"boss-0", "TERMINATED"}, {"worker-0", "NOT_STARTED"}}
	if s.Scenario != "serve" || !slices.Equal(s.Loops, want) {
		t.Fatalf("summary of %q with loops %+v; want serve with %+v", s.Scenario, s.Loops, want)
	}
}

// serve --transport io_uring runs Netty 4.2's loop on a ring: it starts,
// serves nothing, and stops cleanly, or, where the kernel refuses io_uring,
// exits 3 saying so.
func TestServeOnIOUring(t *testing.T) {
	code, out, errs := runCLI(t, "serve", "--headless", "--json", "--transport", "io_uring", "--addr", "127.0.0.1:0", "--workers", "1", "--duration", "200ms")
	if code == exitRuntime && strings.Contains(errs, "io_uring unavailable") {
		t.Skip(errs)
	}
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `"netty"`) || strings.Contains(errs, "warning") {
		t.Fatalf("want a 4.2 summary and no warning; got %s\n%s", out, errs)
	}
}

// --cpuprofile writes a profile that go tool pprof can read: a gzipped
// protocol buffer, whatever the run did.
func TestServeWritesCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	code, _, errs := runCLI(t, "serve", "--headless", "--addr", "127.0.0.1:0", "--workers", "1",
		"--duration", "200ms", "--cpuprofile", prof)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile is not gzipped protobuf: %d bytes % x", len(b), b[:min(len(b), 8)])
	}
	code, _, errs = runCLI(t, "serve", "--headless", "--addr", "127.0.0.1:0", "--duration", "10ms",
		"--cpuprofile", filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	if code != exitRuntime || !strings.Contains(errs, "cpu.pprof") {
		t.Fatalf("unwritable profile: exit %d, %s", code, errs)
	}
}

// With the TUI open, --cpuprofile profiles the run with the UI in it: the
// UI's fold and drawing share the server's cores, and that is the cost
// such a profile is taken to find.
func TestServeTUIWritesCPUProfile(t *testing.T) {
	old := serveTUI
	t.Cleanup(func() { serveTUI = old })
	ran := false
	serveTUI = func(sim.ServeOptions, time.Duration, uiFlags, io.Writer) error {
		ran = true
		return nil
	}
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	code, _, errs := runTTY(t, "serve", "--addr", "127.0.0.1:0", "--workers", "1", "--cpuprofile", prof)
	if code != exitOK || !ran {
		t.Fatalf("exit %d, TUI opened %v: %s", code, ran, errs)
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile is not gzipped protobuf: %d bytes % x", len(b), b[:min(len(b), 8)])
	}
}

// The JSON summary carries the stable keys of docs/scenarios.md, and a trace
// replayed headless reproduces the live run's per-loop counters and the
// wheel's ticks and expiries: on a server under a selector storm, on the
// engine's own client side, and with the wheel's timeouts expiring (at 2 s).
// A run's --json summary and the headless replay of its trace agree on
// every key but the scenario's own warnings (a replay reads the built-in
// without the run's --duration): the loops' counters, system calls and time
// split, the clients' latency, the wheel, the pool, the expectations. The
// replay reads the figures no event carries from the trace's samples.
func TestRunJSONAndReplayRoundTrip(t *testing.T) {
	names := []string{"spurious-wakeup", "client-bootstrap", "scheduled-timers", "tour"}
	if !testing.Short() {
		names = names[:0]
		for _, in := range scenarios.Builtin() {
			names = append(names, in.Name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { roundTrip(t, name, "700ms") })
	}
}

func roundTrip(t *testing.T, name, duration string) {
	trace := filepath.Join(t.TempDir(), "run.jsonl")
	code, out, errs := runCLI(t, "run", name, "--json", "--duration", duration, "--trace", trace)
	if code == exitRuntime && strings.Contains(errs, "did not terminate") {
		// A task flood cut short leaves a loop more queued tasks than a
		// busy machine runs within the shutdown's timeout: the run failed,
		// there is no summary to compare.
		t.Skipf("run: %s", strings.TrimSpace(errs))
	}
	if code != exitOK && code != exitExpect {
		t.Fatalf("run: exit %d: %s\n%s", code, errs, out)
	}
	var live map[string]any
	if err := json.Unmarshal([]byte(out), &live); err != nil {
		t.Fatal(err)
	}
	// A run that records a trace file sizes its rings so that none drops
	// (sim's traceRingSize): a drop is a bug here, not bad luck.
	if d := live["events"].(map[string]any)["dropped"]; d != 0.0 {
		t.Fatalf("the run dropped %v events: the trace is incomplete and the replay cannot match", d)
	}
	rcode, rout, rerrs := runCLI(t, "replay", trace, "--json")
	if rcode != code {
		t.Fatalf("replay: exit %d, the run's %d: %s", rcode, code, rerrs)
	}
	var replayed map[string]any
	if err := json.Unmarshal([]byte(rout), &replayed); err != nil {
		t.Fatal(err)
	}
	delete(live, "warnings")
	delete(replayed, "warnings")
	if c, ok := live["clients"].(map[string]any); !ok || c["latency_us"] == nil {
		t.Fatalf("the run's summary has no client latency: %v", live["clients"])
	}
	for k, v := range live {
		lj, _ := json.Marshal(v)
		rj, _ := json.Marshal(replayed[k])
		if !bytes.Equal(lj, rj) {
			t.Errorf("%s:\n live     %s\n replayed %s", k, lj, rj)
		}
	}
	for k := range replayed {
		if _, ok := live[k]; !ok {
			t.Errorf("the replay has %q, the run has not", k)
		}
	}
}

func TestCompareHeadlessJSON(t *testing.T) {
	code, out, errs := runCLI(t, "compare", "multi-reactor", "--json", "--duration", "400ms")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var cmp struct {
		Workload map[string]any   `json:"workload"`
		Models   []map[string]any `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Models) != 3 || cmp.Models[0]["model"] != "single" || cmp.Models[2]["model"] != "master-slave" {
		t.Fatalf("models: %v", cmp.Models)
	}
}

// compare NAME runs the compare workload of that name, and its JSON gives
// each model's figures, the verdict and the compare clauses; run NAME still
// runs the scenario. The clauses are cleared: 400ms is too short for the
// workload's blocking handler, which starts at 1s, and timing is not
// asserted in tests.
func TestCompareWorkloadJSON(t *testing.T) {
	code, out, errs := runCLI(t, "compare", "blocking-handler", "--json", "--duration", "400ms", "--set", "compare=[]")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var cmp struct {
		Workload struct{ Scenario string }    `json:"workload"`
		Figures  []map[string]json.RawMessage `json:"figures"`
		Verdict  string                       `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	if cmp.Workload.Scenario != "blocking-handler" || len(cmp.Figures) != 3 || cmp.Verdict == "" {
		t.Fatalf("workload %q, %d figures, verdict %q", cmp.Workload.Scenario, len(cmp.Figures), cmp.Verdict)
	}
	for _, key := range []string{"time_split", "p50_us", "p99_us", "p999_us", "verdict"} {
		if _, ok := cmp.Figures[0][key]; !ok {
			t.Errorf("figures lack %s: %v", key, cmp.Figures[0])
		}
	}
	code, out, errs = runCLI(t, "compare", "blocking-handler", "--headless", "--duration", "200ms", "--set", "compare=[]")
	if code != exitOK || !strings.Contains(out, "verdict: ") {
		t.Fatalf("headless: exit %d: %s%s", code, out, errs)
	}
}

func TestCompareFlavours(t *testing.T) {
	code, out, errs := runCLI(t, "compare", "--flavours", "4.1.43,4.1,4.2", "multi-reactor", "--json", "--duration", "300ms")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var cmp struct {
		Models   []map[string]any `json:"models"`
		Flavours []map[string]any `json:"flavours"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Models) != 0 || len(cmp.Flavours) != 3 || cmp.Flavours[0]["netty"] != "4.1.43" ||
		cmp.Flavours[2]["netty"] != "4.2" || cmp.Flavours[1]["model"] != "multi" {
		t.Fatalf("flavours: %v", cmp.Flavours)
	}
	code, out, _ = runCLI(t, "compare", "--flavours", "4.1,4.2", "multi-reactor", "--duration", "200ms")
	if code != exitOK || !strings.Contains(out, "netty") || !strings.Contains(out, "4.2") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if code, _, errs := runCLI(t, "compare", "--flavours", "5.0", "multi-reactor"); code != exitUsage || !strings.Contains(errs, "unknown flavour") {
		t.Fatalf("--flavours 5.0: exit %d: %s", code, errs)
	}
}

// buildReactorviz builds the command into a temporary directory.
func buildReactorviz(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := builtOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// binDir holds the binary the tests share; TestMain removes it.
var binDir string

// builtOnce builds the command once for every test of the package: each
// build is seconds of a 2-core machine's time.
var builtOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "reactorviz-test-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "reactorviz")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v\n%s", err, out)
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// startCLI starts the built command with args and returns once the first
// line it writes to stderr holds ready; the rest of stderr is discarded,
// stdout collected.
func startCLI(t *testing.T, bin, ready string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.Contains(line, ready) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("never started: %q %v", line, err)
	}
	go io.Copy(io.Discard, stderr)
	return cmd, &out
}

// serve, run as the real binary, stops cleanly on SIGINT and prints its
// summary.
func TestServeStopsOnSIGINT(t *testing.T) {
	bin := buildReactorviz(t)
	cmd, out := startCLI(t, bin, "serving", "serve", "--headless", "--addr", "127.0.0.1:0", "--workers", "1")
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	if !strings.Contains(out.String(), "TERMINATED") {
		t.Fatalf("no summary:\n%s", out.String())
	}
}

// Every warning docs/scenarios.md documents is printed, with its position,
// by validate (which still says ok and exits 0) and by run (which still
// runs); validate --set and --duration bring the override's own.
func TestWarningsArePrinted(t *testing.T) {
	const base = "name: w\nsummary: warnings\nduration: 200ms\nserver: {protocol: %s}\n"
	for _, tc := range []struct {
		name, yaml string
		args       []string // extra flags for both commands
		want       string   // the warning, after "warning: "
	}{
		{"bosses under single", "model: single\nbosses: 2\n", nil,
			"w.yaml:6:9: warning: bosses does not apply to model single"},
		{"workers under single", "model: single\nworkers: 3\n", nil,
			"w.yaml:6:10: warning: workers does not apply to model single"},
		{"bosses under multi", "model: multi\nbosses: 2\n", nil,
			"w.yaml:6:9: warning: model multi has one boss loop; bosses: 2 takes effect with model master-slave"},
		{"client_loops without engine clients", "model: multi\nclient_loops: 2\n", nil,
			"w.yaml:6:15: warning: client_loops has no effect"},
		{"payload for http clients", "model: multi\nclients:\n  - {protocol: http, payload: 1KiB}\n", nil,
			"w.yaml:7:31: warning: payload applies to echo clients only"},
		{"clients start after the run", "model: multi\nclients:\n  - {start: 5s}\n", nil,
			"w.yaml:7:13: warning: these clients start at 5s, when the run (200ms) is over"},
		{"clients stop after the run", "model: multi\nclients:\n  - {stop: 5s}\n", nil,
			"w.yaml:7:12: warning: stop 5s is after the end of the run (200ms)"},
		{"action after the run", "model: multi\ntimeline:\n  - {at: 5s, submit: tasks, loop: worker-0}\n", nil,
			"w.yaml:7:10: warning: this action at 5s never happens: the run ends at 200ms"},
		{"an override's warning", "model: single\n", []string{"--set", "workers=2"},
			"--set workers=2: warning: workers does not apply to model single"},
		{"an override the timeline shadows", "model: multi\ntimeline:\n  - {at: 0s, set: io_ratio, loop: worker-0, value: 10}\n",
			[]string{"--set", "loop.io_ratio=100"},
			"--set loop.io_ratio=100: warning: loop.io_ratio is overridden by the timeline's set io_ratio on worker-0 at 0s"},
		{"a shorter --duration", "model: multi\ntimeline:\n  - {at: 150ms, submit: tasks, loop: worker-0}\n",
			[]string{"--duration", "100ms"}, "warning: this action at 150ms never happens: the run ends at 100ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proto := "echo"
			if strings.Contains(tc.yaml, "http") {
				proto = "http"
			}
			p := writeFile(t, "w.yaml", fmt.Sprintf(base, proto)+tc.yaml)
			for _, cmd := range [][]string{{"validate", p}, {"run", p, "--headless"}} {
				code, out, errs := runCLI(t, append(cmd, tc.args...)...)
				if code != exitOK || !strings.Contains(errs, tc.want) {
					t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s\nwant on stderr: %s", cmd[0], code, out, errs, tc.want)
				}
				if cmd[0] == "validate" && out != p+": ok\n" {
					t.Fatalf("validate stdout %q, want %q", out, p+": ok\n")
				}
			}
		})
	}
}

// validate applies --set and --duration as run does, and reports their
// problems the same way.
func TestValidateTakesOverrides(t *testing.T) {
	p := writeFile(t, "ok.yaml", "name: ok\nsummary: fine\nmodel: multi\nduration: 200ms\nserver: {protocol: echo}\n")
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--set", "loop.io_ratio=100", "--duration", "1s"}, exitOK, ""},
		{[]string{"--set", "loop.io_ratio=0"}, exitUsage, "--set loop.io_ratio=0: io_ratio must be 1..100, got 0"},
		{[]string{"--duration", "20m"}, exitUsage, "--duration 20m0s: duration must be 100ms..10m, got 20m0s"},
	} {
		code, _, errs := runCLI(t, append([]string{"validate", p}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("validate %v: exit %d (want %d), stderr %q", tc.args, code, tc.code, errs)
		}
	}
}

// compare --transports runs one workload under Netty 4.2 on each transport
// named, readiness against completion; an unknown transport is a usage
// error.
func TestCompareTransports(t *testing.T) {
	code, _, errs := runCLI(t, "compare", "multi-reactor", "--transports", "epoll,kqueue")
	if code != exitUsage || !strings.Contains(errs, "--transports") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, "compare", "multi-reactor", "--json", "--duration", "400ms", "--transports", "epoll,io_uring")
	if code == exitRuntime && strings.Contains(errs, "io_uring unavailable") {
		t.Skip(errs)
	}
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var cmp struct {
		Transports []string
		Runs       []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cmp.Transports, []string{"epoll", "io_uring"}) || len(cmp.Runs) != 2 || cmp.Runs[1]["netty"] != "4.2" {
		t.Fatalf("transports %v, %d runs", cmp.Transports, len(cmp.Runs))
	}
}
