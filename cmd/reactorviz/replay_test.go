package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// `replay tour` is the built-in recording, in every build: headless, the
// summary of the recorded run with the scenario's trace-checkable
// expectations met, and a note on stderr that it is a recording.
func TestReplayBuiltinRecording(t *testing.T) {
	code, out, errs := runCLI(t, "replay", "tour", "--headless")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if !strings.Contains(errs, "recording of tour") || !strings.Contains(out, "worker-0") {
		t.Fatalf("stdout: %s\nstderr: %s", out, errs)
	}
}

// The JSON summary of a recording carries the per-loop counters the
// manifest says were recorded: as many events as the run emitted.
func TestReplayRecordingJSON(t *testing.T) {
	ent, ok := recordings.Lookup("compare-single")
	if !ok {
		t.Fatal("no compare-single recording")
	}
	code, out, errs := runCLI(t, "replay", ent.Name, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Model  string `json:"model"`
		Events struct {
			Emitted uint64 `json:"emitted"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Model != "single" || s.Events.Emitted != ent.Events {
		t.Fatalf("model %q, %d events; want single, %d", s.Model, s.Events.Emitted, ent.Events)
	}
}

// tinyTrace writes a trace of n selects on one loop and returns its lines.
func tinyTrace(t *testing.T, n int) []string {
	t.Helper()
	var buf bytes.Buffer
	w := jsonl.NewWriter(&buf, jsonl.Header{Scenario: "hand-made", Model: "multi",
		Loops: []trace.LoopInfo{{Name: "worker-0", Group: "worker"}}}, jsonl.Options{})
	for i := range n {
		w.Consume([]trace.Event{{Seq: uint64(i + 1), Time: int64(i), Kind: trace.KindSelectBegin, A: 1e9, Str: "select"}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

// A trace cut short by a killed run replays what is complete: exit 0, the
// summary on stdout, a warning on stderr that says where it stops. A line
// corrupted in the middle stays an error naming FILE:LINE (exit 2).
func TestReplayCutShortAndCorrupt(t *testing.T) {
	lines := tinyTrace(t, 7)
	cut := writeFile(t, "cut.jsonl", strings.Join(lines[:len(lines)-1], ""))
	code, out, errs := runCLI(t, "replay", cut, "--headless")
	if code != exitOK || !strings.Contains(errs, "warning: "+cut+":9: no end line: the trace was cut short after 7 events") ||
		!strings.Contains(out, "worker-0") {
		t.Fatalf("cut: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	bad := append([]string(nil), lines...)
	bad[3] = "{\"seq\":3,\"t\":2,\"loop\":\"worker-0\",\"kind\":\"select_begin\",\"timeout_ns\":x}\n"
	corrupt := writeFile(t, "corrupt.jsonl", strings.Join(bad, ""))
	code, out, errs = runCLI(t, "replay", corrupt, "--headless")
	if code != exitUsage || !strings.Contains(errs, corrupt+":4: ") || out != "" {
		t.Fatalf("corrupt: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// A gzipped trace file replays like the plain one.
func TestReplayGzipFile(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(strings.Join(tinyTrace(t, 3), "")))
	zw.Close()
	p := filepath.Join(t.TempDir(), "t.jsonl.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "replay", p, "--json")
	if code != exitOK || !strings.Contains(out, `"selects": 3`) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

func TestReplayUnknownName(t *testing.T) {
	code, _, errs := runCLI(t, "replay", "no-such-recording", "--headless")
	if code != exitUsage || !strings.Contains(errs, "not a built-in recording") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
