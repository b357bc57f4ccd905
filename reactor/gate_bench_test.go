package reactor

import (
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// BenchmarkGateBreakpoints is a phase boundary with every breakpoint on
// and none firing: the price of watching for them on the loop thread.
func BenchmarkGateBreakpoints(b *testing.B) {
	l, err := NewEventLoop("bench", "worker", Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.ShutdownGracefully(0, 0)
	l.SetBreakpoints(Breakpoints{Rebuild: true, Premature: true, DeadlineHit: true, Wakeup: true, TaskPanic: true, QueueAbove: 1 << 20})
	b.ReportAllocs()
	for b.Loop() {
		l.gateAt(trace.PhaseIO)
	}
}
