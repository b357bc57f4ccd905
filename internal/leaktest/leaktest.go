// Package leaktest holds the checks the project's tests share: that a test
// leaves no goroutines or file descriptors behind, and a poll for effects of
// other goroutines. It is imported by tests only.
package leaktest

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// patience bounds every wait here: generous, because a busy machine may be
// slow, and the waits are for outcomes, never timings.
const patience = 20 * time.Second

// Check records the goroutine and descriptor counts and, when the test
// ends, waits for both to come back to them, failing with every
// goroutine's stack if they do not. Call it first: cleanups run in reverse,
// so it runs after the shutdowns registered later.
func Check(t testing.TB) {
	t.Helper()
	g0, f0 := runtime.NumGoroutine(), FDs(t)
	t.Cleanup(func() {
		deadline := time.Now().Add(patience)
		for {
			g, f := runtime.NumGoroutine(), FDs(t)
			if g <= g0 && f <= f0 {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("leak: goroutines %d → %d, fds %d → %d\n%s", g0, g, f0, f, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// FDs is the number of descriptors the process has open.
func FDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// WaitFor polls cond until it holds and fails the test if it never does.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
