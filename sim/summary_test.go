package sim

import (
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/scenarios"
)

// Every key of a summary's JSON has an expectation key, and every counter
// of counters.Table resolves, per loop, to the value the engine's atomic of
// the same field holds: the engine's counters, their snapshot, the table,
// the JSON and the expectation keys (with their docs) agree.
func TestSummaryKeysAreAllExpectable(t *testing.T) {
	var engine counters.Atomics
	v := reflect.ValueOf(&engine).Elem()
	for i := range v.NumField() {
		v.Field(i).Addr().Interface().(*atomic.Int64).Store(int64(100 + i))
	}
	st := engine.Load()
	s := &Summary{Scenario: "x", Model: "multi",
		Groups: []GroupSummary{{Name: "worker", Size: 2, Chooser: "power-of-two"}},
		Loops: []LoopSummary{{Name: "worker-0", Group: "worker", TID: 7, State: "TERMINATED", Stats: st, TimersFired: 3,
			Time: &LoopTime{Clients: &LoopClients{}, ClientsLastSecond: &LoopClients{}}}},
		Error: "boom", Warnings: []string{"w"}, Expect: []scenarios.Result{{Expr: "e"}},
		CapacityRPS: 2400, CapacityLoop: "worker-0"}
	// The figures a busy machine does not change, and the worst window.
	ww := &WorstWindow{P99US: 655_000, AtNS: 1_250_000_000}
	s.Clients.LatencyUS.WorstWindow = ww
	s.Loops[0].Time.Clients.LatencyUS.WorstWindow = ww
	s.Loops[0].ClientsLatencyUS = &LatencySummary{P50: 1, P99: 2, WorstWindow: ww}
	s.Loops[0].LoopCPU = &LoopCPU{CPUNanos: 1, CPUWaitNanos: 2, CPUNanosPerRequest: 3, PerRequestPhase: &PhaseCPU{IO: 1, Tasks: 2}}
	got, unknown := flatten(s)
	if len(unknown) != 0 {
		t.Fatalf("summary keys without an expectation key: %v", unknown)
	}
	keys := map[string]scenarios.Key{}
	for _, k := range scenarios.LoopKeys() {
		keys[k.Path] = k
	}
	typ := reflect.TypeFor[counters.Stats]()
	for _, c := range counters.Table() {
		field, _ := typ.FieldByNameFunc(func(n string) bool {
			f, _ := typ.FieldByName(n)
			return f.Tag.Get("json") == c.Name
		})
		want := v.FieldByName(field.Name).Addr().Interface().(*atomic.Int64).Load()
		val, ok := got["worker-0."+c.Name]
		if !ok || val != scenarios.IntValue(want) {
			t.Errorf("worker-0.%s = %v (%v), want the engine's %s, %d", c.Name, val, ok, field.Name, want)
		}
		if k := keys[c.Name]; k.Type != scenarios.TypeInt || k.Doc != c.Doc || k.Extra != c.Extra {
			t.Errorf("expectation key %s is %+v, the table says %q, extra %v", c.Name, k, c.Doc, c.Extra)
		}
	}
	if _, ok := got["groups.worker.chooser"]; !ok {
		t.Error("groups.worker.chooser does not resolve")
	}
}
