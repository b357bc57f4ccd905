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
	"github.com/reactorviz/reactorviz/tui"
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

// evil holds what a hostile trace puts in its strings: an OSC that sets the
// window title, BEL, a CSI that clears the screen, a carriage return, an
// 8-bit CSI (U+009B) and a raw C1 byte.
const evil = "\x1b]0;PWNED\x07\x1b[2J\r\u009b31m\x9b\x1b]52;c;Zm9v\x07"

// rawControl returns the first byte of out that a terminal would act on:
// a C0 control other than newline and tab, DEL, or a C1 control (raw or
// UTF-8 encoded). -1 when there is none.
func rawControl(out []byte) int {
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return i
		case c == 0xc2 && i+1 < len(out) && out[i+1] >= 0x80 && out[i+1] <= 0x9f:
			return i
		case c >= 0x80 && c <= 0x9f && (i == 0 || out[i-1] < 0xc0):
			// A C1 byte on its own, not the continuation of a multi-byte
			// character.
			if i == 0 || out[i-1] < 0x80 {
				return i
			}
		}
	}
	return -1
}

// A trace whose header strings (scenario, model, config, loop and group
// names) and event strings hold terminal escapes replays headless with none
// of them raw: in the summary, in the JSON summary, and in the error a bad
// line quoting them gets.
func TestReplayNeutralisesEscapes(t *testing.T) {
	var buf bytes.Buffer
	w := jsonl.NewWriter(&buf, jsonl.Header{Scenario: "sc" + evil, Model: "multi" + evil, Config: "netty=4.1" + evil,
		Loops: []trace.LoopInfo{{Name: "evil" + evil, Group: "worker" + evil}}}, jsonl.Options{})
	w.Consume([]trace.Event{{Seq: 1, Time: 1, Kind: trace.KindSelectBegin, A: 1e9, Str: "select" + evil}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	good := writeFile(t, "evil.jsonl", buf.String())
	for _, args := range [][]string{{"replay", good, "--headless"}, {"replay", good, "--json"}} {
		code, out, errs := runCLI(t, args...)
		if code != exitOK || !strings.Contains(out, "PWNED") {
			t.Fatalf("%v: exit %d\nstdout: %q\nstderr: %q", args, code, out, errs)
		}
		for _, s := range []string{out, errs} {
			if i := rawControl([]byte(s)); i >= 0 {
				t.Fatalf("%v: raw control byte %#x at %d of %q", args, s[i], i, s)
			}
		}
		if args[2] == "--json" && !json.Valid([]byte(out)) {
			t.Fatalf("--json output is not JSON: %q", out)
		}
	}
	// An error quoting an event's unknown loop name and kind.
	bad := strings.Replace(buf.String(), `"kind":"select_begin"`, `"kind":"x`+strings.ReplaceAll(evil, "\x1b", `\u001b`)[:20]+`"`, 1)
	bad = strings.Replace(bad, "\n{\"seq\"", "\n{\"seq\":0,\"loop\":\"\\u001b[2J\",\"t\":0,\"kind\":\"wakeup\"}\n{\"seq\"", 1)
	badPath := writeFile(t, "evil\x1b[2J.jsonl", bad)
	code, out, errs := runCLI(t, "replay", badPath, "--headless")
	if code != exitUsage || !strings.Contains(errs, `\x1b[2J`) {
		t.Fatalf("bad: exit %d\nstdout: %q\nstderr: %q", code, out, errs)
	}
	if i := rawControl([]byte(errs)); i >= 0 {
		t.Fatalf("raw control byte %#x at %d of %q", errs[i], i, errs)
	}
}

// A trace whose events are in reverse order replays wrong counters if read
// as it stands (loops end STARTED, not TERMINATED): it is refused at the
// first event out of order, FILE:LINE, exit 2.
func TestReplayRefusesReversedTrace(t *testing.T) {
	lines := tinyTrace(t, 5)
	rev := []string{lines[0]}
	for i := len(lines) - 2; i >= 1; i-- {
		rev = append(rev, lines[i])
	}
	rev = append(rev, lines[len(lines)-1])
	p := writeFile(t, "reversed.jsonl", strings.Join(rev, ""))
	code, out, errs := runCLI(t, "replay", p, "--headless")
	if code != exitUsage || !strings.Contains(errs, p+":3: seq 4 after seq 5: events out of order") || out != "" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// runTTY is runCLI with stdout taken for a terminal: replay opens the TUI
// unless --headless is given.
func runTTY(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(&env{stdout: &out, stderr: &errb, stdoutTTY: true, stderrTTY: true}, args)
	return code, out.String(), errb.String()
}

// gzipFile writes content gzipped to a temporary NAME.
func gzipFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(content)
	zw.Close()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The TUI replay and the headless one give bad input the same exit code,
// 2, and the same message, before any screen opens: an empty file, a Chrome
// trace, an over-long line, a corrupt line, a gzip bomb past the cap.
func TestReplayBadInputExitsTheSameInTUIAndHeadless(t *testing.T) {
	defer func(old int64) { tui.MaxGunzipBytes = old }(tui.MaxGunzipBytes)
	tui.MaxGunzipBytes = 1 << 20
	lines := tinyTrace(t, 5)
	corrupt := append([]string(nil), lines...)
	corrupt[3] = "{\"seq\":3,\"t\":2,\"loop\":\"worker-0\",\"kind\":\"select_begin\",\"timeout_ns\":x}\n"
	bomb := append([]byte(lines[0]), bytes.Repeat([]byte("\n"), 2<<20)...)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"empty", writeFile(t, "empty.jsonl", ""), "empty file: no trace header"},
		{"chrome", writeFile(t, "chrome.jsonl", `{"traceEvents":[{"name":"select","ph":"B","ts":1,"pid":1,"tid":1}]}`+"\n"), "not a reactorviz trace"},
		{"long line", writeFile(t, "long.jsonl", lines[0]+strings.Repeat("x", jsonl.MaxLineBytes+10)+"\n"), "line longer than"},
		{"corrupt", writeFile(t, "corrupt.jsonl", strings.Join(corrupt, "")), ":4: "},
		{"gzip bomb", gzipFile(t, "bomb.jsonl.gz", bomb), "decompresses to more than 1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hcode, hout, herrs := runCLI(t, "replay", tc.path, "--headless")
			tcode, tout, terrs := runTTY(t, "replay", tc.path)
			if hcode != exitUsage || tcode != exitUsage || herrs != terrs || !strings.Contains(herrs, tc.path) || !strings.Contains(herrs, tc.want) {
				t.Fatalf("headless: exit %d, %q %q\ntui: exit %d, %q %q\nwant exit %d and %q", hcode, hout, herrs, tcode, tout, terrs, exitUsage, tc.want)
			}
		})
	}
}

// The TUI replay holds every event in memory, so it reads up to a limit and
// refuses a bigger trace, saying that the headless replay, which streams,
// reads it; the headless replay of the same trace succeeds.
func TestReplayTUIRefusesATraceBeyondItsLimit(t *testing.T) {
	defer func(old int) { tui.MaxReplayEvents = old }(tui.MaxReplayEvents)
	tui.MaxReplayEvents = 100
	p := writeFile(t, "big.jsonl", strings.Join(tinyTrace(t, 101), ""))
	code, _, errs := runTTY(t, "replay", p)
	if code != exitUsage || !strings.Contains(errs, p+":102: the trace is larger than the TUI replay holds") || !strings.Contains(errs, "replay --headless "+p) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "replay", p, "--headless"); code != exitOK {
		t.Fatalf("headless: exit %d: %s", code, errs)
	}
	tr, cut, err := readForTUI(strings.NewReader(strings.Join(tinyTrace(t, 100), "")), "ok.jsonl")
	if err != nil || cut != nil || len(tr.Events) != 100 {
		t.Fatalf("at the limit: %v, %v", cut, err)
	}
}
