package sim

import (
	"sync/atomic"
	"time"

	"github.com/reactorviz/reactorviz/sim/load"
)

// servedBy tells a client connection which loop serves it, so its
// latencies can be charged to that loop. The server notes each accepted
// channel's remote port (the client's local port) and the time when the
// channel is initialised on its I/O loop: once per connection, never per
// request. A client looks its port up once, at its first answer, which the
// server cannot send before it has registered the channel.
type servedBy struct {
	byPort [1 << 16]atomic.Int32 // loop index + 1; 0: unknown
	at     [1 << 16]atomic.Int64 // when it was registered, Unix ns
	hists  []load.Histogram      // per loop index
	now    func() time.Time      // the run clock
}

func newServedBy(loops int, now func() time.Time) *servedBy {
	return &servedBy{hists: make([]load.Histogram, loops), now: now}
}

// note records that loop idx serves the connection from remotePort.
func (s *servedBy) note(remotePort, idx int) {
	if remotePort > 0 && remotePort < len(s.byPort) && idx >= 0 && idx < len(s.hists) {
		s.at[remotePort].Store(s.now().UnixNano())
		s.byPort[remotePort].Store(int32(idx + 1))
	}
}

// route returns the latency histogram of the loop serving the client
// connection with that local port, and when the connection was registered
// there; nil and zero when unknown.
func (s *servedBy) route(localPort int) (*load.Histogram, time.Time) {
	if localPort <= 0 || localPort >= len(s.byPort) {
		return nil, time.Time{}
	}
	if i := int(s.byPort[localPort].Load()) - 1; i >= 0 {
		return &s.hists[i], time.Unix(0, s.at[localPort].Load())
	}
	return nil, time.Time{}
}
