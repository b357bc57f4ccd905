package sim

import (
	"reflect"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/scenarios"
)

// Every key of a summary's JSON has an expectation key, and every counter
// of counters.Table resolves, per loop, to the value the summary holds: the
// table, the JSON and the expectation keys agree.
func TestSummaryKeysAreAllExpectable(t *testing.T) {
	var st counters.Stats
	v := reflect.ValueOf(&st).Elem()
	for i := range v.NumField() {
		v.Field(i).SetInt(int64(100 + i))
	}
	s := &Summary{Scenario: "x", Model: "multi",
		Groups: []GroupSummary{{Name: "worker", Size: 2, Chooser: "power-of-two"}},
		Loops: []LoopSummary{{Name: "worker-0", Group: "worker", TID: 7, State: "TERMINATED", Stats: st, TimersFired: 3,
			Time: &LoopTime{Clients: &LoopClients{}, ClientsLastSecond: &LoopClients{}}}},
		Error: "boom", Warnings: []string{"w"}, Expect: []scenarios.Result{{Expr: "e"}}}
	got, unknown := flatten(s)
	if len(unknown) != 0 {
		t.Fatalf("summary keys without an expectation key: %v", unknown)
	}
	for _, c := range counters.Table() {
		val, ok := got["worker-0."+c.Name]
		if want := scenarios.IntValue(c.Get(&st)); !ok || val != want {
			t.Errorf("worker-0.%s = %v (%v), want %v", c.Name, val, ok, want)
		}
	}
	if _, ok := got["groups.worker.chooser"]; !ok {
		t.Error("groups.worker.chooser does not resolve")
	}
}
