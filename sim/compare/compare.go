// Package compare runs one workload under several variants, one after
// another (the Reactor models, Netty's loop designs, the transports), and
// judges the runs: the figures each summary gives (figures.go), the rule
// that says which differences stand out of a run's noise (judge.go), the
// sentences that say so (verdict.go, causes.go) and the tables (text.go).
// It also finds where two recordings of the runs differ most, for a
// screen that replays them side by side (differ.go). It reads sim's
// summaries; sim knows nothing of it.
package compare

import (
	"slices"
	"strings"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

// Models lists the three Reactor models in the order compare runs them.
var Models = []string{string(scenarios.ModelSingle), string(scenarios.ModelMulti), string(scenarios.ModelMasterSlave)}

// Flavours lists the Netty loop designs in the order compare --flavours
// runs them (docs/netty-versions.md).
var Flavours = []string{string(scenarios.Netty4143), string(scenarios.Netty41), string(scenarios.Netty42)}

// Comparison is the result of running one workload under several models,
// or under several loop designs (Flavours), one after another so that no
// run takes CPU from another.
type Comparison struct {
	Workload Workload       `json:"workload"`
	Models   []*sim.Summary `json:"models,omitempty"`
	Flavours []*sim.Summary `json:"flavours,omitempty"`
	// Figures are each model's figures side by side, in Models' order.
	Figures []Figures `json:"figures,omitempty"`
	// Verdict is one line computed from the figures.
	Verdict string `json:"verdict,omitempty"`
	// Checks are the workload's compare clauses, checked.
	Checks []scenarios.Result `json:"checks,omitempty"`
	// Totals and Causes are a flavour comparison's: the counters the
	// designs differ in, and a line per difference naming the Netty
	// change behind it.
	Totals []LoopTotals `json:"totals,omitempty"`
	Causes []string     `json:"causes,omitempty"`
	// MachineBusy says the verdict found other work on the machine took
	// too much of its CPUs to rank what the clients saw.
	MachineBusy bool `json:"machine_busy,omitempty"`
}

// Judgement is what a comparison concluded, for a screen: the verdict,
// the lines that name each difference's cause, and the compare clauses.
type Judgement struct {
	Verdict string
	Causes  []string
	Checks  []scenarios.Result
	// MachineBusy: what the clients saw was not ranked, the machine being
	// busy; a screen offers the built-in recording made on a quiet one.
	MachineBusy bool
}

// Judgement returns the comparison's conclusion.
func (c *Comparison) Judgement() Judgement {
	return Judgement{Verdict: c.Verdict, Causes: c.Causes, Checks: c.Checks, MachineBusy: c.MachineBusy}
}

// Workload describes what every model was given.
type Workload struct {
	Scenario    string `json:"scenario"`
	DurationNS  int64  `json:"duration_ns"`
	Protocol    string `json:"protocol"`
	Connections int    `json:"connections"`
	Bosses      int    `json:"bosses"`
	Workers     int    `json:"workers"`
}

// newWorkload describes sc's workload.
func newWorkload(sc *scenarios.Scenario) Workload {
	w := Workload{Scenario: sc.Name, DurationNS: int64(sc.Duration), Protocol: string(sc.Server.Protocol),
		Bosses: sc.Bosses, Workers: sc.Workers}
	for _, c := range sc.Clients {
		w.Connections += c.Connections
	}
	return w
}

// Judge builds the comparison of summaries, the finished runs of sc under
// each model in turn: the figures, the verdict and the compare clauses.
// Run judges its runs with it; a screen that ran the models itself calls
// it.
func Judge(sc *scenarios.Scenario, summaries []*sim.Summary) *Comparison {
	c := &Comparison{Workload: newWorkload(sc), Models: summaries}
	for _, s := range summaries {
		c.Figures = append(c.Figures, figuresOf(s, sc))
	}
	c.Verdict = c.verdict()
	c.check(sc.Compare)
	return c
}

// JudgeFlavours builds the comparison of the runs of sc under each loop
// design: the clients' figures and how far apart they are, and a cause
// line for every counter the designs differ in.
func JudgeFlavours(sc *scenarios.Scenario, runs []*sim.Summary) *Comparison {
	c := &Comparison{Workload: newWorkload(sc), Flavours: runs}
	for _, s := range runs {
		c.Figures = append(c.Figures, variantFigures(s.Netty, s, sc))
		c.Totals = append(c.Totals, totalsOf(s.Netty, s))
	}
	c.Causes = flavourCauses(c.Totals)
	c.Verdict = variantVerdict(c.Figures, "design", len(c.Causes) > 0)
	return c
}

// variantFigures are a run's figures under the name of its variant. The
// variants share one topology by construction, so their shape is left
// out: it is not what tells them apart.
func variantFigures(name string, s *sim.Summary, sc *scenarios.Scenario) Figures {
	f := figuresOf(s, sc)
	f.Model, f.Shape = name, Shape{}
	return f
}

// check evaluates the workload's compare clauses against the figures.
func (c *Comparison) check(clauses []*scenarios.CompareClause) {
	get := func(model, name string) (float64, bool) {
		read, ok := clauseFigures[name]
		for i := range c.Figures {
			if ok && c.Figures[i].Model == model {
				return read(&c.Figures[i]), true
			}
		}
		return 0, false
	}
	for _, cl := range clauses {
		c.Checks = append(c.Checks, cl.Eval(get))
	}
}

// Tally counts the compare clauses that name model, and those of them
// that hold: a model's column shows them, since a model's own run has no
// expectations (ForModel drops them).
func (j Judgement) Tally(model string) (ok, n int) {
	for _, e := range j.Checks {
		if namesModel(e.Expr, model) {
			n++
			if e.OK {
				ok++
			}
		}
	}
	return ok, n
}

// namesModel says whether a compare clause reads one of model's figures.
func namesModel(clause, model string) bool {
	return slices.ContainsFunc(strings.Fields(clause), func(tok string) bool { return strings.HasPrefix(tok, model+".") })
}

func (c *Comparison) failedChecks() int {
	n := 0
	for _, e := range c.Checks {
		if !e.OK {
			n++
		}
	}
	return n
}

// Failed reports how many expectations and compare clauses failed across
// the runs.
func (c *Comparison) Failed() int {
	return c.failedChecks() + failedRuns(c.Models) + failedRuns(c.Flavours)
}

// failedRuns counts the runs' failed expectations.
func failedRuns(runs []*sim.Summary) int {
	n := 0
	for _, s := range runs {
		n += s.Failed()
	}
	return n
}

// first is a comparison's first run, whose model (and, comparing
// variants, whose design) every run shares; an empty summary without runs.
func first(runs []*sim.Summary) *sim.Summary {
	if len(runs) == 0 {
		return &sim.Summary{}
	}
	return runs[0]
}
