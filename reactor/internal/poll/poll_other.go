//go:build !linux || nolive

package poll

import "errors"

// Readiness and interest bits, with epoll's values.
const (
	In    = 0x1
	Out   = 0x4
	Err   = 0x8
	Hup   = 0x10
	RdHup = 0x2000
	ET    = 1 << 31
)

// Event has the fields of Linux's epoll_event that the loop reads.
type Event struct {
	Events uint32
	Fd     int32
	Pad    int32
}

// Poller stands for an epoll instance that cannot exist here.
type Poller struct{}

// Open reports that there is no epoll.
func Open() (*Poller, error) { return nil, ErrNoLive }

// FD returns -1.
func (p *Poller) FD() int { return -1 }

// Add fails.
func (p *Poller) Add(int, uint32) error { return ErrNoLive }

// Mod fails.
func (p *Poller) Mod(int, uint32) error { return ErrNoLive }

// Del fails.
func (p *Poller) Del(int) error { return ErrNoLive }

// Wait fails.
func (p *Poller) Wait([]Event, int) (int, error) { return 0, ErrNoLive }

// Close has nothing to close.
func (p *Poller) Close() error { return nil }

// ErrInterrupted is never returned here; it exists for the loop's checks.
var ErrInterrupted = errors.New("epoll_wait: interrupted system call")

// NewEventFD reports that there is no eventfd.
func NewEventFD() (int, error) { return -1, ErrNoLive }

// WriteEventFD fails.
func WriteEventFD(int) error { return ErrNoLive }

// DrainEventFD does nothing.
func DrainEventFD(int) {}
