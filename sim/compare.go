package sim

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tracefile/chrome"
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
	Workload Workload   `json:"workload"`
	Models   []*Summary `json:"models,omitempty"`
	Flavours []*Summary `json:"flavours,omitempty"`
	// Figures are each model's figures side by side, in Models' order.
	Figures []Figures `json:"figures,omitempty"`
	// Verdict is one line computed from the figures.
	Verdict string `json:"verdict,omitempty"`
	// Checks are the workload's compare clauses, checked.
	Checks []scenarios.Result `json:"checks,omitempty"`
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

// ForModel returns a copy of sc set to model, validated like --set. The
// copy has no expectations: they name loops (boss-0, reactor-0) that
// another model does not build.
func ForModel(sc *scenarios.Scenario, model string) (*scenarios.Scenario, error) {
	return sc.ForModel(scenarios.Model(model))
}

// NewWorkload describes sc's workload.
func NewWorkload(sc *scenarios.Scenario) Workload {
	w := Workload{Scenario: sc.Name, DurationNS: int64(sc.Duration), Protocol: string(sc.Server.Protocol),
		Bosses: sc.Bosses, Workers: sc.Workers}
	for _, c := range sc.Clients {
		w.Connections += c.Connections
	}
	return w
}

// CompareOptions adjusts a comparison.
type CompareOptions struct {
	// ChromePath, if set, records one Chrome/Perfetto trace with one
	// process (pid) per model.
	ChromePath string
	// Each, if set, is called with every run before it starts (the TUI
	// watches it live).
	Each func(model string, r *Run)
}

// Compare runs sc under each model in turn, so the runs do not compete for
// the CPU and their numbers are comparable.
func Compare(sc *scenarios.Scenario, models []string, o CompareOptions) (*Comparison, error) {
	runs, err := compareAll(sc, "model", models, o, ForModel)
	if err != nil {
		return nil, err
	}
	cmp := &Comparison{Workload: NewWorkload(sc), Models: runs}
	cmp.judge(sc)
	return cmp, nil
}

// compareAll runs sc under each variant in turn (a model, a loop design,
// a transport), derived from sc by derive, with one Chrome export of all
// of them when asked for.
func compareAll(sc *scenarios.Scenario, what string, variants []string, o CompareOptions,
	derive func(*scenarios.Scenario, string) (*scenarios.Scenario, error)) (runs []*Summary, err error) {
	var x *chrome.Exporter
	if o.ChromePath != "" {
		f, err := create(o.ChromePath)
		if err != nil {
			return nil, err
		}
		x = chrome.New(f, chrome.Options{})
		defer func() { err = errors.Join(err, x.Close(), f.Close()) }()
	}
	for i, v := range variants {
		s, err := compareOne(sc, v, i+1, x, o.Each, derive)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, v, err)
		}
		runs = append(runs, s)
	}
	return runs, nil
}

// Judge builds the comparison of summaries, the finished runs of sc under
// each model in turn, as Compare does: the figures, the verdict and the
// compare clauses. A screen that ran the models itself calls it.
func Judge(sc *scenarios.Scenario, summaries []*Summary) *Comparison {
	c := &Comparison{Workload: NewWorkload(sc), Models: summaries}
	c.judge(sc)
	return c
}

func (c *Comparison) judge(sc *scenarios.Scenario) {
	c.Figures = c.Figures[:0]
	for _, s := range c.Models {
		c.Figures = append(c.Figures, figuresOf(s, sc))
	}
	c.Verdict = c.verdict()
	c.check(sc.Compare)
}

// CompareFlavours runs sc under each loop design in turn, as Compare does
// for models: the same model, workload and settings, only netty differs.
func CompareFlavours(sc *scenarios.Scenario, flavours []string, o CompareOptions) (*Comparison, error) {
	forNetty := func(sc *scenarios.Scenario, f string) (*scenarios.Scenario, error) {
		return sc.ForNetty(scenarios.Netty(f))
	}
	runs, err := compareAll(sc, "netty", flavours, o, forNetty)
	if err != nil {
		return nil, err
	}
	return &Comparison{Workload: NewWorkload(sc), Flavours: runs}, nil
}

func compareOne(sc *scenarios.Scenario, variant string, pid int, x *chrome.Exporter, each func(string, *Run),
	derive func(*scenarios.Scenario, string) (*scenarios.Scenario, error)) (*Summary, error) {
	msc, err := derive(sc, variant)
	if err != nil {
		return nil, err
	}
	r, err := New(msc, Options{})
	if err != nil {
		return nil, err
	}
	if x != nil {
		p, err := x.AddProcess(pid, variant, r.Collector())
		if err != nil {
			r.teardown()
			return nil, err
		}
		r.Collector().AddSink(p)
	}
	if each != nil {
		each(variant, r)
	}
	return r.Wait()
}

// Text renders the comparison as one table, a row per model (then each
// model's verdict, the verdict and the compare clauses) or per flavour.
func (c *Comparison) Text() string {
	if c.Flavours != nil {
		return c.flavourText()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "compare %s: %d %s connections per model, models run one after another\n\n",
		c.Workload.Scenario, c.Workload.Connections, c.Workload.Protocol)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tloops\tstarted\treq/s\tp50 µs\tp99 µs\tp999 µs\taccept p99\terrors\tselect %\tio %\ttask %\tbusiest\texpect\t")
	for i, s := range c.Models {
		started := 0
		for _, l := range s.Loops {
			if l.TID != 0 {
				started++
			}
		}
		f := c.Figures[i]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%d\t%.1f\t%.1f\t%.1f\t%s %.0f%%\t%d/%d\t\n", s.Model, len(s.Loops), started,
			f.RPS, f.P50US, f.P99US, f.P999US, usText(f.AcceptP99US), f.Errors,
			f.Split.Select, f.Split.IO, f.Split.Tasks, f.BusiestLoop, f.BusyMax, len(s.Expect)-s.Failed(), len(s.Expect))
	}
	tw.Flush()
	b.WriteString("\n")
	for _, f := range c.Figures {
		fmt.Fprintf(&b, "%s: %s\n", f.Model, f.Verdict)
	}
	if c.Verdict != "" {
		fmt.Fprintf(&b, "\nverdict: %s\n", c.Verdict)
	}
	if len(c.Checks) > 0 {
		fmt.Fprintf(&b, "\ncompare (%d of %d hold):\n", len(c.Checks)-c.failedChecks(), len(c.Checks))
		for _, e := range c.Checks {
			mark := "ok  "
			if !e.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(&b, "  %s %s%s\n", mark, e.Expr, observed(e))
		}
	}
	return b.String()
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

// flavourText is the table of a flavour comparison: besides the load
// figures, the counters the designs differ in (docs/netty-versions.md):
// eventfd writes, blocking selects and non-blocking polls, iterations,
// premature returns, task batches cut by their deadline.
func (c *Comparison) flavourText() string {
	var b strings.Builder
	model := ""
	if len(c.Flavours) > 0 {
		model = c.Flavours[0].Model
	}
	fmt.Fprintf(&b, "compare %s: model %s, %d %s connections per flavour, flavours run one after another\n\n",
		c.Workload.Scenario, model, c.Workload.Connections, c.Workload.Protocol)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "netty\treq/s\tp99 µs\terrors\twakeups\tselects\tpolls\titerations\tpremature\trebuilds\ttasks\tcut\t")
	for _, s := range c.Flavours {
		var t reactor.Stats
		for _, l := range s.Loops {
			t.WakeupsWritten += l.WakeupsWritten
			t.Selects += l.Selects
			t.SelectNows += l.SelectNows
			t.Iterations += l.Iterations
			t.Premature += l.Premature
			t.Rebuilds += l.Rebuilds
			t.TasksRun += l.TasksRun
			t.DeadlineHits += l.DeadlineHits
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.Netty,
			s.Clients.ThroughputRPS, s.Clients.LatencyUS.P99, s.Clients.Errors, t.WakeupsWritten, t.Selects,
			t.SelectNows, t.Iterations, t.Premature, t.Rebuilds, t.TasksRun, t.DeadlineHits)
	}
	tw.Flush()
	return b.String()
}

// Failed reports how many expectations and compare clauses failed across
// the runs.
func (c *Comparison) Failed() int {
	n := c.failedChecks()
	for _, s := range append(c.Models, c.Flavours...) {
		n += s.Failed()
	}
	return n
}
