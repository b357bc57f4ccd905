package sim

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
)

// summaryOf builds a finished model's summary with one I/O loop per
// entry of busy (its share of the run in I/O) and client p99s.
func summaryOf(model string, rps, p99 float64, busy []float64, loopP99 []float64) *Summary {
	s := &Summary{Model: model, Clients: ClientSummary{ThroughputRPS: rps, LatencyUS: LatencySummary{P99: p99}}}
	group := "worker"
	if model == "single" {
		group = "reactor"
	} else {
		s.Groups = append(s.Groups, GroupSummary{Name: "boss", Size: 1})
		s.Loops = append(s.Loops, LoopSummary{Name: "boss-0", Group: "boss", Stats: reactor.Stats{Accepted: 8}, Time: &LoopTime{}})
	}
	s.Groups = append(s.Groups, GroupSummary{Name: group, Size: len(busy)})
	for i, b := range busy {
		l := LoopSummary{Name: group + "-" + string(rune('0'+i)), Group: group,
			Time: &LoopTime{Run: TimeShares{IO: b, Select: 100 - b}}}
		if model == "single" {
			l.Accepted = 8
		}
		l.Time.Clients = &LoopClients{Requests: 10, LatencyUS: LatencySummary{P99: loopP99[i]}}
		s.Loops = append(s.Loops, l)
	}
	return s
}

// The figures come from the summaries, the verdict names the model that
// served more and why, and the compare clauses are checked.
func TestVerdictFromFigures(t *testing.T) {
	sc, err := scenarios.Parse("w.yaml", []byte(`name: w
server: {cost: 100us}
clients:
  - {connections: 10, rate: 300/s, load: open}
compare:
  - multi.rps >= 1.3 * single.rps
  - single.p99_us >= 5 * multi.p99_us
  - multi.accept_loops == 1
`))
	if err != nil {
		t.Fatal(err)
	}
	c := Judge(sc, []*Summary{
		summaryOf("single", 1500, 900_000, []float64{99}, []float64{900_000}),
		summaryOf("multi", 2950, 4_000, []float64{60, 55}, []float64{4_000, 3_000}),
	})
	single, multi := c.Figures[0], c.Figures[1]
	if single.BusiestLoop != "reactor-0" || single.BusyMax != 99 || multi.ServedLoops != 2 || multi.Split.IO != 57.5 {
		t.Errorf("figures: %+v / %+v", single, multi)
	}
	if single.OfferedRPS != 3000 || !strings.Contains(single.Verdict, "fell behind: served 1500 of 3000") ||
		!strings.Contains(multi.Verdict, "kept up with 3000") {
		t.Errorf("model verdicts: %q / %q", single.Verdict, multi.Verdict)
	}
	if !strings.HasPrefix(c.Verdict, "multi served 2.0× single's requests") || !strings.Contains(c.Verdict, "reactor-0 was busy 99%") {
		t.Errorf("verdict: %q", c.Verdict)
	}
	if c.Failed() != 0 || len(c.Checks) != 3 {
		t.Errorf("checks: %+v", c.Checks)
	}
	if !strings.Contains(c.Text(), "verdict: multi served") {
		t.Errorf("text has no verdict:\n%s", c.Text())
	}
}

// A workload that loads no loop gets a verdict saying so, even when one
// model's p99 is a few times another's by the scheduler's noise.
func TestVerdictAlike(t *testing.T) {
	sc, err := scenarios.Parse("w.yaml", []byte("name: w\nclients:\n  - {connections: 8, rate: 500/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := Judge(sc, []*Summary{
		summaryOf("single", 3996, 500, []float64{6}, []float64{500}),
		summaryOf("multi", 3990, 2_000, []float64{3, 3}, []float64{2_000, 1_500}),
	})
	if !strings.HasPrefix(c.Verdict, "the models perform alike") || !strings.Contains(c.Verdict, "single's reactor-0, 6%") {
		t.Errorf("verdict: %q", c.Verdict)
	}
}
