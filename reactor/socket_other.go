//go:build !linux || nolive

package reactor

import (
	"net/netip"

	"github.com/reactorviz/reactorviz/reactor/internal/poll"
)

// Without epoll there are no engine sockets. The engine opens its poller
// before any socket (EventLoop start), so these are never reached; they
// fail with the same reason should anything call them.

func listenTCP(string, bool) (int, netip.AddrPort, error) {
	return -1, netip.AddrPort{}, poll.ErrNoLive
}

func acceptChild(int) (int, int, error) { return -1, 0, poll.ErrNoLive }

func connectTCP(string) (int, bool, error) { return -1, false, poll.ErrNoLive }

func socketError(int) error { return poll.ErrNoLive }

func closeFD(int) {}

func sockRead(int, []byte) (int, error) { return 0, poll.ErrNoLive }

func sockWrite(int, []byte) (int, error) { return 0, poll.ErrNoLive }

func localPort(int) int { return 0 }
