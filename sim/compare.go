package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	runs, err := compareAll(sc, modelAxis, models, o, ForModel)
	if err != nil {
		return nil, err
	}
	cmp := &Comparison{Workload: NewWorkload(sc), Models: runs}
	cmp.judge(sc)
	return cmp, nil
}

// axis is what a comparison varies: its name, for messages, and whether
// its runs count the design figures from their events (loop designs and
// transports differ in them; models do not).
type axis struct {
	name        string
	countDesign bool
}

var (
	modelAxis     = axis{name: "model"}
	nettyAxis     = axis{name: "netty", countDesign: true}
	transportAxis = axis{name: "transport", countDesign: true}
)

// compareAll runs sc under each variant in turn (a model, a loop design,
// a transport), derived from sc by derive, with one Chrome export of all
// of them when asked for.
func compareAll(sc *scenarios.Scenario, what axis, variants []string, o CompareOptions,
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
		s, err := compareOne(sc, what, v, i+1, x, o.Each, derive)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what.name, v, err)
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
	c.MachineBusy = false
	c.Verdict = c.verdict()
	c.check(sc.Compare)
}

// CompareFlavours runs sc under each loop design in turn, as Compare does
// for models: the same model, workload and settings, only netty differs.
func CompareFlavours(sc *scenarios.Scenario, flavours []string, o CompareOptions) (*Comparison, error) {
	runs, err := compareAll(sc, nettyAxis, flavours, o, ForNetty)
	if err != nil {
		return nil, err
	}
	return JudgeFlavours(sc, runs), nil
}

// ForNetty is sc under the loop design f, validated like --set.
func ForNetty(sc *scenarios.Scenario, f string) (*scenarios.Scenario, error) {
	return sc.ForNetty(scenarios.Netty(f))
}

// JudgeFlavours builds the comparison of the runs of sc under each loop
// design: the clients' figures and how far apart they are, and a cause
// line for every counter the designs differ in.
func JudgeFlavours(sc *scenarios.Scenario, runs []*Summary) *Comparison {
	c := &Comparison{Workload: NewWorkload(sc), Flavours: runs}
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
func variantFigures(name string, s *Summary, sc *scenarios.Scenario) Figures {
	f := figuresOf(s, sc)
	f.Model, f.Shape = name, Shape{}
	return f
}

func compareOne(sc *scenarios.Scenario, what axis, variant string, pid int, x *chrome.Exporter, each func(string, *Run),
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
	if what.countDesign {
		r.CountDesign()
	}
	if each != nil {
		each(variant, r)
	}
	return r.Wait()
}

// Text renders the comparison as one table, a row per model (then each
// model's verdict, the verdict and the compare clauses) or per flavour.
func (c *Comparison) Text() string {
	return wrapText(c.text(), TextWidth)
}

func (c *Comparison) text() string {
	if c.Flavours != nil {
		return c.flavourText()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "compare %s: %d %s connections per model, models run one after another\n\n",
		c.Workload.Scenario, c.Workload.Connections, c.Workload.Protocol)
	tw := newTable(&b)
	fmt.Fprintln(tw, "model\tloops\tstarted\treq/s\tp50 µs\tp99 µs\tp999 µs\tworst 250ms p99\taccept p99\terrors\tselect %\tio %\ttask %\tbusiest\tcpu/req\tcapacity\tcpu wait\tother cpu\texpect\t")
	for i, s := range c.Models {
		started := 0
		for _, l := range s.Loops {
			if l.TID != 0 {
				started++
			}
		}
		f := c.Figures[i]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%s %.0f%%\t%s\t%s\t%s\t%s\t%s\t\n", s.Model, len(s.Loops), started,
			f.RPS, f.P50US, f.P99US, f.P999US, worstText(f), usText(f.AcceptP99US), f.Errors,
			f.Split.Select, f.Split.IO, f.Split.Tasks, f.BusiestLoop, f.BusyMax, cpuPerReqText(f), capacityText(f), waitText(f), pctText(f.OtherCPU), c.expectText(s))
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

// Tally counts the compare clauses that name model, and those of them
// that hold: a model's column shows them, since a model's own run has no
// expectations (ForModel drops them).
func (c *Comparison) Tally(model string) (ok, n int) {
	for _, e := range c.Checks {
		if NamesModel(e.Expr, model) {
			n++
			if e.OK {
				ok++
			}
		}
	}
	return ok, n
}

// NamesModel says whether a compare clause reads one of model's figures.
func NamesModel(clause, model string) bool {
	for _, tok := range strings.Fields(clause) {
		if strings.HasPrefix(tok, model+".") {
			return true
		}
	}
	return false
}

// expectText is a model's expect cell: its own expectations and the
// compare clauses that name it, held of asked; "-" with neither.
func (c *Comparison) expectText(s *Summary) string {
	ok, n := c.Tally(s.Model)
	ok, n = ok+len(s.Expect)-s.Failed(), n+len(s.Expect)
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", ok, n)
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
	tw := newTable(&b)
	fmt.Fprintln(tw, "netty\treq/s\tp99 µs\terrors\twakeups\tselects\tpolls\titerations\tpremature\trebuilds\ttasks\tcut\tidle timeout\twake/ext task\tmax batch\t")
	for i, s := range c.Flavours {
		t := totalsOf(s.Netty, s) // the server's loops, as the causes read them
		timeout, wake, batch := "-", "-", "-"
		if i < len(c.Totals) && c.Totals[i].Design != nil {
			d := c.Totals[i].Design
			timeout, batch = idleTimeoutCell(d), strconv.FormatInt(d.MaxBatch, 10)
			if w, ok := c.Totals[i].WakeupsPerSubmit(); ok {
				wake = strconv.FormatFloat(w, 'f', 2, 64)
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

// Failed reports how many expectations and compare clauses failed across
// the runs.
func (c *Comparison) Failed() int {
	n := c.failedChecks()
	for _, s := range append(c.Models, c.Flavours...) {
		n += s.Failed()
	}
	return n
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

// worstText is a model's worst-window cell: the p99 and when its window
// began; "-" without one.
func worstText(f Figures) string {
	if f.WorstWindowP99US <= 0 {
		return "-"
	}
	return fmt.Sprintf("%s @%s", usText(f.WorstWindowP99US), time.Duration(f.WorstWindowAtNS).Round(10*time.Millisecond))
}

// cpuPerReqText is the CPU per request of the loop that bounds the
// model's capacity, "-" unmeasured.
func cpuPerReqText(f Figures) string {
	if f.CPUPerReqUS <= 0 {
		return "-"
	}
	return usText(f.CPUPerReqUS)
}

// capacityText is the rate the model could serve with a core per loop.
func capacityText(f Figures) string {
	if f.CapacityRPS <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f/s", f.CapacityRPS)
}

// waitText is a model's cpu wait cell: the largest share of the run a
// serving loop waited for a CPU.
func waitText(f Figures) string { return pctText(f.CPUWaitMax) }

// pctText is a share for a cell, "-" when unknown (negative).
func pctText(p float64) string {
	if p < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", p)
}

// idleTimeoutCell is the flavour table's idle timeout: the longest timeout
// a blocking select asked for, or "none" when the idle ones asked none.
func idleTimeoutCell(d *DesignCount) string {
	if d.UntimedSelects > 0 {
		return "none"
	}
	return usText(float64(d.LongestTimeoutNS) / 1000)
}
