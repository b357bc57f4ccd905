// Package load drives client connections at a server over loopback: echo,
// HTTP or RESP requests, at a fixed rate or as fast as answers come back,
// with pipelining; at a fixed rate, closed loop (wait for the answers) or
// open loop (send on schedule whatever happens). Every answer is checked byte for byte and every
// request's latency recorded.
package load

import (
	"sync"
	"sync/atomic"
	"time"
)

// Spec describes one group of client connections.
type Spec struct {
	Protocol    string   // echo, http or resp
	Addrs       []string // connection i dials Addrs[i % len(Addrs)]
	Connections int
	Payload     int           // echo request size
	Interval    time.Duration // between two request batches of one connection; 0: as fast as answers come
	Pipeline    int           // requests written before reading their answers (≥ 1)
	Requests    int           // per connection; 0: until Stop
	First       int           // index of the first connection, so payloads differ across groups
	// Open sends on the Interval schedule whatever the server does, and
	// measures each request from the time it was due to be sent, as wrk2
	// does: a stalled server then shows in the latency instead of
	// silently slowing the clients down (coordinated omission). Without
	// it a connection waits for its answers before the next batch.
	Open bool
	// Route, if set, is asked once per connection, at its first answer,
	// given the connection's local port: for a second histogram to record
	// that connection's latencies in (the one of the loop serving it; nil
	// for none), and when the server registered the connection on that
	// loop (zero if unknown), which, less the time the dial began, is the
	// connection's accept latency.
	Route func(localPort int) (*Histogram, time.Time)
	// Clock, if set, is the run clock the group keeps its schedule and
	// measures its latency on, instead of the wall clock: while it is held
	// no request is sent, and the hold counts in no latency.
	Clock Clock
}

// Clock is a clock that can stand still: Now reads it; Held is nil while
// it runs, else a channel closed when it runs again.
type Clock interface {
	Now() time.Time
	Held() <-chan struct{}
}

// Stats is a live snapshot of a client group.
type Stats struct {
	Connections   int64 // connections opened
	Requests      int64 // requests answered correctly
	Errors        int64 // failed dials, broken connections, wrong answers
	BytesVerified int64 // answer bytes checked against the request
}

// counters are shared by every connection of a run.
type counters struct {
	conns, requests, errors, verified atomic.Int64
	hist                              Histogram
	accept                            Histogram // dial begun → registered on its I/O loop
}

func (c *counters) snapshot() Stats {
	return Stats{Connections: c.conns.Load(), Requests: c.requests.Load(),
		Errors: c.errors.Load(), BytesVerified: c.verified.Load()}
}

// Group is a running group of client connections.
type Group struct {
	spec     Spec
	ex       exchange
	c        *counters
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	mu       sync.Mutex
	closers  []func()
}

func newGroup(spec Spec) (*Group, error) {
	ex, err := newExchange(spec.Protocol, spec.Payload)
	if err != nil {
		return nil, err
	}
	spec.Pipeline = max(spec.Pipeline, 1)
	return &Group{spec: spec, ex: ex, c: &counters{}, stop: make(chan struct{})}, nil
}

// Stats returns the group's counters so far.
func (g *Group) Stats() Stats { return g.c.snapshot() }

// Latency returns the group's latency histogram.
func (g *Group) Latency() *Histogram { return &g.c.hist }

// AcceptLatency returns the histogram of the time from a connection's
// dial to its registration on the server loop that serves it: the wait in
// the accept queue, the accept, and the handoff to the I/O loop.
func (g *Group) AcceptLatency() *Histogram { return &g.c.accept }

// Stop closes every connection and waits for the group's goroutines. Errors
// caused by the stop itself are not counted.
func (g *Group) Stop() {
	g.stopOnce.Do(func() {
		close(g.stop)
		g.mu.Lock()
		closers := g.closers
		g.closers = nil
		g.mu.Unlock()
		for _, c := range closers {
			c()
		}
	})
	g.wg.Wait()
}

func (g *Group) stopped() bool {
	select {
	case <-g.stop:
		return true
	default:
		return false
	}
}

// onStop registers fn to run at Stop, or runs it now if already stopped.
func (g *Group) onStop(fn func()) {
	g.mu.Lock()
	if !g.stopped() {
		g.closers = append(g.closers, fn)
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	fn()
}

// record adds one answered request of a connection; route is the
// connection's per-loop histogram, or nil.
func (g *Group) record(d time.Duration, n int, route *Histogram) {
	g.c.hist.Record(d)
	if route != nil {
		route.Record(d)
	}
	g.c.requests.Add(1)
	g.c.verified.Add(int64(n))
}

// route looks up the per-loop histogram of the connection with that local
// port, and records its accept latency.
func (g *Group) route(localPort int, dialed time.Time) *Histogram {
	if g.spec.Route == nil || localPort == 0 {
		return nil
	}
	h, registered := g.spec.Route(localPort)
	if !registered.IsZero() && !dialed.IsZero() {
		g.c.accept.Record(registered.Sub(dialed))
	}
	return h
}

func (g *Group) fail() {
	if !g.stopped() {
		g.c.errors.Add(1)
	}
}

// now reads the group's clock.
func (g *Group) now() time.Time {
	if g.spec.Clock != nil {
		return g.spec.Clock.Now()
	}
	return time.Now()
}

// since is the time on the group's clock since t.
func (g *Group) since(t time.Time) time.Duration { return g.now().Sub(t) }

// ready waits while the group's clock is held; false if the group stops
// first.
func (g *Group) ready() bool {
	for g.spec.Clock != nil {
		held := g.spec.Clock.Held()
		if held == nil {
			break
		}
		select {
		case <-g.stop:
			return false
		case <-held:
		}
	}
	return !g.stopped()
}

// waitUntil sleeps until t on the group's clock, and while it is held;
// false if the group stops first. A hold that begins during the sleep
// is waited out when it ends, and the sleep resumed for what is left.
func (g *Group) waitUntil(t time.Time) bool {
	for {
		if !g.ready() {
			return false
		}
		d := t.Sub(g.now())
		if d <= 0 {
			return true
		}
		if g.spec.Clock != nil {
			d = min(d, 20*time.Millisecond) // look for a hold at least this often
		}
		if !g.wait(d) {
			return false
		}
	}
}

// wait sleeps for d unless the group stops first.
func (g *Group) wait(d time.Duration) bool {
	if d <= 0 {
		return !g.stopped()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-g.stop:
		return false
	case <-t.C:
		return true
	}
}
