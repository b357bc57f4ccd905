package reactor

import (
	"fmt"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

func TestEchoOverLoopback(t *testing.T) {
	leakCheck(t)
	s := startServer(t, 1, 2, Config{}, echoInit)
	for i := 0; i < 4; i++ {
		c := dial(t, s.addr())
		echoOnce(t, c, fmt.Sprintf("hello %d", i))
	}
	waitFor(t, "4 accepts", func() bool { return s.ch.Accepted() == 4 })
	w := s.worker.Loops()
	if a, b := w[0].Stats().Channels, w[1].Stats().Channels; a != 2 || b != 2 {
		t.Fatalf("round-robin placement: worker-0 has %d channels, worker-1 %d; want 2 and 2", a, b)
	}
	if got := s.boss.Loops()[0].Stats().Accepted; got != 4 {
		t.Fatalf("boss accepted %d, want 4", got)
	}
	s.shutdown()
	for _, l := range append(s.boss.Loops(), w...) {
		if l.State() != trace.StateTerminated {
			t.Fatalf("%s: %v after shutdown", l.Name(), l.State())
		}
	}
}
