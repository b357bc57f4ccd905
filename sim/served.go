package sim

import (
	"sync/atomic"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/sim/load"
)

// servedBy tells a client connection which loop serves it, so its
// latencies can be charged to that loop. The server notes each accepted
// channel's remote port (the client's local port) when the channel is
// initialised on its worker, once per connection; a client looks its port
// up once, at its first answer, which the server cannot send before it
// has registered the channel. Nothing is added to the per-request path of
// the loops.
type servedBy struct {
	byPort [1 << 16]atomic.Int32 // loop index + 1; 0: unknown
	hists  []load.Histogram      // per loop index
}

func newServedBy(loops int) *servedBy {
	return &servedBy{hists: make([]load.Histogram, loops)}
}

// note records that loop idx serves the connection from remotePort.
func (s *servedBy) note(remotePort, idx int) {
	if remotePort > 0 && remotePort < len(s.byPort) && idx >= 0 && idx < len(s.hists) {
		s.byPort[remotePort].Store(int32(idx + 1))
	}
}

// route returns the latency histogram of the loop serving the client
// connection with that local port, or nil.
func (s *servedBy) route(localPort int) *load.Histogram {
	if localPort <= 0 || localPort >= len(s.byPort) {
		return nil
	}
	if i := int(s.byPort[localPort].Load()) - 1; i >= 0 {
		return &s.hists[i]
	}
	return nil
}

// loopIndex returns l's index in r.loops, or -1.
func (r *Run) loopIndex(l *reactor.EventLoop) int {
	if i, ok := r.index[l]; ok {
		return i
	}
	return -1
}
