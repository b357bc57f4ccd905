package reactor

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/reactorviz/reactorviz/reactor/netty"
)

// Chooser names how a group picks its next loop (C4).
const (
	ChooserPowerOfTwo = netty.ChooserPowerOfTwo // idx & (n-1): a mask, cheaper than a division
	ChooserGeneric    = netty.ChooserGeneric    // idx % n
)

// EventLoopGroup is a fixed pool of EventLoops (C1). Loops are created
// eagerly and start their threads lazily, on first use.
type EventLoopGroup struct {
	name    string
	loops   []*EventLoop
	idx     atomic.Uint64
	pow2    bool
	chooser string
	scaler  atomic.Pointer[scaler] // nil unless the group auto-scales (autoscale.go)
}

// DefaultLoopCount is Netty's DEFAULT_EVENT_LOOP_THREADS: 2 × CPUs (C5).
func DefaultLoopCount() int { return max(1, 2*runtime.NumCPU()) }

// NewEventLoopGroup creates n loops named "<name>-0" … "<name>-(n-1)".
// n = 0 means DefaultLoopCount().
func NewEventLoopGroup(name string, n int, cfg Config) (*EventLoopGroup, error) {
	if n < 0 {
		return nil, fmt.Errorf("group %s: size %d (expected: >= 0)", name, n)
	}
	if n == 0 {
		n = DefaultLoopCount()
	}
	g := &EventLoopGroup{name: name, pow2: netty.IsPowerOfTwo(n), chooser: netty.Chooser(n)}
	for i := 0; i < n; i++ {
		l, err := NewEventLoop(fmt.Sprintf("%s-%d", name, i), name, cfg)
		if err != nil {
			// Netty shuts down the children already built.
			g.closeUnstarted()
			return nil, err
		}
		g.loops = append(g.loops, l)
	}
	return g, nil
}

// closeUnstarted shuts down and awaits the loops already built, as
// MultithreadEventExecutorGroup does when a child fails to construct
// (under the 4.1 and 4.2 designs each gets a thread to shut down).
func (g *EventLoopGroup) closeUnstarted() {
	for _, l := range g.loops {
		l.ShutdownGracefully(0, 0)
	}
	for _, l := range g.loops {
		<-l.Terminated()
	}
}

// Name returns the group's name.
func (g *EventLoopGroup) Name() string { return g.name }

// Size returns the number of loops.
func (g *EventLoopGroup) Size() int { return len(g.loops) }

// Chooser returns which chooser the group's size selected.
func (g *EventLoopGroup) Chooser() string { return g.chooser }

// Loops returns the group's loops in index order.
func (g *EventLoopGroup) Loops() []*EventLoop { return g.loops }

// Next picks the next loop round-robin. Any goroutine. The counter is 64
// bits wide, as Netty's since 4.1.52 (#10468), so order survives the wrap.
// An auto-scaling group picks among its active loops only.
func (g *EventLoopGroup) Next() *EventLoop {
	l, _, _ := g.Choose()
	return l
}

// Choose is Next, also returning the chooser's counter for the pick and
// whether the pick is the group's own arithmetic on it (idx & (n-1) for a
// power-of-two size, idx % n otherwise), which a trace can show: false
// for an auto-scaling group, which picks among the loops active then.
func (g *EventLoopGroup) Choose() (l *EventLoop, idx uint64, ok bool) {
	if s := g.scaler.Load(); s != nil {
		return s.next(), 0, false
	}
	l, idx = g.pick()
	if l.fatal() {
		// The loop stopped because its selector failed: an io_uring ring,
		// made with the group, registers its provided buffers when the
		// loop starts, and the kernel may refuse them memory. Its turns go
		// to the next loop that runs, or each connection dealt to it would
		// be reset.
		for range len(g.loops) - 1 {
			if n, i := g.pick(); !n.fatal() {
				return n, i, true
			}
		}
	}
	return l, idx, true
}

// pick is the round-robin step of Next: PowerOfTwoEventExecutorChooser
// or GenericEventExecutorChooser of Netty's DefaultEventExecutorChooserFactory.
func (g *EventLoopGroup) pick() (*EventLoop, uint64) {
	i := g.idx.Add(1) - 1
	if g.pow2 {
		return g.loops[i&uint64(len(g.loops)-1)], i
	}
	return g.loops[i%uint64(len(g.loops))], i
}

// SetIORatio sets the ioRatio of every loop.
func (g *EventLoopGroup) SetIORatio(r int) error {
	if err := ValidateIORatio(r); err != nil {
		return err
	}
	for _, l := range g.loops {
		_ = l.SetIORatio(r)
	}
	return nil
}

// ShutdownGracefully shuts down every loop (see EventLoop.ShutdownGracefully).
// An auto-scaling group's monitor stops first, as Netty cancels it when the
// group terminates.
func (g *EventLoopGroup) ShutdownGracefully(quiet, timeout time.Duration) {
	if s := g.scaler.Load(); s != nil {
		s.halt()
	}
	for _, l := range g.loops {
		l.ShutdownGracefully(quiet, timeout)
	}
}

// AwaitTermination waits until every loop is TERMINATED or d passes, and
// reports whether they all terminated.
func (g *EventLoopGroup) AwaitTermination(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, l := range g.loops {
		select {
		case <-l.Terminated():
		case <-t.C:
			return false
		}
	}
	return true
}
