package compare

import (
	"fmt"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

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
	if worstFarApart(a, b) {
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
	_, ea, okA := a.readsPerRequest()
	_, eb, okB := b.readsPerRequest()
	if !okA || !okB || !emptyReadsApart(ea, eb) {
		return ""
	}
	head := fmt.Sprintf("%s: %.2f reads a request found nothing (EAGAIN) under %s, %.2f under %s",
		pairName(a, b), ea, a.Name, eb, b.Name)
	if a.Name == string(scenarios.Netty42) || b.Name == string(scenarios.Netty42) {
		return head + " — 4.2's epoll is level-triggered only (netty#14007/#14031): a read pass stops at a short read and the next epoll_wait reports what is left; 4.1's edge-triggered epoll (EPOLLET) must read until EAGAIN, since the edge will not be reported again, so every readiness ends with a read that finds nothing"
	}
	return head + " — an edge-triggered channel reads until EAGAIN, so every readiness ends with a read that finds nothing; a level-triggered one stops at a short read and the next wait reports what is left"
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
		pairName(a, b), sim.WindowEvery, usText(a.WorstP99US), a.Name, usText(b.WorstP99US), b.Name)
	if a.Name == string(scenarios.Netty42) || b.Name == string(scenarios.Netty42) {
		return head + " — 4.2's task quantum lets one batch hold its loop for up to 1 s, so the channels that loop serves wait until the batch ends; 4.1's cuts hand the loop back to I/O every 64 tasks"
	}
	return head + " — a batch held one loop while its channels' requests waited"
}

// batchLine explains task batches cut by their deadline: 4.1's ioRatio
// budget against 4.2's task quantum.
func batchLine(a, b LoopTotals) string {
	head := fmt.Sprintf("%s: task batches cut by their deadline %d times under %s (%.0f tasks a batch), %d under %s (%.0f)%s",
		pairName(a, b), a.DeadlineHits, a.Name, a.tasksPerBatch(), b.DeadlineHits, b.Name, b.tasksPerBatch(), endingsText(a, b))
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
	ra, ea, okA := a.readsPerRequest()
	rb, eb, okB := b.readsPerRequest()
	if !okA || !okB {
		return fmt.Sprintf("nio against epoll: %.2f against %.2f waits a request — under %s NIO is level-triggered and epoll edge-triggered", a.WaitsPerReq, b.WaitsPerReq, netty)
	}
	return fmt.Sprintf("nio against epoll: %.2f against %.2f reads a request, %.2f against %.2f of them empty (EAGAIN) — under %s NIO is "+
		"level-triggered (the JDK's selector), so a read pass stops at a short read and the next select reports what is left; epoll runs "+
		"edge-triggered (EpollMode.EDGE_TRIGGERED, Netty's default), told of new data once, so it reads until a read finds nothing: "+
		"about one empty read a request is the price of never missing data",
		ra, rb, ea, eb, netty)
}

// nioEpollLine compares the two readiness transports: under 4.2 both are
// level-triggered, so what tells them apart is in their reads, and the
// empty ones (EAGAIN) show whether a loop read until the socket was
// drained.
func nioEpollLine(a, b LoopTotals) string {
	const level = "under 4.2 both are level-triggered (netty#14007/#14031 removed epoll's edge-triggered mode), so a read pass stops at a short read and the next wait reports a channel with data left, on either"
	ra, ea, okA := a.readsPerRequest()
	rb, eb, okB := b.readsPerRequest()
	if !okA || !okB {
		return fmt.Sprintf("nio against epoll: %.2f against %.2f waits a request — %s", a.WaitsPerReq, b.WaitsPerReq, level)
	}
	head := fmt.Sprintf("nio against epoll: %.2f against %.2f reads a request, %.2f against %.2f of them empty (EAGAIN), %.2f against %.2f waits",
		ra, rb, ea, eb, a.WaitsPerReq, b.WaitsPerReq)
	if emptyReadsApart(ea, eb) {
		return head + " — " + level + "; epoll's channel also carries on in a task (epollInReady) after a pass whose 16 reads all filled the buffer, and that read may find nothing, where nio leaves the rest to the next select"
	}
	return head + " — " + level + ": neither reads until EAGAIN. 4.1's edge-triggered epoll did, ending every readiness with an empty read (compare --flavours 4.1,4.2 --set loop.selector=epoll --set loop.trigger=edge shows it)"
}

// transportLine is what a transport cost a request and why, from the
// engine's counts when the run has them, else the fewest it could have
// made.
func transportLine(t LoopTotals) string {
	c, r := t.Syscalls, t.Requests
	counted, ring := c != nil && r > 0, t.Name == string(scenarios.SelectorIOUring)
	switch {
	case counted && ring:
		return fmt.Sprintf("io_uring: %.2f system calls a request — %.2f io_uring_enter, each carrying %.1f submissions and reaping %.1f completions, %.2f eventfd write: reads and writes go on the ring, so one enter serves many; the cost is the ring's memory, buffers kept posted, and a completion that arrives only on the next enter",
			t.syscallsPerRequest(), per(c.Enters, r), per(c.Submitted, c.Enters), per(c.Completed, c.Enters), per(c.EventFD, r))
	case counted:
		return fmt.Sprintf("%s: %.2f system calls a request — %.2f epoll_wait, %.2f read (%.2f of them empty: EAGAIN), %.2f write, %.2f epoll_ctl, %.2f eventfd write: readiness says a channel can be read, the loop still reads and writes it itself",
			t.Name, t.syscallsPerRequest(), per(c.Waits, r), per(c.Reads, r), per(c.EmptyReads, r), per(c.Writes, r), per(c.Ctl, r), per(c.EventFD, r))
	case ring:
		return fmt.Sprintf("io_uring: %.2f system calls a request, all io_uring_enter — reads and writes are submitted on the ring and their completions reaped from it, so one enter carries many; the cost is the ring's memory and a loop that must keep buffers posted",
			t.syscallsPerRequest())
	}
	return fmt.Sprintf("%s: at least %.2f system calls a request — %.2f epoll_wait (or epoll_wait(0) polls) plus a read and a write for each ready channel: readiness says a channel can be read, the loop still reads it",
		t.Name, t.syscallsPerRequest(), t.WaitsPerReq)
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
