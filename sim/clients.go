package sim

import (
	"cmp"
	"slices"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim/load"
)

// driveClients opens each client group at its start time and closes it at
// its stop time (or when the run stops).
func (r *Run) driveClients() {
	type edge struct {
		at    time.Duration
		start bool
		i     int
	}
	var edges []edge
	for i, c := range r.sc.Clients {
		edges = append(edges, edge{c.Start, true, i}, edge{c.Stop, false, i})
	}
	// Stable by time: a group's start precedes its own stop.
	slices.SortStableFunc(edges, func(a, b edge) int { return cmp.Compare(a.at, b.at) })
	groups := make([]*load.Group, len(r.sc.Clients))
	first := 0
	for _, e := range edges {
		if e.at < r.sc.Duration && !r.sleepUntil(e.at) {
			return
		}
		if e.start {
			groups[e.i] = r.startClients(r.sc.Clients[e.i], first)
			first += r.sc.Clients[e.i].Connections
		} else if g := groups[e.i]; g != nil && e.at < r.sc.Duration {
			g.Stop()
		}
	}
}

// startClients starts the load of one scenario client entry; nil if it
// could not.
func (r *Run) startClients(c scenarios.Client, first int) *load.Group {
	spec := load.Spec{
		Protocol: string(c.Protocol), Addrs: r.Addrs(), Connections: c.Connections,
		Payload: c.Payload, Interval: c.Rate.Interval(), Pipeline: c.Pipeline,
		Requests: c.Requests, First: first,
		Open: c.Load == scenarios.LoadOpen, Route: r.served.route,
		Clock: runClock{r},
	}
	var g *load.Group
	var err error
	if c.Via == scenarios.ViaEngine && r.client != nil {
		g, err = load.StartEngine(spec, r.client)
	} else {
		g, err = load.StartNet(spec)
	}
	if err != nil {
		return nil
	}
	r.mu.Lock()
	r.clients = append(r.clients, g)
	r.mu.Unlock()
	return g
}

func (r *Run) stopClients() {
	r.mu.Lock()
	cs := append([]*load.Group(nil), r.clients...)
	r.mu.Unlock()
	for _, c := range cs {
		c.Stop()
	}
}

// clientSample is what every client group saw so far, as a sample
// carries it. Any goroutine.
func (r *Run) clientSample() sample.Clients {
	r.mu.Lock()
	cs := append([]*load.Group(nil), r.clients...)
	r.mu.Unlock()
	var out sample.Clients
	var lat, acc load.Histogram
	for _, c := range cs {
		acc.Merge(c.AcceptLatency())
		s := c.Stats()
		out.Connections += s.Connections
		out.Requests += s.Requests
		out.Errors += s.Errors
		out.BytesVerified += s.BytesVerified
		lat.Merge(c.Latency())
	}
	out.Latency, out.Accept = lat.Hist(), acc.Hist()
	return out
}

// clientSummary is the clients' part of a summary, from a sample: the
// same for a live run and for a replay of its trace.
func clientSummary(s *sample.Sample) ClientSummary {
	c := &s.Clients
	out := ClientSummary{Connections: c.Connections, Requests: c.Requests, Errors: c.Errors,
		BytesVerified: c.BytesVerified, LatencyUS: latencyOf(&c.Latency), AcceptUS: latencyOf(&c.Accept)}
	// Throughput is per second of the run clock: the clients stop while
	// the whole run is held, so the pause does not dilute it.
	if s.Active > 0 {
		out.ThroughputRPS = float64(c.Requests) / time.Duration(s.Active).Seconds()
	}
	return out
}

// runClock is the run clock as the clients read it.
type runClock struct{ r *Run }

func (c runClock) Now() time.Time        { return c.r.runNow() }
func (c runClock) Held() <-chan struct{} { return c.r.coll.Clock().Held() }

// Clients returns what the clients saw so far, as the summary reads it.
// Any goroutine.
func (r *Run) Clients() ClientSummary {
	return clientSummary(&sample.Sample{Clients: r.clientSample(), Active: int64(r.activeElapsed())})
}
