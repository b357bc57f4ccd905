package compare

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/internal/textwidth"
	"github.com/reactorviz/reactorviz/sim"
)

// Text renders the comparison as one table, a row per model (then each
// model's verdict, the verdict and the compare clauses) or per flavour.
func (c *Comparison) Text() string {
	return textwidth.Wrap(c.text(), textwidth.Width)
}

func (c *Comparison) text() string {
	if c.Flavours != nil {
		return c.flavourText()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "compare %s: %d %s connections per model, models run one after another\n\n",
		c.Workload.Scenario, c.Workload.Connections, c.Workload.Protocol)
	tw := textwidth.NewTable(&b)
	fmt.Fprintln(tw, "model\tloops\tstarted\treq/s\tp50 µs\tp99 µs\tp999 µs\tworst 250ms p99\taccept p99\terrors\tselect %\tio %\ttask %\tbusiest\tcpu/req\tcapacity\tcpu wait\tother cpu\texpect\t")
	for i, s := range c.Models {
		started := 0
		for _, l := range s.Loops {
			if l.TID != 0 {
				started++
			}
		}
		f := c.Figures[i]
		// The worst window: its p99 and when it began.
		worst := orDash(f.WorstWindowP99US, fmt.Sprintf("%s @%s", usText(f.WorstWindowP99US), time.Duration(f.WorstWindowAtNS).Round(10*time.Millisecond)))
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%s %.0f%%\t%s\t%s\t%s\t%s\t%s\t\n", s.Model, len(s.Loops), started,
			f.RPS, f.P50US, f.P99US, f.P999US, worst, usText(f.AcceptP99US), f.Errors,
			f.Split.Select, f.Split.IO, f.Split.Tasks, f.BusiestLoop, f.BusyMax, orDash(f.CPUPerReqUS, usText(f.CPUPerReqUS)),
			orDash(f.CapacityRPS, fmt.Sprintf("%.0f/s", f.CapacityRPS)), pctText(f.CPUWaitMax), pctText(f.OtherCPU), c.expectText(s))
	}
	tw.Flush()
	b.WriteString("\n")
	for _, f := range c.Figures {
		fmt.Fprintf(&b, "%s: %s\n", f.Model, f.Verdict)
	}
	writeConclusion(&b, c.Verdict, c.Causes)
	if len(c.Checks) > 0 {
		fmt.Fprintf(&b, "\ncompare (%d of %d hold):\n", len(c.Checks)-c.failedChecks(), len(c.Checks))
		for _, e := range c.Checks {
			mark := "ok  "
			if !e.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(&b, "  %s %s%s\n", mark, e.Expr, sim.ObservedText(e))
		}
	}
	return b.String()
}

// expectText is a model's expect cell: its own expectations and the
// compare clauses that name it, held of asked; "-" with neither.
func (c *Comparison) expectText(s *sim.Summary) string {
	ok, n := c.Judgement().Tally(s.Model)
	ok, n = ok+len(s.Expect)-s.Failed(), n+len(s.Expect)
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", ok, n)
}

// flavourText is the table of a flavour comparison: besides the load
// figures, the counters the designs differ in (docs/netty-versions.md):
// eventfd writes, blocking selects and non-blocking polls, iterations,
// premature returns, task batches cut by their deadline.
func (c *Comparison) flavourText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compare %s: model %s, %d %s connections per flavour, flavours run one after another\n\n",
		c.Workload.Scenario, first(c.Flavours).Model, c.Workload.Connections, c.Workload.Protocol)
	tw := textwidth.NewTable(&b)
	fmt.Fprintln(tw, "netty\treq/s\tp99 µs\terrors\twakeups\tselects\tpolls\titerations\tpremature\trebuilds\ttasks\tcut\tidle timeout\twake/ext task\tmax batch\t")
	for i, s := range c.Flavours {
		t := c.Totals[i] // the server's loops, as the causes read them
		timeout, wake, batch := "-", "-", "-"
		if d := t.Design; d != nil {
			timeout, batch = nsText(d.LongestTimeoutNS), strconv.FormatInt(d.MaxBatch, 10)
			if d.UntimedSelects > 0 {
				timeout = "none" // the idle selects asked for no timeout
			}
			// Eventfd writes per task submitted from outside the loop: at
			// most one wakes a sleeping loop, and a loop already awake
			// needs none.
			if d.ExternalSubmits != 0 {
				wake = strconv.FormatFloat(float64(t.WakeupsWritten)/float64(d.ExternalSubmits), 'f', 2, 64)
			}
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", s.Netty,
			s.Clients.ThroughputRPS, s.Clients.LatencyUS.P99, s.Clients.Errors, t.WakeupsWritten, t.Selects,
			t.SelectNows, t.Iterations, t.Premature, t.Rebuilds, t.TasksRun, t.DeadlineHits, timeout, wake, batch)
	}
	tw.Flush()
	// One line: Text wraps it to the headless width.
	b.WriteString("\nselects: blocking waits; polls: selectNow (no wait); premature: a select that returned with " +
		"no channel ready and no task run; cut: task batches cut by their deadline; idle timeout: the " +
		"longest timeout a blocking select asked for (\"none\": it blocked until woken); wake/ext task: " +
		"eventfd writes per task submitted from outside the loop; max batch: the most tasks one batch ran.\n")
	writeConclusion(&b, c.Verdict, c.Causes)
	return b.String()
}

// Text is one row per transport: the load figures, then how the loops
// waited and read. A wait is one epoll_wait on nio and epoll, one
// io_uring_enter on the ring; a readiness loop also makes a read and a
// write per ready channel, and a read that finds nothing (EAGAIN) when it
// reads a drained socket, a completion loop makes no other I/O call.
func (c *TransportComparison) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compare %s: model %s, netty %s, %d %s connections per transport, transports run one after another\n\n",
		c.Workload.Scenario, first(c.Runs).Model, cmp.Or(first(c.Runs).Netty, "4.2"), c.Workload.Connections, c.Workload.Protocol)
	tw := textwidth.NewTable(&b)
	fmt.Fprintln(tw, "transport\treq/s\tp50 µs\tp99 µs\terrors\titerations\twaits\tpolls\twaits/req\treads/req\tempty/req\tsyscalls/req\twakeups\t")
	for i, s := range c.Runs {
		t := c.Totals[i] // the server's loops: the engine's clients stay on epoll whatever is compared
		// No reads a request on a ring (its reads are completions) or when not counted.
		reads, empty := "-", "-"
		if r, e, ok := t.readsPerRequest(); ok {
			reads, empty = fmt.Sprintf("%.2f", r), fmt.Sprintf("%.3f", e)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%.3f\t%s\t%s\t%.2f\t%d\t\n", c.Transports[i],
			s.Clients.ThroughputRPS, s.Clients.LatencyUS.P50, s.Clients.LatencyUS.P99, s.Clients.Errors,
			t.Iterations, t.Selects, t.SelectNows, t.WaitsPerReq, reads, empty, t.syscallsPerRequest(), t.WakeupsWritten)
	}
	tw.Flush()
	// One paragraph: Text wraps it to the headless width.
	b.WriteString("\nwaits: epoll_wait (nio, epoll) or the ring's waits (io_uring); reads/req: read(2) calls a request, " +
		"empty/req: those that found nothing (EAGAIN), which a level-triggered loop makes only when a read " +
		"filled its buffer exactly and an edge-triggered one at the end of every readiness; syscalls/req: " +
		"every system call the engine counted, a readiness loop's epoll_wait, read, write, epoll_ctl and " +
		"eventfd writes, the ring's io_uring_enter and eventfd writes (its reads and writes are completions).\n")
	writeConclusion(&b, c.Verdict, c.Causes)
	return textwidth.Wrap(b.String(), textwidth.Width)
}

// writeConclusion writes the verdict and the cause lines under a table.
func writeConclusion(b *strings.Builder, verdict string, causes []string) {
	if verdict != "" {
		fmt.Fprintf(b, "\nverdict: %s\n", verdict)
	}
	if len(causes) > 0 {
		b.WriteString("\nwhy they differ:\n")
		for _, l := range causes {
			fmt.Fprintf(b, "  - %s\n", l)
		}
	}
}

// orDash is a figure's cell, text, or "-" when the figure is not measured
// (not above zero): a run without a worst window, a capacity, a CPU per
// request.
func orDash(v float64, text string) string {
	if v <= 0 {
		return "-"
	}
	return text
}

// pctText is a share for a cell, "-" when unknown (negative).
func pctText(p float64) string {
	if p < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", p)
}
