package reactor

import (
	"errors"
	"fmt"
	"time"

	"github.com/reactorviz/reactorviz/reactor/netty"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// SelectorKind chooses how readiness is interpreted (docs/netty-differences.md,
// "One engine, two selectors").
type SelectorKind uint8

const (
	// SelectorNIO behaves like the JDK's epoll selector: ready events are
	// masked by the interest set, and a registration whose masked set is
	// empty is not selected. EPOLLHUP/EPOLLERR on an interest-0 channel
	// therefore make select return 0 again and again: the JDK epoll bug.
	SelectorNIO SelectorKind = iota
	// SelectorEpoll behaves like Netty's native transport: ERR, HUP and
	// RDHUP are handled (the channel reads, sees the error and closes), and
	// events for unknown descriptors are deleted from the epoll set.
	SelectorEpoll
	// SelectorIOUring is Netty 4.2's IoUringIoHandler: completion-based
	// I/O on one io_uring per loop (docs/concepts.md, "Completion-based
	// I/O"). Valid only with Netty42.
	SelectorIOUring
)

func (k SelectorKind) String() string {
	switch k {
	case SelectorEpoll:
		return "epoll"
	case SelectorIOUring:
		return "io_uring"
	}
	return "nio"
}

// Trigger chooses level- or edge-triggered channel registrations.
type Trigger uint8

// Trigger modes. NIO is always level-triggered; Netty 4.1's native transport
// defaults to edge (EpollMode.EDGE_TRIGGERED; docs/concepts.md C22).
const (
	TriggerLevel Trigger = iota
	TriggerEdge
)

func (t Trigger) String() string {
	if t == TriggerEdge {
		return "edge"
	}
	return "level"
}

// Defaults, each tied to the Netty constant it mirrors. The ones that the
// scenario format and the UI share are defined once, in package netty.
const (
	DefaultIORatio          = netty.IORatio             // NioEventLoop.ioRatio
	DefaultRebuildThreshold = netty.RebuildThreshold    // io.netty.selectorAutoRebuildThreshold
	minPrematureReturns     = netty.MinPrematureReturns // MIN_PREMATURE_SELECTOR_RETURNS
	defaultReadBuffer       = netty.ReadBuffer
)

const (
	maxMessagesPerRead     = 16  // ChannelMetadata's default
	tasksPerClockCheck     = 64  // runAllTasks reads the clock every 64 tasks
	yieldInterval          = 8e6 // ns between Gosched calls; sysmon preempts at 10 ms
	schedulePurgeInterval  = 1e9 // SCHEDULE_PURGE_INTERVAL: 1 s idle cap
	defaultEvents          = 1024
	DefaultQuietPeriod     = 2 * time.Second  // AbstractEventExecutor defaults
	DefaultShutdownTimeout = 15 * time.Second //
	defaultHighWater       = 64 << 10         // WriteBufferWaterMark.DEFAULT: high 64 KiB,
	defaultLowWater        = 32 << 10         // low 32 KiB
)

// Config holds every per-loop setting. The zero value is Netty's defaults.
type Config struct {
	// IORatio is the share of each iteration meant for I/O, 1..100; 0 means
	// DefaultIORatio. 100 runs all tasks without a time budget.
	IORatio int
	// RebuildThreshold is how many premature select returns in a row make
	// the loop rebuild its selector. 0 means DefaultRebuildThreshold; a value
	// below 3 (use -1 to ask for it explicitly) disables rebuilding.
	RebuildThreshold int
	Selector         SelectorKind
	Trigger          Trigger
	// Netty is the loop design (docs/netty-versions.md); the zero value is
	// the classic 4.1.43 loop.
	Netty Flavour
	// TaskQuantum bounds each iteration's tasks under Netty 4.2; 0 means
	// DefaultTaskQuantum, and less than MinTaskQuantum is raised to it.
	TaskQuantum time.Duration
	// QueueCapacity bounds the task queue; 0 leaves it unbounded.
	QueueCapacity int
	// ReadBufferSize is the size of the loop's shared read buffer.
	ReadBufferSize int
	// WriteHighWater and WriteLowWater bound a channel's pending output:
	// above high the channel stops reading until it drains below low, so a
	// client that does not read cannot grow the server's memory.
	WriteHighWater int
	WriteLowWater  int
	// Collector receives the loop's events; nil disables instrumentation.
	Collector *trace.Collector
	// Now overrides the loop's monotonic clock (nanoseconds). Tests use it
	// to make the 64-task clock check deterministic.
	Now func() int64
}

func (c Config) withDefaults() (Config, error) {
	if c.IORatio == 0 {
		c.IORatio = DefaultIORatio
	}
	if c.IORatio < 1 || c.IORatio > 100 {
		return c, fmt.Errorf("ioRatio: %d (expected: 0 < ioRatio <= 100)", c.IORatio)
	}
	if err := c.flavourDefaults(); err != nil {
		return c, err
	}
	if c.RebuildThreshold == 0 {
		c.RebuildThreshold = DefaultRebuildThreshold
	}
	if c.RebuildThreshold < minPrematureReturns {
		c.RebuildThreshold = 0 // Netty: below 3 disables the rebuild
	}
	if c.QueueCapacity < 0 {
		return c, fmt.Errorf("task queue capacity: %d (expected: >= 0)", c.QueueCapacity)
	}
	if c.ReadBufferSize <= 0 {
		c.ReadBufferSize = defaultReadBuffer
	}
	if c.WriteHighWater <= 0 {
		c.WriteHighWater = defaultHighWater
	}
	if c.WriteLowWater <= 0 || c.WriteLowWater > c.WriteHighWater {
		c.WriteLowWater = min(defaultLowWater, c.WriteHighWater/2)
	}
	return c, nil
}

// ValidateIORatio reports whether r is a valid ioRatio (1..100), with
// Netty's message otherwise.
func ValidateIORatio(r int) error {
	if r < 1 || r > 100 {
		return fmt.Errorf("ioRatio: %d (expected: 0 < ioRatio <= 100)", r)
	}
	return nil
}

// flavourDefaults checks and fills what the loop design depends on.
func (c *Config) flavourDefaults() error {
	if c.Netty > Netty42 {
		return fmt.Errorf("netty: unknown flavour %d", c.Netty)
	}
	if c.TaskQuantum < 0 {
		return fmt.Errorf("task quantum: %v (expected: >= 0)", c.TaskQuantum)
	}
	if c.TaskQuantum == 0 {
		c.TaskQuantum = DefaultTaskQuantum
	}
	c.TaskQuantum = max(c.TaskQuantum, MinTaskQuantum)
	if c.Netty == Netty42 && c.Trigger == TriggerEdge {
		// EpollIoHandler registers everything level-triggered (EpollMode
		// is gone in 4.2), and the JDK selector under NioIoHandler never
		// was edge-triggered.
		return errors.New("trigger: edge (Netty 4.2 is level-triggered only)")
	}
	if c.Selector == SelectorIOUring && c.Netty != Netty42 {
		return fmt.Errorf("selector: io_uring needs netty 4.2 (IoUringIoHandler is a 4.2 transport), not %s", c.Netty)
	}
	return nil
}
