//go:build !linux || nolive

package reactor

import (
	"errors"
	"fmt"
)

// ErrIOUringUnavailable is wrapped by every error that means this process
// cannot use io_uring; a build without the live Linux engine never can.
var ErrIOUringUnavailable = errors.New("io_uring unavailable")

// probeIOUring fails: io_uring is a Linux interface, and this build has no
// live engine on it. NewEventLoop reports it before anything else runs.
func probeIOUring() error {
	return fmt.Errorf("%w: this build has no Linux io_uring", ErrIOUringUnavailable)
}

// The handler's shape, so the engine builds; no loop ever gets one, since
// probeIOUring refuses first.
type uringState struct{ sending []byte }

type uringHandler struct {
	l    *EventLoop
	held int
}

func (h *uringHandler) create() error            { return probeIOUring() }
func (h *uringHandler) open() error              { return probeIOUring() }
func (h *uringHandler) selectPhase(int64) int64  { return 0 }
func (h *uringHandler) wake() bool               { return false }
func (h *uringHandler) processIO() int           { return 0 }
func (h *uringHandler) register(*Channel) error  { return probeIOUring() }
func (h *uringHandler) interestChanged(*Channel) {}
func (h *uringHandler) queueSend(*Channel)       {}
func (h *uringHandler) closing(*Channel)         {}
func (h *uringHandler) shutdown()                {}
