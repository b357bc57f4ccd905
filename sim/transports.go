package sim

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/reactorviz/reactorviz/scenarios"
)

// TransportComparison is one workload served by Netty 4.2's loop on each
// transport in turn (compare --transports): readiness (nio, epoll) against
// completion (io_uring), the same model, workload and settings.
type TransportComparison struct {
	Workload   Workload   `json:"workload"`
	Transports []string   `json:"transports"`
	Runs       []*Summary `json:"runs"`
}

// CompareTransports runs sc under netty 4.2 with each transport in turn.
func CompareTransports(sc *scenarios.Scenario, transports []string, o CompareOptions) (*TransportComparison, error) {
	runs, err := compareAll(sc, "transport", transports, o, forTransport)
	if err != nil {
		return nil, err
	}
	return &TransportComparison{Workload: NewWorkload(sc), Transports: transports, Runs: runs}, nil
}

// forTransport is sc under Netty 4.2 with its selector set to t and its
// expectations dropped (they were written for one transport).
func forTransport(sc *scenarios.Scenario, t string) (*scenarios.Scenario, error) {
	c, err := sc.ForNetty(scenarios.Netty42)
	if err != nil {
		return nil, err
	}
	if err := c.Set("loop.selector", t); err != nil {
		return nil, err
	}
	return c, nil
}

// Text is one row per transport: the load figures, then how the loops
// waited. A wait is one epoll_wait on nio and epoll, one io_uring_enter on
// the ring; a readiness loop also makes a read and a write per ready
// channel, a completion loop makes no other I/O call.
func (c *TransportComparison) Text() string {
	var b strings.Builder
	model := ""
	if len(c.Runs) > 0 {
		model = c.Runs[0].Model
	}
	fmt.Fprintf(&b, "compare %s: model %s, netty 4.2, %d %s connections per transport, transports run one after another\n\n",
		c.Workload.Scenario, model, c.Workload.Connections, c.Workload.Protocol)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transport\treq/s\tp50 µs\tp99 µs\terrors\titerations\twaits\tpolls\twaits/req\twakeups\t")
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
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%.3f\t%d\t\n", c.Transports[i],
			s.Clients.ThroughputRPS, s.Clients.LatencyUS.P50, s.Clients.LatencyUS.P99, s.Clients.Errors,
			it, waits, polls, perReq, wakeups)
	}
	tw.Flush()
	b.WriteString("\nwaits: epoll_wait (nio, epoll) or io_uring_enter (io_uring); a readiness loop adds a read and a\nwrite system call per ready channel, the ring none.\n")
	return b.String()
}

// Failed counts the runs' failed expectations (none: they are dropped).
func (c *TransportComparison) Failed() int {
	n := 0
	for _, s := range c.Runs {
		n += s.Failed()
	}
	return n
}
