package sim

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/sim/load"
)

// An echo soak: many connections, pipelined, every byte checked, on the
// multi model; afterwards goroutines and descriptors are back where they
// started.
func TestEchoSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	leaktest.Check(t)
	o := ServeOptions{Protocol: "echo", Model: "multi", Workers: 2, Addr: "127.0.0.1:0", MaxConnections: 10_000}
	sc, err := ServeScenario(o)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(sc, ServeRunOptions(o))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	g, err := load.StartNet(load.Spec{Protocol: "echo", Addrs: srv.Addrs(), Connections: 200,
		Payload: 1500, Pipeline: 4})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	g.Stop()
	st := g.Stats()
	srv.Stop()
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	sum := srv.Summary()
	if st.Errors != 0 || st.Connections != 200 || st.Requests == 0 || st.BytesVerified != st.Requests*1500 {
		t.Fatalf("soak: %+v", st)
	}
	var written int64
	for _, l := range sum.Loops {
		written += l.BytesWritten
	}
	if written < st.BytesVerified {
		t.Fatalf("server wrote %d bytes, clients verified %d", written, st.BytesVerified)
	}
}
