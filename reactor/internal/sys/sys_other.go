//go:build !linux || nolive

package sys

import (
	"errors"
	"strconv"
)

// Errno is an error number. Without the live engine none is ever returned:
// the values only have to be distinct.
type Errno uintptr

func (e Errno) Error() string { return "errno " + strconv.Itoa(int(e)) }

// Errno values the engine tells apart; the numbers are Linux's.
const (
	EAGAIN       Errno = 11
	EINTR        Errno = 4
	ECONNABORTED Errno = 103
	EMFILE       Errno = 24
	ENFILE       Errno = 23
)

// Interest bits, with epoll's values so that traces read the same.
const (
	EPOLLIN  = 0x1
	EPOLLOUT = 0x4
)

var errNoLive = errors.New("live runs need Linux (epoll, eventfd)")

// Close has no descriptor to close.
func Close(int) error { return errNoLive }

// SetNonblock has no descriptor to change.
func SetNonblock(int, bool) error { return errNoLive }

// Gettid returns 0, the id no started loop has.
func Gettid() int { return 0 }

// Interrupt does nothing without the live engine: no loop ever blocks.
func Interrupt(tid int) error { return nil }
