package poll

import "errors"

// ErrNoLive is what Open and NewEventFD return where there is no epoll: on
// macOS and Windows, and on Linux built with the nolive tag. An event loop's
// first step is Open, so no loop starts there and nothing else here runs.
var ErrNoLive = errors.New("live runs need Linux (epoll, eventfd)")
