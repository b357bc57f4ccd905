package wheel

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/reactorviz/reactorviz/reactor/netty"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// Netty's defaults and limits for HashedWheelTimer (its constructors).
const (
	DefaultTick          = netty.WheelTick
	MinTick              = netty.MinWheelTick
	DefaultTicksPerWheel = netty.TicksPerWheel
	MaxTicksPerWheel     = 1 << 30
	// MaxTransferPerTick bounds how many queued timeouts one tick moves into
	// slots, so a scheduling burst spreads over several ticks.
	MaxTransferPerTick = 100_000
	defaultName        = "wheel"
)

// Config sizes a Timer. Zero values take Netty's defaults.
type Config struct {
	// Tick is Netty's tickDuration, the time one slot covers. Default 100 ms;
	// a positive value under 1 ms is raised to 1 ms, as Netty does.
	Tick time.Duration
	// TicksPerWheel is the number of slots. Default 512; rounded up to a
	// power of two so a tick's slot is tick & mask; at most 1<<30.
	TicksPerWheel int
	// MaxPending caps the timeouts neither expired nor unlinked after
	// cancellation; NewTimeout beyond it returns ErrTooManyPending. Zero or
	// less means unlimited (Netty's −1).
	MaxPending int
	// Name names the wheel thread in errors; default "wheel".
	Name string
}

// normalize fills the defaults and rejects what Netty's constructor rejects.
func (c Config) normalize() (Config, error) {
	if c.Tick < 0 {
		return c, fmt.Errorf("%w: tick %v is negative", ErrInvalidConfig, c.Tick)
	}
	if c.TicksPerWheel < 0 {
		return c, fmt.Errorf("%w: ticks per wheel %d is negative", ErrInvalidConfig, c.TicksPerWheel)
	}
	if c.TicksPerWheel > MaxTicksPerWheel {
		return c, fmt.Errorf("%w: ticks per wheel %d exceeds %d", ErrInvalidConfig, c.TicksPerWheel, MaxTicksPerWheel)
	}
	if c.Tick == 0 {
		c.Tick = DefaultTick
	}
	c.Tick = max(c.Tick, MinTick)
	if c.TicksPerWheel == 0 {
		c.TicksPerWheel = DefaultTicksPerWheel
	}
	c.TicksPerWheel = roundUpPow2(c.TicksPerWheel)
	// Netty refuses a wheel whose revolution cannot be expressed in a long.
	if int64(c.Tick) >= math.MaxInt64/int64(c.TicksPerWheel) {
		return c, fmt.Errorf("%w: tick %v × %d slots overflows", ErrInvalidConfig, c.Tick, c.TicksPerWheel)
	}
	if c.Name == "" {
		c.Name = defaultName
	}
	return c, nil
}

// roundUpPow2 returns the smallest power of two ≥ n, for 1 ≤ n ≤ 1<<30.
func roundUpPow2(n int) int {
	return 1 << bits.Len(uint(n-1))
}

// Clock is the wheel's time source: Now is a monotonic reading from an
// arbitrary origin (Netty's System.nanoTime), and Sleep blocks for d or
// until wake is closed, whichever comes first. Only the wheel thread calls
// Sleep. Tests substitute a clock they advance by hand.
type Clock interface {
	Now() time.Duration
	Sleep(d time.Duration, wake <-chan struct{})
}

// monoClock reads Go's monotonic clock, from its own origin or from a trace
// clock so that deadlines in trace events line up with event times.
type monoClock struct {
	origin time.Time
	tc     *trace.Clock
}

func (c monoClock) Now() time.Duration {
	if c.tc != nil {
		return time.Duration(c.tc.Now())
	}
	return time.Since(c.origin)
}

func (monoClock) Sleep(d time.Duration, wake <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	}
}

// Option adjusts a Timer beyond its Config.
type Option func(*options)

type options struct {
	clock   Clock
	tr      *tracer
	onError func(error)
}

// WithClock replaces the monotonic clock, so tests can drive ticks one by
// one.
func WithClock(c Clock) Option { return func(o *options) { o.clock = c } }

// WithTrace makes the wheel thread emit wheel_tick on every tick and
// wheel_expire on every expiry into ring, of which it is the only producer,
// whenever sw is on. Without WithClock the wheel then reads time from clock,
// so the deadline_ns of its events is on the run's time base.
func WithTrace(ring *trace.Ring, sw *trace.Switch, clock *trace.Clock) Option {
	return func(o *options) { o.tr = &tracer{ring: ring, sw: sw, clock: clock} }
}

// WithErrorHandler receives a *TaskPanicError for every task that panics (and
// an ErrMisplaced error should the Clock ever run backwards). It runs on the
// wheel thread, so it should return quickly. By default errors are only
// counted in Stats.
func WithErrorHandler(f func(error)) Option { return func(o *options) { o.onError = f } }

func (o *options) validate() error {
	if o.clock == nil && o.tr == nil {
		o.clock = monoClock{origin: time.Now()}
	}
	if o.tr != nil {
		if o.tr.ring == nil || o.tr.sw == nil || o.tr.clock == nil {
			return fmt.Errorf("%w: WithTrace needs a ring, a switch and a clock", ErrInvalidConfig)
		}
		if o.clock == nil {
			o.clock = monoClock{tc: o.tr.clock}
		}
	}
	return nil
}
