package sim

import (
	"fmt"
	"strings"

	"github.com/reactorviz/reactorviz/scenarios"
)

// TransportComparison is one workload served on each transport in turn
// (compare --transports): readiness (nio, epoll) against completion
// (io_uring), the same model, workload and loop design. With io_uring
// among them the design is Netty 4.2's, the only one with that
// transport; nio and epoll alone run under the scenario's design, each in
// Netty's default mode for it (TransportsFor).
type TransportComparison struct {
	Workload   Workload   `json:"workload"`
	Transports []string   `json:"transports"`
	Runs       []*Summary `json:"runs"`
	// Figures and Totals are each transport's; Verdict and Causes say
	// what the clients saw and what each transport cost a request.
	Figures []Figures    `json:"figures,omitempty"`
	Totals  []LoopTotals `json:"totals,omitempty"`
	Verdict string       `json:"verdict,omitempty"`
	Causes  []string     `json:"causes,omitempty"`
}

// JudgeTransports builds the comparison of the runs of sc on each
// transport: the clients' figures, the system calls a request cost on
// each, and why.
func JudgeTransports(sc *scenarios.Scenario, transports []string, runs []*Summary) *TransportComparison {
	c := &TransportComparison{Workload: NewWorkload(sc), Transports: transports, Runs: runs}
	for i, s := range runs {
		c.Figures = append(c.Figures, variantFigures(transports[i], s, sc))
		c.Totals = append(c.Totals, totalsOf(transports[i], s))
	}
	netty := ""
	if len(runs) > 0 {
		netty = runs[0].Netty
	}
	c.Causes = transportCauses(c.Totals, netty)
	c.Verdict = variantVerdict(c.Figures, "transport", true)
	if l := fewestSyscalls(c.Totals); l != "" {
		c.Verdict += "; " + l
	}
	return c
}

// fewestSyscalls names the transport whose requests cost the fewest
// system calls, with every transport's figure.
func fewestSyscalls(ts []LoopTotals) string {
	if len(ts) < 2 {
		return ""
	}
	best := ts[0]
	var each []string
	for _, t := range ts {
		if SyscallsPerRequest(t) < SyscallsPerRequest(best) {
			best = t
		}
		each = append(each, fmt.Sprintf("%s %.2f", t.Name, SyscallsPerRequest(t)))
	}
	return fmt.Sprintf("%s made the fewest system calls a request (%s)", best.Name, strings.Join(each, ", "))
}

// Judgement returns the comparison's conclusion; transports have no
// compare clauses.
func (c *TransportComparison) Judgement() Judgement {
	return Judgement{Verdict: c.Verdict, Causes: c.Causes}
}

// CompareTransports runs sc with each transport in turn.
func CompareTransports(sc *scenarios.Scenario, transports []string, o CompareOptions) (*TransportComparison, error) {
	runs, err := compareAll(sc, transportAxis, transports, o, TransportsFor(transports))
	if err != nil {
		return nil, err
	}
	return JudgeTransports(sc, transports, runs), nil
}

// TransportsFor returns how a comparison of transports derives each run
// from the scenario: its selector set to the transport and its
// expectations dropped (they were written for one transport). With
// io_uring in the list every run is Netty 4.2's, since only 4.2 has it;
// without, each keeps the scenario's design, and under 4.1 and 4.1.43 each
// runs in Netty's default mode for the transport: NIO level-triggered (the
// JDK's selector has no other), epoll edge-triggered
// (EpollChannelOption.EPOLL_MODE defaults to EDGE_TRIGGERED), so nio
// against epoll is level against edge. 4.2's epoll is level-triggered
// only.
func TransportsFor(transports []string) func(*scenarios.Scenario, string) (*scenarios.Scenario, error) {
	netty := scenarios.Netty("")
	for _, t := range transports {
		if t == string(scenarios.SelectorIOUring) {
			netty = scenarios.Netty42
		}
	}
	return func(sc *scenarios.Scenario, t string) (*scenarios.Scenario, error) {
		n := netty
		if n == "" {
			n = sc.Netty
		}
		c, err := sc.ForNetty(n)
		if err != nil {
			return nil, err
		}
		if err := c.Set("loop.selector", t); err != nil {
			return nil, err
		}
		if n == scenarios.Netty42 {
			return c, nil
		}
		trigger := scenarios.TriggerLevel
		if t == string(scenarios.SelectorEpoll) {
			trigger = scenarios.TriggerEdge
		}
		if err := c.Set("loop.trigger", string(trigger)); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// Text is one row per transport: the load figures, then how the loops
// waited and read. A wait is one epoll_wait on nio and epoll, one
// io_uring_enter on the ring; a readiness loop also makes a read and a
// write per ready channel, and a read that finds nothing (EAGAIN) when it
// reads a drained socket, a completion loop makes no other I/O call.
func (c *TransportComparison) Text() string {
	var b strings.Builder
	model := ""
	if len(c.Runs) > 0 {
		model = c.Runs[0].Model
	}
	netty := "4.2"
	if len(c.Runs) > 0 && c.Runs[0].Netty != "" {
		netty = c.Runs[0].Netty
	}
	fmt.Fprintf(&b, "compare %s: model %s, netty %s, %d %s connections per transport, transports run one after another\n\n",
		c.Workload.Scenario, model, netty, c.Workload.Connections, c.Workload.Protocol)
	tw := newTable(&b)
	fmt.Fprintln(tw, "transport\treq/s\tp50 µs\tp99 µs\terrors\titerations\twaits\tpolls\twaits/req\treads/req\tempty/req\tsyscalls/req\twakeups\t")
	for i, s := range c.Runs {
		var it, waits, polls, wakeups int64
		for _, l := range s.Loops {
			if l.Group == scenarios.GroupClient {
				continue // the engine's clients stay on epoll whatever is compared
			}
			it += l.Iterations
			waits += l.Selects
			polls += l.SelectNows
			wakeups += l.WakeupsWritten
		}
		perReq := 0.0
		if n := s.Clients.Requests; n > 0 {
			perReq = float64(waits+polls) / float64(n)
		}
		reads, empty := c.readCells(i)
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%.3f\t%s\t%s\t%.2f\t%d\t\n", c.Transports[i],
			s.Clients.ThroughputRPS, s.Clients.LatencyUS.P50, s.Clients.LatencyUS.P99, s.Clients.Errors,
			it, waits, polls, perReq, reads, empty, c.syscalls(i), wakeups)
	}
	tw.Flush()
	// One paragraph: Text wraps it to the headless width.
	b.WriteString("\nwaits: epoll_wait (nio, epoll) or the ring's waits (io_uring); reads/req: read(2) calls a request, " +
		"empty/req: those that found nothing (EAGAIN), which a level-triggered loop makes only when a read " +
		"filled its buffer exactly and an edge-triggered one at the end of every readiness; syscalls/req: " +
		"every system call the engine counted, a readiness loop's epoll_wait, read, write, epoll_ctl and " +
		"eventfd writes, the ring's io_uring_enter and eventfd writes (its reads and writes are completions).\n")
	writeConclusion(&b, c.Verdict, c.Causes)
	return wrapText(b.String(), TextWidth)
}

// readCells are a transport's reads and empty reads a request, "-" on a
// ring (its reads are completions) or when not counted.
func (c *TransportComparison) readCells(i int) (reads, empty string) {
	if i >= len(c.Totals) || c.Totals[i].ReadsPerRequest() < 0 {
		return "-", "-"
	}
	t := c.Totals[i]
	return fmt.Sprintf("%.2f", t.ReadsPerRequest()), fmt.Sprintf("%.3f", t.EmptyReadsPerRequest())
}

func (c *TransportComparison) syscalls(i int) float64 {
	if i < len(c.Totals) {
		return SyscallsPerRequest(c.Totals[i])
	}
	return 0
}

// Failed counts the runs' failed expectations (none: they are dropped).
func (c *TransportComparison) Failed() int {
	n := 0
	for _, s := range c.Runs {
		n += s.Failed()
	}
	return n
}
