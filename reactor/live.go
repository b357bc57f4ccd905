package reactor

import "github.com/reactorviz/reactorviz/reactor/internal/poll"

// ErrNoLive is returned when an EventLoop cannot open its poller because
// this build has no epoll: macOS, Windows, or Linux built with the nolive
// tag. Such a build still reads and replays traces.
var ErrNoLive = poll.ErrNoLive
