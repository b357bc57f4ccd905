package compare

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

// summaryOf builds a finished model's summary with one I/O loop per
// entry of busy (its share of the run in I/O) and client p99s.
func summaryOf(model string, rps, p99 float64, busy []float64, loopP99 []float64) *sim.Summary {
	s := &sim.Summary{Model: model, Clients: sim.ClientSummary{ThroughputRPS: rps, LatencyUS: sim.LatencySummary{P99: p99}}}
	group := "worker"
	if model == "single" {
		group = "reactor"
	} else {
		s.Groups = append(s.Groups, sim.GroupSummary{Name: "boss", Size: 1})
		s.Loops = append(s.Loops, sim.LoopSummary{Name: "boss-0", Group: "boss", Stats: reactor.Stats{Accepted: 8}, Time: &sim.LoopTime{}})
	}
	s.Groups = append(s.Groups, sim.GroupSummary{Name: group, Size: len(busy)})
	for i, b := range busy {
		l := sim.LoopSummary{Name: group + "-" + string(rune('0'+i)), Group: group,
			Time: &sim.LoopTime{Run: sim.TimeShares{IO: b, Select: 100 - b}}}
		l.Registered = 4
		if model == "single" {
			l.Accepted = 8
		}
		l.Time.Clients = &sim.LoopClients{Requests: 10, LatencyUS: sim.LatencySummary{P99: loopP99[i]}}
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
	c := Judge(sc, []*sim.Summary{
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
	if !strings.HasPrefix(c.Verdict, "multi served 2.0× single's requests") || !strings.Contains(c.Verdict, "single's one loop reactor-0 spent 99% of its time in I/O and tasks, so requests queued behind each other; multi's 2 workers shared the channels") {
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
	c := Judge(sc, []*sim.Summary{
		summaryOf("single", 3996, 500, []float64{6}, []float64{500}),
		summaryOf("multi", 3990, 2_000, []float64{3, 3}, []float64{2_000, 1_500}),
	})
	if !strings.HasPrefix(c.Verdict, "the models perform about the same") || !strings.Contains(c.Verdict, "single's reactor-0, 6%") {
		t.Errorf("verdict: %q", c.Verdict)
	}
}

// withWindows gives s n windows whose rps and p99 step evenly over
// [lo, hi]; with zigzag, every other window swaps ends, so two runs'
// windows cross.
func withWindows(s *sim.Summary, n int, rpsLo, rpsHi, p99Lo, p99Hi float64, zigzag ...bool) *sim.Summary {
	s.Measured.Windows = []sim.Window{{RPS: 1, P99US: 1}} // the first, clients connecting: left out
	for i := range n {
		f := float64(i) / float64(n-1)
		if len(zigzag) > 0 && i%2 == 1 {
			f = 1 - f
		}
		s.Measured.Windows = append(s.Measured.Windows, sim.Window{RPS: rpsLo + f*(rpsHi-rpsLo), P99US: p99Lo + f*(p99Hi-p99Lo)})
	}
	return s
}

func judgeFigures(t *testing.T, sums ...*sim.Summary) *Comparison {
	t.Helper()
	sc, err := scenarios.Parse("w.yaml", []byte("name: w\nclients:\n  - {connections: 8, load: open, rate: 500/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return Judge(sc, sums)
}

// Figures 1.2× and 3× apart whose windows overlap are noise: no ranking,
// "about the same"; the same figures with windows apart are ranked.
func TestVerdictOverlappingSpreadsDoNotRank(t *testing.T) {
	single := func() *sim.Summary { return summaryOf("single", 3000, 30_000, []float64{70}, []float64{30_000}) }
	multi := func() *sim.Summary {
		return summaryOf("multi", 3600, 10_000, []float64{40, 40}, []float64{10_000, 9_000})
	}
	c := judgeFigures(t, withWindows(single(), 12, 2500, 4500, 5_000, 40_000, true), withWindows(multi(), 12, 3300, 3900, 4_000, 15_000))
	if !strings.HasPrefix(c.Verdict, "the models perform about the same") || strings.Contains(c.Verdict, "served") {
		t.Errorf("overlapping windows ranked: %q", c.Verdict)
	}
	if c.Figures[0].RPSSpread.N != 12 || c.Figures[0].RPSSpread.Lo < 2500 || c.Figures[0].RPSSpread.Hi >= 4500 {
		t.Errorf("spread not trimmed over 12 windows: %+v", c.Figures[0].RPSSpread)
	}
	c = judgeFigures(t, withWindows(single(), 12, 2900, 3100, 25_000, 40_000), withWindows(multi(), 12, 3500, 3700, 4_000, 15_000))
	if !strings.HasPrefix(c.Verdict, "multi served 1.2× single's requests (3600 vs 3000 req/s, 1.2× to 1.2× in each of 12 windows)") {
		t.Errorf("windows apart not ranked: %q", c.Verdict)
	}
}

// master-slave with one port has one boss accepting, as multi: the same
// shape, never ranked against multi however far apart their p99s and
// windows are, and the verdict says why.
func TestVerdictSameShape(t *testing.T) {
	single := withWindows(summaryOf("single", 2500, 900_000, []float64{99}, []float64{900_000}), 12, 2400, 2600, 200_000, 1_300_000)
	multi := withWindows(summaryOf("multi", 3600, 12_500, []float64{75, 74}, []float64{12_500, 12_000}), 12, 3550, 3650, 10_000, 14_000)
	ms := withWindows(summaryOf("master-slave", 3600, 6_000, []float64{73, 72}, []float64{6_000, 5_500}), 12, 3550, 3650, 4_000, 7_000)
	ms.Groups[0].Size = 2
	ms.Loops = append(ms.Loops[:1], append([]sim.LoopSummary{{Name: "boss-1", Group: "boss", Time: &sim.LoopTime{}}}, ms.Loops[1:]...)...)
	c := judgeFigures(t, single, multi, ms)
	if c.Figures[1].Shape != c.Figures[2].Shape || c.Figures[0].Shape == c.Figures[1].Shape {
		t.Fatalf("shapes: %+v", c.Figures)
	}
	if !strings.HasPrefix(c.Verdict, "multi and master-slave served 1.4× single's requests") {
		t.Errorf("headline: %q", c.Verdict)
	}
	if !strings.Contains(c.Verdict, "master-slave with 1 port is multi: one boss accepts, 2 workers serve") {
		t.Errorf("no same-shape line: %q", c.Verdict)
	}
	if strings.Contains(c.Verdict, "master-slave's p99 is") || strings.Contains(c.Verdict, "multi's p99 is") {
		t.Errorf("same shape ranked: %q", c.Verdict)
	}
}

// A model of the same shape as one of the winners is never ranked below
// them: on a loaded machine master-slave served less than multi by the
// machine's doing, not its own.
func TestVerdictSameShapeNotRankedBelowItsTwin(t *testing.T) {
	single := withWindows(summaryOf("single", 2061, 1_458_000, []float64{99}, []float64{1_458_000}), 12, 1900, 2200, 400_000, 1_400_000)
	multi := withWindows(summaryOf("multi", 1993, 2_080_000, []float64{92, 90}, []float64{2_080_000, 2_000_000}), 12, 1800, 2100, 400_000, 1_900_000, true)
	ms := withWindows(summaryOf("master-slave", 1137, 2_290_000, []float64{90, 89}, []float64{2_290_000, 2_200_000}), 12, 1000, 1250, 500_000, 2_200_000)
	c := judgeFigures(t, single, multi, ms)
	if strings.Contains(c.Verdict, "served") {
		t.Errorf("ranked the twin of a winner: %q", c.Verdict)
	}
	if !strings.Contains(c.Verdict, "master-slave with 1 port is multi") {
		t.Errorf("no same-shape line: %q", c.Verdict)
	}
}

// A p99 that grows over the run (single's queue) spreads over a range that
// overlaps a steady run's, yet window by window it stays far above: the
// paired ratio ranks it. A difference that changes sign between windows
// is not ranked.
func TestVerdictPairedWindows(t *testing.T) {
	single := withWindows(summaryOf("single", 2400, 900_000, []float64{99}, []float64{900_000}), 12, 2300, 2500, 100_000, 1_900_000)
	multi := withWindows(summaryOf("multi", 3500, 200_000, []float64{80, 80}, []float64{200_000, 200_000}), 12, 3400, 3600, 20_000, 400_000)
	if f := judgeFigures(t, single, multi).Figures; apart(f[0].P99Spread, f[1].P99Spread) {
		t.Fatalf("the test wants overlapping p99 ranges: %+v %+v", f[0].P99Spread, f[1].P99Spread)
	}
	c := judgeFigures(t, single, multi)
	if !strings.HasPrefix(c.Verdict, "multi served 1.5× single's requests") || !strings.Contains(c.Verdict, "in each of 12 windows") {
		t.Errorf("a consistent difference not ranked: %q", c.Verdict)
	}
	noisy := withWindows(summaryOf("multi", 3500, 200_000, []float64{80, 80}, []float64{200_000, 200_000}), 12, 2000, 4000, 20_000, 2_500_000, true)
	c = judgeFigures(t, single, noisy)
	if strings.Contains(c.Verdict, "served") || !strings.Contains(c.Verdict, "inside the runs' noise") {
		t.Errorf("a difference that changes sign ranked: %q", c.Verdict)
	}
}

// When other processes used a third of the machine's CPUs during a run,
// the verdict ranks nothing, whatever the figures, and says what holds
// regardless; a loop's wait for a CPU alone (the runs' own threads
// sharing two cores) does not stop a ranking.
func TestVerdictMachineBound(t *testing.T) {
	single := withWindows(summaryOf("single", 2000, 1_400_000, []float64{99}, []float64{1_400_000}), 12, 1900, 2100, 400_000, 1_900_000)
	multi := withWindows(summaryOf("multi", 3400, 100_000, []float64{95, 90}, []float64{100_000, 90_000}), 12, 3300, 3500, 50_000, 150_000)
	single.DurationNS, multi.DurationNS = 3e9, 3e9
	single.Loops[0].LoopCPU = &sim.LoopCPU{CPUWaitNanos: 0.05e9}
	multi.Loops[1].LoopCPU = &sim.LoopCPU{CPUWaitNanos: 1.3e9} // worker-0
	multi.Loops[2].LoopCPU = &sim.LoopCPU{CPUWaitNanos: 1.1e9}
	multi.Measured.OtherCPU = 40
	c := judgeFigures(t, single, multi)
	if c.Figures[1].CPUWaitMax != 43 || c.Figures[1].CPUWaitLoop != "worker-0" {
		t.Errorf("cpu wait: %+v", c.Figures[1])
	}
	if !strings.HasPrefix(c.Verdict, "the machine was busy: other processes used 40% of its CPUs during multi's run and its worker-0 waited for a CPU 43% of the run") ||
		strings.Contains(c.Verdict, "served") || !strings.Contains(c.Verdict, "single: one loop accepts and runs every handler, busiest reactor-0 99% of the run") ||
		!strings.Contains(c.Verdict, "multi: one boss accepts, 2 workers serve and share the handlers") || strings.Contains(c.Verdict, "ranked instead") {
		t.Errorf("verdict: %q", c.Verdict)
	}
	// With each loop's CPU per request measured, the busy machine's
	// verdict ranks the models on what they could serve with a core per
	// loop; alike capacities are said to be alike.
	single.CapacityRPS, single.CapacityLoop = 2400, "reactor-0"
	single.Loops[0].CPUNanos, single.Loops[0].CPUNanosPerRequest = 2e9, 410_000
	multi.CapacityRPS, multi.CapacityLoop = 4700, "worker-0"
	multi.Loops[1].CPUNanos, multi.Loops[1].CPUNanosPerRequest = 1e9, 420_000
	c = judgeFigures(t, single, multi)
	if want := "ranked instead on each loop's own CPU per request, which the machine's load does not change: with a core per loop multi could serve 2.0× single's requests (capacity 4700 vs 2400 req/s): single's reactor-0 spent 410µs of CPU per request it served, multi's busiest worker-0 420µs on its share"; !strings.Contains(c.Verdict, want) {
		t.Errorf("verdict on a busy machine does not rank the capacities:\n got %q\nwant %q", c.Verdict, want)
	}
	multi.CapacityRPS = 2600
	if c := judgeFigures(t, single, multi); !strings.Contains(c.Verdict, "the models could serve about the same with a core per loop (2400 to 2600 req/s)") {
		t.Errorf("alike capacities ranked: %q", c.Verdict)
	}
	multi.CapacityRPS = 4700
	multi.Measured.OtherCPU = 5
	if c := judgeFigures(t, single, multi); !strings.HasPrefix(c.Verdict, "multi served 1.7× single's requests") {
		t.Errorf("a quiet machine's runs not ranked: %q", c.Verdict)
	}
}

// On a busy machine a blocking handler's comparison ranks on whose
// clients it stalled, told by their median: a busy machine's tail on
// every loop's clients does not make an unblocked loop stalled.
func TestVerdictMachineBoundBlocking(t *testing.T) {
	sc, err := scenarios.Parse("w.yaml", []byte(`name: w
clients:
  - {connections: 8, load: open, rate: 50/s}
timeline:
  - {at: 1s, inject: blocking-handler, loop: "*r-0", duration: 100ms}
`))
	if err != nil {
		t.Fatal(err)
	}
	single := summaryOf("single", 300, 1_200_000, []float64{70}, []float64{1_200_000})
	multi := summaryOf("multi", 400, 500_000, []float64{70, 10}, []float64{500_000, 80_000})
	single.Loops[0].Time.Clients.LatencyUS.P50 = 400_000
	multi.Loops[1].Time.Clients.LatencyUS.P50 = 300_000
	multi.Loops[2].Time.Clients.LatencyUS.P50 = 2_000 // its p99 (80ms) is the machine's tail
	multi.Measured.OtherCPU = 90
	c := Judge(sc, []*sim.Summary{single, multi})
	if c.Figures[1].StalledLoops != 1 || c.Figures[0].StalledLoops != 1 {
		t.Errorf("stalled loops: single %d, multi %d; want 1 and 1", c.Figures[0].StalledLoops, c.Figures[1].StalledLoops)
	}
	if want := "what the load does not change: under single the blocked handler stalled the clients of every loop (1 of 1), under multi those of 1 of 2 loops"; !strings.Contains(c.Verdict, want) || !c.MachineBusy {
		t.Errorf("verdict:\n got %q\nwant %q", c.Verdict, want)
	}
}
