package reactor

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

func TestChooserPickedBySize(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, ChooserPowerOfTwo}, {2, ChooserPowerOfTwo}, {3, ChooserGeneric},
		{4, ChooserPowerOfTwo}, {6, ChooserGeneric}, {8, ChooserPowerOfTwo},
	} {
		g, err := NewEventLoopGroup("worker", tc.n, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if g.Chooser() != tc.want {
			t.Errorf("size %d: chooser %s, want %s", tc.n, g.Chooser(), tc.want)
		}
		for round := 0; round < 3; round++ {
			for i := 0; i < tc.n; i++ {
				if got := g.Next(); got != g.Loops()[i] {
					t.Fatalf("size %d: pick %d went to %s", tc.n, round*tc.n+i, got.Name())
				}
			}
		}
		g.ShutdownGracefully(0, 0)
	}
}

func TestDefaultGroupSize(t *testing.T) {
	g, err := NewEventLoopGroup("worker", 0, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.ShutdownGracefully(0, 0)
	if g.Size() != DefaultLoopCount() {
		t.Fatalf("size %d, want %d", g.Size(), DefaultLoopCount())
	}
}

// Loops start their threads lazily: one that gets no work never starts.
func TestLazyStart(t *testing.T) {
	leakCheck(t)
	g, err := NewEventLoopGroup("worker", 4, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range g.Loops() {
		if l.State() != trace.StateNotStarted || l.TID() != 0 {
			t.Fatalf("%s started before any work", l.Name())
		}
	}
	done := make(chan struct{})
	_ = g.Loops()[1].Execute(func() { close(done) })
	<-done
	for i, l := range g.Loops() {
		started := l.State() == trace.StateStarted && l.TID() != 0
		if started != (i == 1) {
			t.Fatalf("%s: state %v tid %d", l.Name(), l.State(), l.TID())
		}
	}
	g.ShutdownGracefully(0, time.Second)
	if !g.AwaitTermination(10 * time.Second) {
		t.Fatal("group did not terminate")
	}
	for i, l := range g.Loops() {
		if (l.TID() != 0) != (i == 1) {
			t.Fatalf("%s: tid %d after shutdown", l.Name(), l.TID())
		}
	}
}
