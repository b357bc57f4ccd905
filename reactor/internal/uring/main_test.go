//go:build linux

package uring

import (
	"net"
	"os"
	"testing"
)

// TestMain starts Go's own network poller before any test counts
// descriptors: its epoll and eventfd stay open for the life of the
// process and would otherwise read as a leak of the first test that dials.
func TestMain(m *testing.M) {
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		_ = l.Close()
	}
	os.Exit(m.Run())
}
