package sim

import (
	"testing"

	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// A trace says when its run was a compare workload, and a replay then
// checks the workload's expectations, not those of the built-in scenario
// of the same name (blocking-handler is both); a workload that shares its
// name with no scenario is found by its name alone, as in older traces.
func TestReplayChecksTheWorkloadItRan(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		workload  bool
	}{
		{"blocking-handler", "io_ratio=50 workload=true", true},
		{"blocking-handler", "io_ratio=50", false},
		{"cpu-bound", "io_ratio=50", true},
	} {
		sc, err := headerScenario(jsonl.Header{Scenario: tc.name, Config: tc.cfg})
		if err != nil {
			t.Fatal(err)
		}
		if sc.IsWorkload() != tc.workload {
			t.Errorf("%s, config %q: the workload is %v, want %v", tc.name, tc.cfg, sc.IsWorkload(), tc.workload)
		}
	}
}
