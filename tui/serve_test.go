package tui

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
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
	if first := strings.SplitN(scr, "\n", 2)[0]; !strings.Contains(first, "serving http on 127.0.0.1:8080 · multi") || !strings.Contains(first, "conns") {
		t.Errorf("header: %q", first)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
	if n := final.Load(); n != 1 {
		t.Errorf("Final called %d times, want once", n)
	}
}
