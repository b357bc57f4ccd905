//go:build !linux || nolive

package sim

import "github.com/reactorviz/reactorviz/reactor"

// injectJDKEpollBug needs epoll's HUP|ERR on a reset socket; without the
// live engine no loop runs to inject it into.
func (r *Run) injectJDKEpollBug(*reactor.EventLoop) error { return reactor.ErrNoLive }
