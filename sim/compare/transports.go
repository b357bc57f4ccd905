package compare

import (
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

// TransportComparison is one workload served on each transport in turn
// (compare --transports): readiness (nio, epoll) against completion
// (io_uring), the same model, workload and loop design. With io_uring
// among them the design is Netty 4.2's, the only one with that
// transport; nio and epoll alone run under the scenario's design, each in
// Netty's default mode for it (TransportsFor).
type TransportComparison struct {
	Workload   Workload       `json:"workload"`
	Transports []string       `json:"transports"`
	Runs       []*sim.Summary `json:"runs"`
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
func JudgeTransports(sc *scenarios.Scenario, transports []string, runs []*sim.Summary) *TransportComparison {
	c := &TransportComparison{Workload: newWorkload(sc), Transports: transports, Runs: runs}
	for i, s := range runs {
		c.Figures = append(c.Figures, variantFigures(transports[i], s, sc))
		c.Totals = append(c.Totals, totalsOf(transports[i], s))
	}
	c.Causes = transportCauses(c.Totals, first(runs).Netty)
	c.Verdict = variantVerdict(c.Figures, "transport", true)
	if l := fewestSyscalls(c.Totals); l != "" {
		c.Verdict += "; " + l
	}
	return c
}

// Judgement returns the comparison's conclusion; transports have no
// compare clauses.
func (c *TransportComparison) Judgement() Judgement {
	return Judgement{Verdict: c.Verdict, Causes: c.Causes}
}

// Failed counts the runs' failed expectations (none: they are dropped).
func (c *TransportComparison) Failed() int { return failedRuns(c.Runs) }
