package sim

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/sim/load"
)

// A run with no clients of its own (serve) says what outside clients got
// as the server counted it, not that no client connected.
func TestServeSummaryCountsOutsideClients(t *testing.T) {
	leaktest.Check(t)
	o := ServeOptions{Protocol: "resp", Model: "single", Addr: "127.0.0.1:0"}
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
	g, err := load.StartNet(load.Spec{Protocol: "resp", Addrs: srv.Addrs(), Connections: 1, Requests: 3})
	if err != nil {
		t.Fatal(err)
	}
	leaktest.WaitFor(t, "3 answers", func() bool { return g.Stats().Requests == 3 })
	g.Stop()
	srv.Stop()
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	text := srv.Summary().Text()
	flat := strings.Join(strings.Fields(text), " ") // the line wraps at 80 columns
	if want := "outside clients, as the server counted them: 1 connections accepted, 3 requests answered"; !strings.Contains(flat, want) {
		t.Errorf("serve's summary does not say %q:\n%s", want, text)
	}
}
