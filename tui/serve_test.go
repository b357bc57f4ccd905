package tui

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
)

// A serving run's header says what it serves and where, and quitting hands
// the last run to Final (serve prints its summary there).
func TestLiveServeHeaderAndFinal(t *testing.T) {
	checkGoroutines(t)
	var final atomic.Int32
	hs := newHarness(t, 120, 40, func(o Options) error {
		o.Serve = true
		o.Final = func(Session) { final.Add(1) }
		return RunLive(func(sink trace.Sink) (Session, error) {
			f := newFakeSession(t, "serve", scenarios.ModelMulti, sink)
			f.sc.Server.Protocol = scenarios.ProtocolHTTP
			f.addrs = []string{"127.0.0.1:8080"}
			f.onStart = func(f *fakeSession) { f.feed(tourEvents(f)...) }
			return f, nil
		}, o)
	})
	scr := hs.frame()
	if first := strings.SplitN(scr, "\n", 2)[0]; !strings.Contains(first, "serving http on 127.0.0.1:8080 · multi") || !strings.Contains(first, "conns") || !strings.Contains(first, "req/s") {
		t.Errorf("header: %q", first)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
	if n := final.Load(); n != 1 {
		t.Errorf("Final called %d times, want once", n)
	}
}

// serveRate turns the run's count of answered requests into a rate once a
// window has passed, and starts over when a restart resets the counts.
func TestServeRate(t *testing.T) {
	var r serveRate
	f := &model.Frame{Snapshot: &model.Snapshot{}}
	t0 := time.Unix(100, 0)
	r.note(t0, f, 1000)
	r.note(t0.Add(500*time.Millisecond), f, 1500)
	if r.reqRate != 0 {
		t.Errorf("rate %v before a window passed", r.reqRate)
	}
	r.note(t0.Add(2*time.Second), f, 5000)
	if r.reqRate != 2000 {
		t.Errorf("rate %v, want 2000 req/s", r.reqRate)
	}
	r.note(t0.Add(3*time.Second), f, 10)
	if r.reqRate != 0 || r.reqs != 10 {
		t.Errorf("after a restart: rate %v from %d, want 0 from 10", r.reqRate, r.reqs)
	}
}
