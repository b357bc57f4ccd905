package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/scenarios"
)

// A run with a handler cost and open-loop clients charges every request
// to the worker that serves its channel, gives every loop a time split,
// and measures each connection's accept latency once.
func TestLoopTimeAndClientsPerLoop(t *testing.T) {
	for _, via := range []string{"net", "engine"} {
		t.Run(via, func(t *testing.T) { loopTimeAndClients(t, via) })
	}
}

func loopTimeAndClients(t *testing.T, via string) {
	leaktest.Check(t)
	sc, err := scenarios.Parse("t.yaml", []byte(`name: t
model: multi
workers: 2
duration: 600ms
server: {protocol: echo, cost: 20us}
clients:
  - {connections: 4, payload: 32B, rate: 100/s, load: open, via: `+via+`}
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if s.Clients.Errors != 0 || s.Clients.Requests == 0 {
		t.Fatalf("clients: %+v", s.Clients)
	}
	var perLoop int64
	for _, l := range s.Loops {
		if l.Time == nil {
			t.Fatalf("%s has no time split", l.Name)
		}
		if l.TID != 0 && l.Time.SelectNanos == 0 {
			t.Errorf("%s never blocked in select", l.Name)
		}
		if sh := l.Time.Run; sh.Select+sh.IO+sh.Tasks > 100.5 {
			t.Errorf("%s: shares add up to more than the run: %+v", l.Name, sh)
		}
		if c := l.Time.Clients; c != nil {
			if !strings.HasPrefix(l.Name, "worker-") {
				t.Errorf("%s serves clients", l.Name)
			}
			perLoop += c.Requests
			if l.Time.ClientsLastSecond == nil || l.Time.ClientsLastSecond.Requests > c.Requests {
				t.Errorf("%s: last second's clients %+v, the run's %+v", l.Name, l.Time.ClientsLastSecond, c)
			}
		}
	}
	if perLoop != s.Clients.Requests {
		t.Errorf("per-loop client requests add up to %d, clients answered %d", perLoop, s.Clients.Requests)
	}
	if s.Clients.AcceptUS.Max <= 0 {
		t.Errorf("no accept latency measured: %+v", s.Clients.AcceptUS)
	}
}

// The cost stage charges one spin per whole request, carrying a request
// split across reads to the read that completes it.
func TestCostStageCountsRequests(t *testing.T) {
	h := &costStage{spins: 1, reqSize: 10}
	var charged []int
	for _, n := range []int{4, 4, 4, 30, 8} {
		charged = append(charged, h.requests(n))
	}
	if want := []int{0, 0, 1, 3, 1}; !equalInts(charged, want) {
		t.Errorf("requests charged per read %v, want %v", charged, want)
	}
	if h.partial != 0 {
		t.Errorf("left over %d bytes, want 0", h.partial)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The handler cost is real work: the calibrated spin for 2ms takes at
// least about that long (the machine can only make it slower).
func TestSpinIsCalibrated(t *testing.T) {
	n := spinsFor(2 * time.Millisecond)
	if n <= 0 {
		t.Fatalf("spinsFor(2ms) = %d", n)
	}
	start := time.Now()
	x := spin(n, 1)
	if took := time.Since(start); took < time.Millisecond || x == 0 {
		t.Errorf("a 2ms spin took %v", took)
	}
}

// servedBy routes a client's local port to the loop that registered the
// channel, and knows nothing of other ports.
func TestServedByRoutes(t *testing.T) {
	s := newServedBy(3, time.Now)
	s.note(40000, 2)
	s.note(0, 1)     // no port: ignored
	s.note(40001, 7) // no such loop: ignored
	if h, at := s.route(40000); h != &s.hists[2] || at.IsZero() {
		t.Errorf("route(40000) = %p, %v; want loop 2's histogram and a time", h, at)
	}
	for _, p := range []int{40001, 0, 70000} {
		if h, at := s.route(p); h != nil || !at.IsZero() {
			t.Errorf("route(%d) = %p, %v; want nothing", p, h, at)
		}
	}
}
