package tui

import (
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/tui/model"
)

// addrSession is a session that serves on addresses it can name
// (*sim.Run): serve's outside clients connect there.
type addrSession interface {
	Addrs() []string
}

// serveRate measures what a serving run reads per second, from the loops'
// byte counters a frame carries: outside clients report nothing to us.
type serveRate struct {
	at    time.Time
	bytes int64
	rate  float64 // bytes read per second over the last window
}

// rateWindow is how long serveRate averages over.
const rateWindow = time.Second

// note takes a frame's total and, once a window has passed, the rate.
func (r *serveRate) note(now time.Time, f *model.Frame) {
	var read int64
	for _, l := range f.Rows {
		read += l.BytesRead
	}
	switch {
	case r.at.IsZero() || read < r.bytes:
		r.at, r.bytes, r.rate = now, read, 0
	case now.Sub(r.at) >= rateWindow:
		r.rate = float64(read-r.bytes) / now.Sub(r.at).Seconds()
		r.at, r.bytes = now, read
	}
}

// serveWhat is the header's description of a serving run: the protocol
// and where to point a client, then the open connections and the bytes
// read per second.
func serveWhat(run Session, f *model.Frame, rate float64) (what string, right []string, ok bool) {
	as, isAddr := run.(addrSession)
	sc := run.Scenario()
	if !isAddr || sc == nil || len(as.Addrs()) == 0 {
		return "", nil, false
	}
	what = "serving " + string(sc.Server.Protocol) + " on " + strings.Join(as.Addrs(), ",") + " · " + string(sc.Model)
	var open int64
	for _, l := range f.Rows {
		if l.Group != "boss" {
			open += l.Channels
		}
	}
	right = append(right, model.Count(open)+" conns", model.Bytes(int64(rate))+"/s in")
	return what, right, true
}
