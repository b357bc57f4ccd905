//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// A trace header's scenario is a name to show, never a path to open: a
// trace naming a FIFO replays at once (opening the FIFO would block until
// a writer came), and one naming a scenario file does not check that
// file's expectations.
func TestReplayOpensNoPathTheTraceNames(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	failing := writeFile(t, "failing.yaml", "name: failing\nmodel: multi\nduration: 200ms\nserver: {protocol: echo}\nexpect:\n  - boss-0.accepted == 42\n")
	for _, name := range []string{fifo, failing, "/dev/stdin"} {
		var buf bytes.Buffer
		w := jsonl.NewWriter(&buf, jsonl.Header{Scenario: name, Model: "multi",
			Loops: []trace.LoopInfo{{Name: "worker-0", Group: "worker"}}}, jsonl.Options{})
		w.Consume([]trace.Event{{Seq: 1, Time: 1, Kind: trace.KindSelectBegin, A: 1e9, Str: "select"}})
		w.Close()
		p := writeFile(t, "t.jsonl", buf.String())
		type result struct {
			code      int
			out, errs string
		}
		done := make(chan result, 1)
		go func() {
			code, out, errs := runCLI(t, "replay", p, "--headless")
			done <- result{code, out, errs}
		}()
		select {
		case r := <-done:
			if r.code != exitOK || strings.Contains(r.out, "expectations") || !strings.Contains(r.out, "scenario "+name) {
				t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", name, r.code, r.out, r.errs)
			}
		case <-time.After(10 * time.Second):
			// Unblock the open so the goroutine ends, then fail.
			if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
				f.Close()
			}
			t.Fatalf("replay of a trace naming %s did not return: it opened the path", name)
		}
	}
}

// --trace and --chrome naming one file through a symlink are refused like
// the same name: the file would hold two formats interleaved.
func TestTraceAndChromeOneFileViaSymlink(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.out")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.out")
	if err := os.Symlink(a, b); err != nil {
		t.Skip(err)
	}
	code, _, errs := runCLI(t, "run", "tour", "--headless", "--trace", a, "--chrome", b)
	if code != exitUsage || !strings.Contains(errs, "are the same file") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if st, err := os.Stat(a); err != nil || st.Size() != 0 {
		t.Fatalf("the file was written: %v %v", st, err)
	}
}

// --chrome given a symlink to the --trace file before either exists is the
// same file too: the link is followed to where the trace will be written.
func TestTraceAndChromeOneFileViaDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.out")
	b := filepath.Join(dir, "b.out")
	if err := os.Symlink("a.out", b); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"--trace", a, "--chrome", b}, {"--trace", b, "--chrome", a}} {
		code, _, errs := runCLI(t, append([]string{"run", "tour", "--headless"}, args...)...)
		if code != exitUsage || !strings.Contains(errs, "are the same file") {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Fatalf("the file was written: %v", err)
	}
}
