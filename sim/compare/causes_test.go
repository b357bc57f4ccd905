package compare

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

func hasLine(lines []string, parts ...string) bool {
	for _, l := range lines {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// Each counter the designs differ in gets a line naming the Netty change
// behind it; counters that agree get none.
func TestFlavourCauses(t *testing.T) {
	t4143 := LoopTotals{Name: "4.1.43", QuietSelects: 4, DeadlineHits: 300, TasksRun: 20001, SelfWakeups: 9,
		Design: &sim.DesignCount{LongestTimeoutNS: 1e9, EndedBudget: 300, MaxBatch: 64}}
	t41 := LoopTotals{Name: "4.1", QuietSelects: 1, DeadlineHits: 310, TasksRun: 20001, Premature: 5, WorstP99US: 1300,
		Design: &sim.DesignCount{UntimedSelects: 280, EndedBudget: 310, EndedEmpty: 5, MaxBatch: 64}}
	t42 := LoopTotals{Name: "4.2", QuietSelects: 4, DeadlineHits: 0, TasksRun: 20001, WorstP99US: 418_000,
		Design: &sim.DesignCount{LongestTimeoutNS: 1e9, EndedEmpty: 3, MaxBatch: 20001}}
	lines := flavourCauses([]LoopTotals{t4143, t41, t42})
	for _, want := range [][]string{
		{"4.1.43 → 4.1: the quietest loop blocked in select 4 times under 4.1.43 (the longest timeout 1.00s), 1 under 4.1 (280 with no timeout)", "nextWakeupNanos", "netty#9799", "SCHEDULE_PURGE_INTERVAL"},
		{"4.1 → 4.2: the quietest loop", "IoHandlerContext.deadlineNanos()"},
		{"4.1 → 4.2: task batches cut by their deadline 310 times", "task quantum", "64-task check",
			"batches ended: 4.1 310 by an ioRatio budget, 0 by the quantum, 5 emptied the queue, largest 64 tasks; 4.2 0 by an ioRatio budget, 0 by the quantum, 3 emptied the queue, largest 20001 tasks"},
		{"4.1.43 → 4.1: premature select returns 0 under 4.1.43, 5 under 4.1", "run() counts"},
		{"4.1 → 4.2: premature select returns 5"},
		{"4.1.43 → 4.1: the loops woke themselves 9 times", "self-wakeup"},
		{"4.1 → 4.2: the clients' worst 250ms p99 was 1.3ms under 4.1, 418.0ms under 4.2", "task quantum", "hold its loop"},
	} {
		if !hasLine(lines, want...) {
			t.Errorf("no line with %q in:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if hasLine(lines, "4.1.43 → 4.1: task batches") {
		t.Errorf("a line for batches that agree:\n%s", strings.Join(lines, "\n"))
	}
	if got := flavourCauses([]LoopTotals{t4143, t4143}); len(got) != 0 {
		t.Errorf("identical designs got causes: %q", got)
	}
}

// Each transport gets its system calls a request and why; io_uring's are
// only enters, a readiness loop adds a read and a write; nio against
// epoll says both are level-triggered under 4.2.
func TestTransportCauses(t *testing.T) {
	ts := []LoopTotals{
		{Name: "nio", Requests: 1000, Selects: 400},
		{Name: "epoll", Requests: 1000, Selects: 400},
		{Name: "io_uring", Requests: 1000, Selects: 900},
	}
	for i := range ts {
		ts[i].WaitsPerReq = float64(ts[i].Selects) / float64(ts[i].Requests)
	}
	lines := transportCauses(ts, "4.2")
	for _, want := range [][]string{
		{"nio: at least 2.40 system calls a request", "a read and a write"},
		{"epoll: at least 2.40 system calls a request"},
		{"io_uring: 0.90 system calls a request, all io_uring_enter", "submitted on the ring"},
		{"nio against epoll", "level-triggered", "netty#14007"},
	} {
		if !hasLine(lines, want...) {
			t.Errorf("no line with %q in:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if got := fewestSyscalls(ts); !strings.HasPrefix(got, "io_uring made the fewest system calls a request (nio 2.40, epoll 2.40, io_uring 0.90)") {
		t.Errorf("fewest: %q", got)
	}
}

// A design comparison whose clients' windows overlap says so and points
// at the causes, rather than ranking the designs by noise.
func TestVariantVerdictAboutTheSame(t *testing.T) {
	fs := []Figures{
		{Model: "4.1.43", RPS: 100, P99US: 900, RPSSpread: Spread{96, 104, 10}, P99Spread: Spread{500, 1400, 10}},
		{Model: "4.1", RPS: 99, P99US: 1800, RPSSpread: Spread{95, 103, 10}, P99Spread: Spread{700, 2500, 10}},
	}
	v := variantVerdict(fs, "design", true)
	if !strings.HasPrefix(v, "the clients saw about the same under every design") || !strings.Contains(v, "why they differ, below") {
		t.Errorf("verdict: %q", v)
	}
}

// Counted system calls replace the estimate: a readiness loop's waits,
// reads (the empty ones said apart), writes, epoll_ctl and eventfd
// writes; a ring's enters, what each carried, and its eventfd writes.
func TestTransportCausesCounted(t *testing.T) {
	ts := []LoopTotals{
		{Name: "epoll", Requests: 1000, Syscalls: &sim.SyscallCount{Waits: 500, Reads: 1200, EmptyReads: 200, Writes: 1000, Ctl: 10, EventFD: 20}},
		{Name: "io_uring", Requests: 1000, Syscalls: &sim.SyscallCount{Enters: 800, Submitted: 2000, Completed: 2000, EventFD: 10}},
	}
	lines := transportCauses(ts, "4.2")
	for _, want := range [][]string{
		{"epoll: 2.73 system calls a request — 0.50 epoll_wait, 1.20 read (0.20 of them empty: EAGAIN), 1.00 write, 0.01 epoll_ctl, 0.02 eventfd write"},
		{"io_uring: 0.81 system calls a request — 0.80 io_uring_enter, each carrying 2.5 submissions and reaping 2.5 completions, 0.01 eventfd write"},
	} {
		if !hasLine(lines, want...) {
			t.Errorf("no line with %q in:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	if got := fewestSyscalls(ts); !strings.HasPrefix(got, "io_uring made the fewest system calls a request (epoll 2.73, io_uring 0.81)") {
		t.Errorf("fewest: %q", got)
	}
}

// nio against epoll under 4.2, counted: both level-triggered, so their
// reads agree and neither reads until EAGAIN, which the line says, with
// where edge against level shows; when epoll's task-carried reads find
// nothing more often, the line says why.
func TestNioAgainstEpollReads(t *testing.T) {
	nio := LoopTotals{Name: "nio", Requests: 1000, WaitsPerReq: 0.5, Syscalls: &sim.SyscallCount{Reads: 1000, EmptyReads: 1}}
	ep := LoopTotals{Name: "epoll", Requests: 1000, WaitsPerReq: 0.6, Syscalls: &sim.SyscallCount{Reads: 1001, EmptyReads: 2}}
	l := nioEpollLine(nio, ep)
	for _, want := range []string{"nio against epoll: 1.00 against 1.00 reads a request, 0.00 against 0.00 of them empty (EAGAIN), 0.50 against 0.60 waits",
		"level-triggered", "netty#14007", "neither reads until EAGAIN", "--flavours 4.1,4.2 --set loop.selector=epoll --set loop.trigger=edge"} {
		if !strings.Contains(l, want) {
			t.Errorf("no %q in %q", want, l)
		}
	}
	ep.Syscalls = &sim.SyscallCount{Reads: 1400, EmptyReads: 300}
	if l := nioEpollLine(nio, ep); !strings.Contains(l, "0.00 against 0.30 of them empty") || !strings.Contains(l, "epollInReady") {
		t.Errorf("empty reads apart: %q", l)
	}
	if l := nioEpollLine(LoopTotals{Name: "nio", WaitsPerReq: 0.5}, LoopTotals{Name: "epoll", WaitsPerReq: 0.6}); !strings.HasPrefix(l, "nio against epoll: 0.50 against 0.60 waits a request — under 4.2 both are level-triggered") {
		t.Errorf("uncounted: %q", l)
	}
}

// Between designs, reads that found nothing far apart are edge against
// level: 4.1's edge-triggered epoll reads until EAGAIN, 4.2's epoll
// cannot; close figures, or a ring, get no line.
func TestFlavourCausesEmptyReads(t *testing.T) {
	t41 := LoopTotals{Name: "4.1", Requests: 1000, Syscalls: &sim.SyscallCount{Reads: 2000, EmptyReads: 1000}}
	t42 := LoopTotals{Name: "4.2", Requests: 1000, Syscalls: &sim.SyscallCount{Reads: 1000, EmptyReads: 0}}
	lines := flavourCauses([]LoopTotals{t41, t42})
	if !hasLine(lines, "4.1 → 4.2: 1.00 reads a request found nothing (EAGAIN) under 4.1, 0.00 under 4.2", "level-triggered only", "netty#14007", "EPOLLET", "until EAGAIN") {
		t.Errorf("no empty-reads line in:\n%s", strings.Join(lines, "\n"))
	}
	t42.Syscalls = &sim.SyscallCount{Reads: 1990, EmptyReads: 990}
	if lines := flavourCauses([]LoopTotals{t41, t42}); hasLine(lines, "found nothing") {
		t.Errorf("a line for empty reads that agree:\n%s", strings.Join(lines, "\n"))
	}
	ring := LoopTotals{Name: "4.2", Requests: 1000, Syscalls: &sim.SyscallCount{Enters: 500}}
	if lines := flavourCauses([]LoopTotals{t41, ring}); hasLine(lines, "found nothing") {
		t.Errorf("a ring's reads compared:\n%s", strings.Join(lines, "\n"))
	}
}

// Under 4.1, nio against epoll is level against edge: the line says so,
// with the empty reads that edge-triggered reading costs.
func TestNioAgainstEpollUnder41IsLevelAgainstEdge(t *testing.T) {
	ts := []LoopTotals{
		{Name: "nio", Requests: 1000, WaitsPerReq: 0.5, Syscalls: &sim.SyscallCount{Reads: 1000, EmptyReads: 0}},
		{Name: "epoll", Requests: 1000, WaitsPerReq: 0.5, Syscalls: &sim.SyscallCount{Reads: 2000, EmptyReads: 1000}},
	}
	lines := transportCauses(ts, "4.1")
	if !hasLine(lines, "nio against epoll: 1.00 against 2.00 reads a request, 0.00 against 1.00 of them empty (EAGAIN) — under 4.1 NIO is level-triggered",
		"EDGE_TRIGGERED", "reads until a read finds nothing") || hasLine(lines, "netty#14007") {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
}

// A comparison with io_uring runs every transport under 4.2; nio and epoll
// alone keep the scenario's design, NIO level- and epoll edge-triggered
// under 4.1 and 4.1.43.
func TestTransportsForPicksTheDesignAndMode(t *testing.T) {
	sc, err := scenarios.Load("multi-reactor")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("netty", "4.1"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		list      []string
		transport string
		netty     scenarios.Netty
		trigger   scenarios.Trigger
	}{
		{[]string{"nio", "epoll", "io_uring"}, "epoll", scenarios.Netty42, scenarios.TriggerLevel},
		{[]string{"nio", "epoll"}, "nio", scenarios.Netty41, scenarios.TriggerLevel},
		{[]string{"nio", "epoll"}, "epoll", scenarios.Netty41, scenarios.TriggerEdge},
	} {
		got, err := TransportsFor(c.list)(sc, c.transport)
		if err != nil {
			t.Fatal(err)
		}
		if got.Netty != c.netty || got.Loop.Trigger != c.trigger || string(got.Loop.Selector) != c.transport {
			t.Errorf("%v, %s: netty %s trigger %s selector %s; want %s %s", c.list, c.transport, got.Netty, got.Loop.Trigger, got.Loop.Selector, c.netty, c.trigger)
		}
	}
}
