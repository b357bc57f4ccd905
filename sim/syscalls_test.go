package sim

import (
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
)

// A run counts its system calls with no sink at all, and a read that
// found nothing is among them: edge-triggered, every readiness of a small
// request ends with one (about one a request), level-triggered next to
// none. The trace-fed count this replaced saw no EAGAIN read and needed a
// sink.
func TestSyscallsNeedNoSinkAndCountEmptyReads(t *testing.T) {
	empty := map[string]float64{}
	for _, trig := range []string{"edge", "level"} {
		sc, err := scenarios.Load("multi-reactor")
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"duration": "300ms", "netty": "4.1", "loop.selector": "epoll", "loop.trigger": trig} {
			if err := sc.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		r, err := New(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Wait()
		if err != nil {
			t.Fatal(err)
		}
		c, reqs := s.Measured.Syscalls, s.Clients.Requests
		if c == nil || reqs == 0 || c.Reads < reqs {
			t.Fatalf("%s: %d requests, calls %+v", trig, reqs, c)
		}
		empty[trig] = float64(c.EmptyReads) / float64(reqs)
	}
	if empty["edge"] < 0.5 || empty["level"] > 0.1 {
		t.Errorf("empty reads a request: edge %.2f, level %.2f; want about 1 and about 0", empty["edge"], empty["level"])
	}
}
