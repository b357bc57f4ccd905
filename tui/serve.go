package tui

import (
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
)

// serveRate measures what a serving run reads and answers per second, from
// the loops' byte counters a frame carries and the run's count of requests
// answered: outside clients report nothing to us.
type serveRate struct {
	at          time.Time
	bytes, reqs int64
	rate        float64 // bytes read per second over the last window
	reqRate     float64 // requests answered per second over the last window
}

// rateWindow is how long serveRate averages over.
const rateWindow = time.Second

// note takes a frame's total and the requests answered so far and, once a
// window has passed, the rates.
func (r *serveRate) note(now time.Time, f *model.Frame, answered int64) {
	var read int64
	for _, l := range f.Rows {
		read += l.BytesRead
	}
	switch {
	case r.at.IsZero() || read < r.bytes || answered < r.reqs:
		r.at, r.bytes, r.reqs, r.rate, r.reqRate = now, read, answered, 0, 0
	case now.Sub(r.at) >= rateWindow:
		secs := now.Sub(r.at).Seconds()
		r.rate, r.reqRate = float64(read-r.bytes)/secs, float64(answered-r.reqs)/secs
		r.at, r.bytes, r.reqs = now, read, answered
	}
}

// serveWhat is the header's description of a serving run: the protocol
// and where to point a client, then the open connections, the requests
// answered per second (echo has no requests) and the bytes read per second.
func serveWhat(run Session, f *model.Frame, rate serveRate) (what string, right []string, ok bool) {
	sc := run.Scenario()
	if sc == nil || len(run.Addrs()) == 0 {
		return "", nil, false
	}
	what = "serving " + string(sc.Server.Protocol) + " on " + strings.Join(run.Addrs(), ",") + " · " + string(sc.Model)
	var open int64
	for _, l := range f.Rows {
		if l.Group != "boss" {
			open += l.Channels
		}
	}
	right = append(right, model.Count(open)+" conns")
	if sc.Server.Protocol != scenarios.ProtocolEcho {
		right = append(right, model.Count(int64(rate.reqRate))+" req/s")
	}
	right = append(right, model.Bytes(int64(rate.rate))+"/s in")
	return what, right, true
}
