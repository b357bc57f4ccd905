//go:build linux

package uring

import (
	"testing"

	"golang.org/x/sys/unix"
)

// raiseFDLimit lifts RLIMIT_NOFILE to at least n for the test, hard limit
// included where the process may (as root), and restores it afterwards.
func raiseFDLimit(t *testing.T, n int) {
	t.Helper()
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if old.Cur >= uint64(n) {
		return
	}
	want := unix.Rlimit{Cur: uint64(n), Max: max(old.Max, uint64(n))}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err != nil {
		t.Skipf("need %d descriptors, limit %d/%d: %v", n, old.Cur, old.Max, err)
	}
	t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
}
