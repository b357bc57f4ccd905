package compare

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
)

// A transport comparison reads each run's system calls from the engine's
// counters on real sockets: an epoll loop waits, reads and writes (at
// least one read and one write a request answered), the ring enters and
// carries submissions and makes no read of its own; the verdict names the
// transport with the fewest.
func TestCompareTransportsCountsSyscalls(t *testing.T) {
	sc, err := scenarios.Load("multi-reactor")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "400ms"); err != nil {
		t.Fatal(err)
	}
	c, err := RunTransports(sc, []string{"epoll", "io_uring"}, Options{})
	if err != nil && strings.Contains(err.Error(), "io_uring unavailable") {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	ep, ring := c.Totals[0], c.Totals[1]
	if ep.Syscalls == nil || ring.Syscalls == nil || ep.Requests == 0 || ring.Requests == 0 {
		t.Fatalf("not counted: %+v / %+v", ep, ring)
	}
	if e := ep.Syscalls; e.Waits == 0 || e.Reads < ep.Requests || e.Writes < ep.Requests || e.Enters != 0 {
		t.Errorf("epoll's calls for %d requests: %+v", ep.Requests, *e)
	}
	if r := ring.Syscalls; r.Enters == 0 || r.Submitted == 0 || r.Completed == 0 || r.Reads != 0 || r.Waits != 0 {
		t.Errorf("io_uring's calls: %+v", *r)
	}
	if !strings.Contains(c.Verdict, "made the fewest system calls a request") {
		t.Errorf("verdict: %q", c.Verdict)
	}
	if !strings.Contains(c.Text(), "empty/req") {
		t.Errorf("the table has no empty reads:\n%s", c.Text())
	}
}

// A flavour comparison reads the designs from the engine's events: 4.1.43
// caps every select with a timeout, 4.1 blocks an idle loop with none.
func TestCompareFlavoursCountsTheDesign(t *testing.T) {
	sc, err := scenarios.Load("multi-reactor")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "300ms"); err != nil {
		t.Fatal(err)
	}
	c, err := RunFlavours(sc, []string{"4.1.43", "4.1"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	old, cur := c.Totals[0].Design, c.Totals[1].Design
	if old == nil || cur == nil {
		t.Fatalf("not counted: %+v", c.Totals)
	}
	if old.UntimedSelects != 0 || old.LongestTimeoutNS <= 0 {
		t.Errorf("4.1.43's selects: %+v", *old)
	}
	if cur.UntimedSelects == 0 {
		t.Errorf("4.1's idle selects asked a timeout: %+v", *cur)
	}
	if old.Batches == 0 || cur.Batches == 0 {
		t.Errorf("no batches counted: %+v / %+v", *old, *cur)
	}
}
