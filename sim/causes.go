package sim

import (
	"fmt"

	"github.com/reactorviz/reactorviz/scenarios"
)

// LoopTotals are the counters in which Netty versions and transports
// differ, summed over a run's server loops (the load generator's loops
// left out), with the quietest loop's blocking selects: an idle loop's
// wakes (docs/netty-versions.md).
type LoopTotals struct {
	Name           string  `json:"name"` // the flavour or transport
	Requests       int64   `json:"requests"`
	Selects        int64   `json:"selects"`
	SelectNows     int64   `json:"select_nows"`
	Iterations     int64   `json:"iterations"`
	Rebuilds       int64   `json:"rebuilds"`
	QuietSelects   int64   `json:"quiet_selects"` // the fewest blocking selects of one loop
	QuietLoop      string  `json:"quiet_loop"`
	WakeupsWritten int64   `json:"wakeups_written"`
	SelfWakeups    int64   `json:"self_wakeups"`
	TasksRun       int64   `json:"tasks_run"`
	DeadlineHits   int64   `json:"deadline_hits"`
	Premature      int64   `json:"premature"`
	WaitsPerReq    float64 `json:"waits_per_request"`
	// WorstP99US is the clients' p99 in the run's worst window
	// (ClientSummary's worst_window_p99): a batch that holds a loop shows
	// here, where the run's p99 averages it away.
	WorstP99US float64 `json:"worst_window_p99_us"`
	// Syscalls are the server loops' system calls as the engine counted
	// them; nil for a run rebuilt from a trace.
	Syscalls *SyscallCount `json:"syscalls,omitempty"`
	// Design is what the events say of the loop design, when counted.
	Design *DesignCount `json:"design,omitempty"`
}

// TasksPerBatch is how many tasks ran between two cuts of a batch by its
// deadline: a flood cut at every 64-task check shows about 64.
func (t LoopTotals) TasksPerBatch() float64 { return float64(t.TasksRun) / float64(t.DeadlineHits+1) }

func totalsOf(name string, s *Summary) LoopTotals {
	t := LoopTotals{Name: name, Requests: s.Clients.Requests, QuietSelects: -1}
	for _, l := range s.Loops {
		if l.Group == scenarios.GroupClient {
			continue // the engine's clients stay on epoll whatever is compared
		}
		t.Selects += l.Selects
		t.SelectNows += l.SelectNows
		t.Iterations += l.Iterations
		t.Rebuilds += l.Rebuilds
		t.WakeupsWritten += l.WakeupsWritten
		t.SelfWakeups += l.SelfWakeups
		t.TasksRun += l.TasksRun
		t.DeadlineHits += l.DeadlineHits
		t.Premature += l.Premature
		if l.TID != 0 && (t.QuietSelects < 0 || l.Selects < t.QuietSelects) {
			t.QuietSelects, t.QuietLoop = l.Selects, l.Name
		}
	}
	t.QuietSelects = max(t.QuietSelects, 0)
	if w := s.Clients.LatencyUS.WorstWindow; w != nil {
		// The requests still in flight counted at their age, as the
		// verdict and the screens read the worst window.
		t.WorstP99US = w.P99US
	}
	t.Syscalls, t.Design = s.syscalls, s.design
	if t.Requests > 0 {
		t.WaitsPerReq = float64(t.Selects+t.SelectNows) / float64(t.Requests)
	}
	return t
}

// flavourCauses compares each pair of neighbouring loop designs and says,
// for every figure they differ in, which Netty change made the difference.
func flavourCauses(ts []LoopTotals) []string {
	var out []string
	for i := 1; i < len(ts); i++ {
		out = append(out, flavourPair(ts[i-1], ts[i])...)
	}
	return out
}

// flavourPair is what tells a from b, each line tied to its change.
func flavourPair(a, b LoopTotals) []string {
	var out []string
	if differ(a.QuietSelects, b.QuietSelects, 2) {
		out = append(out, idleLine(a, b))
	}
	if differ(a.DeadlineHits, b.DeadlineHits, 10) {
		out = append(out, batchLine(a, b))
	}
	if lo, hi := min(a.WorstP99US, b.WorstP99US), max(a.WorstP99US, b.WorstP99US); lo > 0 && hi >= 5*lo && hi-lo >= noiseUS {
		out = append(out, worstLine(a, b))
	}
	if differ(a.Premature, b.Premature, 1) {
		out = append(out, fmt.Sprintf("%s: premature select returns %d under %s, %d under %s — since 4.1.44 (netty#9799) run() counts any iteration that selected nothing and ran no task, a wakeup with no work included; 4.1.43 and 4.2's NIO count inside select(), where a timeout or a wakeup is not premature",
			pairName(a, b), a.Premature, a.Name, b.Premature, b.Name))
	}
	if l := emptyReadsLine(a, b); l != "" {
		out = append(out, l)
	}
	if old := string(scenarios.Netty4143); (a.Name == old || b.Name == old) && differ(a.SelfWakeups, b.SelfWakeups, 2) {
		out = append(out, fmt.Sprintf("%s: the loops woke themselves %d times under %s, %d under %s — 4.1.44 (netty#9799) dropped the self-wakeup: a loop that is awake (nextWakeupNanos AWAKE) writes no eventfd for its own tasks",
			pairName(a, b), a.SelfWakeups, a.Name, b.SelfWakeups, b.Name))
	}
	return out
}

// emptyReadsLine explains reads that found nothing far apart: an
// edge-triggered channel (4.1's epoll with trigger: edge) reads until
// EAGAIN, so every readiness ends with an empty read; a level-triggered
// one (NIO, and 4.2's epoll, which has no other mode) stops at a short
// read and leaves the rest to the next wait.
func emptyReadsLine(a, b LoopTotals) string {
	ea, eb := a.EmptyReadsPerRequest(), b.EmptyReadsPerRequest()
	if ea < 0 || eb < 0 {
		return ""
	}
	if d := max(ea-eb, eb-ea); d < 0.05 || 4*d < max(ea, eb) {
		return ""
	}
	head := fmt.Sprintf("%s: %.2f reads a request found nothing (EAGAIN) under %s, %.2f under %s",
		pairName(a, b), ea, a.Name, eb, b.Name)
	if a.Name == string(scenarios.Netty42) || b.Name == string(scenarios.Netty42) {
		return head + " — 4.2's epoll is level-triggered only (netty#14007/#14031): a read pass stops at a short read and the next epoll_wait reports what is left; 4.1's edge-triggered epoll (EPOLLET) must read until EAGAIN, since the edge will not be reported again, so every readiness ends with a read that finds nothing"
	}
	return head + " — an edge-triggered channel reads until EAGAIN, so every readiness ends with a read that finds nothing; a level-triggered one stops at a short read and the next wait reports what is left"
}

// EmptyReadsPerRequest is the reads that found nothing (EAGAIN) a
// request; -1 when not counted.
func (t LoopTotals) EmptyReadsPerRequest() float64 {
	if t.Syscalls == nil || t.Requests <= 0 || t.Syscalls.Enters > 0 {
		return -1
	}
	return perReq(t.Syscalls.EmptyReads, t.Requests)
}

// ReadsPerRequest is the read(2) calls a request, those that found
// nothing included; -1 when not counted or on a ring.
func (t LoopTotals) ReadsPerRequest() float64 {
	if t.Syscalls == nil || t.Requests <= 0 || t.Syscalls.Enters > 0 {
		return -1
	}
	return perReq(t.Syscalls.Reads, t.Requests)
}

// differ says whether two counts differ by at least by and by a quarter
// of the larger: a few more batches cut in one run than another is the
// scheduler's doing, not the design's.
func differ(a, b, by int64) bool {
	d := max(a-b, b-a)
	return d >= by && 4*d >= max(a, b)
}

func pairName(a, b LoopTotals) string { return a.Name + " → " + b.Name }

// idleLine explains the idle loop's wakes: 4.1.43 caps a select at the 1 s
// purge interval, 4.1.44 blocks with no timeout when nothing is
// scheduled, 4.2 gives every handler the 1 s deadline again.
func idleLine(a, b LoopTotals) string {
	head := fmt.Sprintf("%s: the quietest loop blocked in select %d times under %s (%s), %d under %s (%s)",
		pairName(a, b), a.QuietSelects, a.Name, timeoutText(a), b.QuietSelects, b.Name, timeoutText(b))
	none, capped := a, b
	if a.QuietSelects > b.QuietSelects {
		none, capped = b, a
	}
	switch {
	case none.Name == string(scenarios.Netty41) && capped.Name == string(scenarios.Netty42):
		return head + " — 4.2's IoHandlerContext.deadlineNanos() is never \"none\", so an idle loop wakes every second again (SCHEDULE_PURGE_INTERVAL); 4.1 (4.1.44+, NioEventLoop's nextWakeupNanos, netty#9799) blocks with no timeout when nothing is scheduled"
	case none.Name == string(scenarios.Netty41):
		return head + " — 4.1.44 (netty#9799, NioEventLoop's nextWakeupNanos) blocks with no timeout when nothing is scheduled; 4.1.43 capped every select at 1 s (SCHEDULE_PURGE_INTERVAL), so an idle loop woke each second"
	}
	return head + " — an idle loop wakes when its select times out: 1 s (SCHEDULE_PURGE_INTERVAL) when nothing is scheduled, except under 4.1.44+'s nextWakeupNanos (netty#9799)"
}

// worstLine explains a worst window far apart: a batch that ran unbroken
// held the loop, and the requests of its channels waited.
func worstLine(a, b LoopTotals) string {
	head := fmt.Sprintf("%s: the clients' worst %s p99 was %s under %s, %s under %s",
		pairName(a, b), WindowEvery, usText(a.WorstP99US), a.Name, usText(b.WorstP99US), b.Name)
	if a.Name == string(scenarios.Netty42) || b.Name == string(scenarios.Netty42) {
		return head + " — 4.2's task quantum lets one batch hold its loop for up to 1 s, so the channels that loop serves wait until the batch ends; 4.1's cuts hand the loop back to I/O every 64 tasks"
	}
	return head + " — a batch held one loop while its channels' requests waited"
}

// batchLine explains task batches cut by their deadline: 4.1's ioRatio
// budget against 4.2's task quantum.
func batchLine(a, b LoopTotals) string {
	head := fmt.Sprintf("%s: task batches cut by their deadline %d times under %s (%.0f tasks a batch), %d under %s (%.0f)%s",
		pairName(a, b), a.DeadlineHits, a.Name, a.TasksPerBatch(), b.DeadlineHits, b.Name, b.TasksPerBatch(), endingsText(a, b))
	if a.Name == string(scenarios.Netty42) || b.Name == string(scenarios.Netty42) {
		return head + " — 4.2 (SingleThreadIoEventLoop) replaced ioRatio with a task quantum (maxTaskProcessingQuantumMs, 1 s), so a flood runs unbroken; under 4.1 an iteration with next to no I/O gives its tasks a budget of next to nothing, and the batch is cut at the first 64-task check"
	}
	return head + " — 4.1.44 (netty#9799) runs runAllTasks(0) after an iteration that selected nothing, so every batch is cut at the first 64-task check; 4.1.43 gave the batch ioRatio's share of the I/O time"
}

// transportCauses says what each transport cost per request and why: a
// readiness loop (nio, epoll) waits, then reads and writes each ready
// channel with a system call of its own; a completion loop (io_uring)
// submits the reads and writes on its ring and enters the kernel once for
// a batch of them.
func transportCauses(ts []LoopTotals, netty string) []string {
	var out []string
	for _, t := range ts {
		out = append(out, transportLine(t))
	}
	if a, b, ok := pairOf(ts, "nio", "epoll"); ok {
		if netty == string(scenarios.Netty42) || netty == "" {
			out = append(out, nioEpollLine(a, b))
		} else {
			out = append(out, levelEdgeLine(a, b, netty))
		}
	}
	return out
}

// levelEdgeLine compares the two readiness transports under 4.1 and
// 4.1.43, where each runs in Netty's default mode: NIO level-triggered,
// epoll edge-triggered, which must read each readiness until EAGAIN.
func levelEdgeLine(a, b LoopTotals, netty string) string {
	ea, eb := a.EmptyReadsPerRequest(), b.EmptyReadsPerRequest()
	if ea < 0 || eb < 0 {
		return fmt.Sprintf("nio against epoll: %.2f against %.2f waits a request — under %s NIO is level-triggered and epoll edge-triggered", a.WaitsPerReq, b.WaitsPerReq, netty)
	}
	return fmt.Sprintf("nio against epoll: %.2f against %.2f reads a request, %.2f against %.2f of them empty (EAGAIN) — under %s NIO is "+
		"level-triggered (the JDK's selector), so a read pass stops at a short read and the next select reports what is left; epoll runs "+
		"edge-triggered (EpollMode.EDGE_TRIGGERED, Netty's default), told of new data once, so it reads until a read finds nothing: "+
		"about one empty read a request is the price of never missing data",
		a.ReadsPerRequest(), b.ReadsPerRequest(), ea, eb, netty)
}

// nioEpollLine compares the two readiness transports: under 4.2 both are
// level-triggered, so what tells them apart is in their reads, and the
// empty ones (EAGAIN) show whether a loop read until the socket was
// drained.
func nioEpollLine(a, b LoopTotals) string {
	const level = "under 4.2 both are level-triggered (netty#14007/#14031 removed epoll's edge-triggered mode), so a read pass stops at a short read and the next wait reports a channel with data left, on either"
	ea, eb := a.EmptyReadsPerRequest(), b.EmptyReadsPerRequest()
	if ea < 0 || eb < 0 {
		return fmt.Sprintf("nio against epoll: %.2f against %.2f waits a request — %s", a.WaitsPerReq, b.WaitsPerReq, level)
	}
	head := fmt.Sprintf("nio against epoll: %.2f against %.2f reads a request, %.2f against %.2f of them empty (EAGAIN), %.2f against %.2f waits",
		a.ReadsPerRequest(), b.ReadsPerRequest(), ea, eb, a.WaitsPerReq, b.WaitsPerReq)
	if d := max(ea-eb, eb-ea); d >= 0.05 && 4*d >= max(ea, eb) {
		return head + " — " + level + "; epoll's channel also carries on in a task (epollInReady) after a pass whose 16 reads all filled the buffer, and that read may find nothing, where nio leaves the rest to the next select"
	}
	return head + " — " + level + ": neither reads until EAGAIN. 4.1's edge-triggered epoll did, ending every readiness with an empty read (compare --flavours 4.1,4.2 --set loop.selector=epoll --set loop.trigger=edge shows it)"
}

// SyscallsPerRequest is the system calls a request cost, as the engine
// counted them: a readiness loop's waits, reads (the empty ones too),
// writes, epoll_ctl and eventfd writes, a ring's enters and eventfd
// writes. A run without the count (a unit's figures) gets the fewest it
// could have made: its waits and, for a readiness transport, a read and
// a write.
func SyscallsPerRequest(t LoopTotals) float64 {
	if c := t.Syscalls; c != nil && t.Requests > 0 {
		return perReq(c.Total(), t.Requests)
	}
	if t.Name == string(scenarios.SelectorIOUring) {
		return t.WaitsPerReq
	}
	return t.WaitsPerReq + 2
}

// perReq is n a request.
func perReq(n, reqs int64) float64 {
	if reqs <= 0 {
		return 0
	}
	return float64(n) / float64(reqs)
}

// perEnter is n an enter.
func perEnter(n, enters int64) float64 {
	if enters <= 0 {
		return 0
	}
	return float64(n) / float64(enters)
}

func transportLine(t LoopTotals) string {
	if c := t.Syscalls; c != nil && t.Requests > 0 {
		return countedLine(t, c)
	}
	if t.Name == string(scenarios.SelectorIOUring) {
		return fmt.Sprintf("io_uring: %.2f system calls a request, all io_uring_enter — reads and writes are submitted on the ring and their completions reaped from it, so one enter carries many; the cost is the ring's memory and a loop that must keep buffers posted",
			SyscallsPerRequest(t))
	}
	return fmt.Sprintf("%s: at least %.2f system calls a request — %.2f epoll_wait (or epoll_wait(0) polls) plus a read and a write for each ready channel: readiness says a channel can be read, the loop still reads it",
		t.Name, SyscallsPerRequest(t), t.WaitsPerReq)
}

func pairOf(ts []LoopTotals, x, y string) (a, b LoopTotals, ok bool) {
	var okA, okB bool
	for _, t := range ts {
		switch t.Name {
		case x:
			a, okA = t, true
		case y:
			b, okB = t, true
		}
	}
	return a, b, okA && okB
}

// countedLine is transportLine from the engine's counts.
func countedLine(t LoopTotals, c *SyscallCount) string {
	r := t.Requests
	if t.Name == string(scenarios.SelectorIOUring) {
		return fmt.Sprintf("io_uring: %.2f system calls a request — %.2f io_uring_enter, each carrying %.1f submissions and reaping %.1f completions, %.2f eventfd write: reads and writes go on the ring, so one enter serves many; the cost is the ring's memory, buffers kept posted, and a completion that arrives only on the next enter",
			SyscallsPerRequest(t), perReq(c.Enters, r), perEnter(c.Submitted, c.Enters), perEnter(c.Completed, c.Enters), perReq(c.EventFD, r))
	}
	return fmt.Sprintf("%s: %.2f system calls a request — %.2f epoll_wait, %.2f read (%.2f of them empty: EAGAIN), %.2f write, %.2f epoll_ctl, %.2f eventfd write: readiness says a channel can be read, the loop still reads and writes it itself",
		t.Name, SyscallsPerRequest(t), perReq(c.Waits, r), perReq(c.Reads, r), perReq(c.EmptyReads, r), perReq(c.Writes, r), perReq(c.Ctl, r), perReq(c.EventFD, r))
}

// timeoutText says how long the run's idle selects could block.
func timeoutText(t LoopTotals) string {
	d := t.Design
	switch {
	case d == nil:
		return "timeouts not counted"
	case d.UntimedSelects > 0 && d.LongestTimeoutNS <= 0:
		return fmt.Sprintf("%d with no timeout", d.UntimedSelects)
	case d.UntimedSelects > 0:
		return fmt.Sprintf("%d with no timeout, the longest timeout %s", d.UntimedSelects, nsText(d.LongestTimeoutNS))
	}
	return "the longest timeout " + nsText(d.LongestTimeoutNS)
}

// endingsText says how each design's batches ended, when counted.
func endingsText(a, b LoopTotals) string {
	if a.Design == nil || b.Design == nil {
		return ""
	}
	one := func(t LoopTotals) string {
		d := t.Design
		return fmt.Sprintf("%s %d by an ioRatio budget, %d by the quantum, %d emptied the queue, largest %d tasks",
			t.Name, d.EndedBudget, d.EndedQuantum, d.EndedEmpty, d.MaxBatch)
	}
	return "; batches ended: " + one(a) + "; " + one(b)
}

func nsText(ns int64) string { return usText(float64(ns) / 1000) }

// WakeupsPerSubmit is the eventfd writes per task submitted from outside
// the loop: at most one wakes a sleeping loop, and a loop already awake
// needs none.
func (t LoopTotals) WakeupsPerSubmit() (float64, bool) {
	if t.Design == nil || t.Design.ExternalSubmits == 0 {
		return 0, false
	}
	return float64(t.WakeupsWritten) / float64(t.Design.ExternalSubmits), true
}
