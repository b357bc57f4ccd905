//go:build linux && !nolive

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
)

// startRun starts `reactorviz run tour --headless --trace FILE` and returns
// once it says it runs.
func startRun(t *testing.T, bin, tracePath string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	return startCLI(t, bin, "running tour headless", "run", "tour", "--headless", "--trace", tracePath)
}

// A run killed outright (SIGKILL: no handler, no deferred write) a second
// in leaves a trace that replays what happened before: the writer flushes
// on a timer, so the file holds the header and complete events though the
// 64 KiB buffer may not have filled. Before, it was often empty.
func TestKilledRunLeavesATraceThatReplays(t *testing.T) {
	bin := buildReactorviz(t)
	tracePath := filepath.Join(t.TempDir(), "killed.jsonl")
	cmd, _ := startRun(t, bin, tracePath)
	time.Sleep(time.Second) // let it run a while, as a user would before the crash
	killAndReplay(t, cmd, tracePath, "no end line: the trace was cut short after", "worker-0")
}

// killAndReplay kills cmd outright (SIGKILL: no handler, no deferred
// write) and replays the trace it left: the replay succeeds, says why the
// trace ends early, and shows the loop named.
func killAndReplay(t *testing.T, cmd *exec.Cmd, tracePath, cut, loop string) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	code, out, errs := runCLI(t, "replay", tracePath, "--headless")
	if code != exitOK || !strings.Contains(errs, cut) || !strings.Contains(out, loop) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// An idle server's events trickle far below the writer's buffer: only the
// timer puts them in the file. Once an event is there, SIGKILL leaves a
// trace that replays it.
func TestKilledIdleServeLeavesATrace(t *testing.T) {
	bin := buildReactorviz(t)
	tracePath := filepath.Join(t.TempDir(), "serve.jsonl")
	cmd := exec.Command(bin, "serve", "--headless", "--addr", "127.0.0.1:0", "--workers", "1", "--trace", tracePath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	leaktest.WaitFor(t, "an event in the idle server's trace", func() bool {
		b, _ := os.ReadFile(tracePath)
		return bytes.Contains(b, []byte("}\n{\"seq\":"))
	})
	killAndReplay(t, cmd, tracePath, "cut short after", "boss-0")
}

// SIGINT or SIGTERM stops run --headless as it stops serve: gracefully,
// with the summary on stdout and the trace's end line, exit 3 saying the
// run was cut.
func TestRunStopsGracefullyOnSignals(t *testing.T) {
	bin := buildReactorviz(t)
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		tracePath := filepath.Join(t.TempDir(), "stopped.jsonl")
		cmd, out := startRun(t, bin, tracePath)
		cmd.Process.Signal(s)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitRuntime {
			t.Fatalf("%v: exit %v, want %d", s, err, exitRuntime)
		}
		if !strings.Contains(out.String(), "TERMINATED") || !strings.Contains(out.String(), "trace: "+tracePath) {
			t.Fatalf("%v: no summary:\n%s", s, out)
		}
		code, _, errs := runCLI(t, "replay", tracePath, "--headless")
		if code == exitUsage || strings.Contains(errs, "cut short") {
			t.Fatalf("%v: the trace has no end: exit %d: %s", s, code, errs)
		}
	}
}
