package scenarios

import (
	"reflect"
	"strings"
	"testing"
)

// fixedValues is a Resolver over a map, as a finished run's summary is.
type fixedValues map[string]Value

func (f fixedValues) Lookup(path string) (Value, bool) { v, ok := f[path]; return v, ok }
func (f fixedValues) Loops() []string                  { return []string{"boss-0", "worker-0", "worker-1"} }

const captionBase = "name: c\nmodel: multi\nworkers: 2\nduration: 3s\nserver: {protocol: echo, ports: 1}\n"

// A caption's placeholders are filled from the run, its if: picks the
// text by the configuration after --set, and braces can be written.
func TestCaptionTemplateRenders(t *testing.T) {
	src := captionBase + `watch:
  - text: >-
      {worker-0.wakeups_written} writes, {sum(worker-*.tasks_run)} tasks, ratio {loop.io_ratio},
      {groups.worker.size} workers, {boss-0.state} {{literal}}
  - if: loop.io_ratio == 100
    text: no limit
    else: "limit {loop.io_ratio}"
`
	sc, err := Parse("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := fixedValues{
		"worker-0.wakeups_written": IntValue(3), "worker-0.tasks_run": IntValue(10), "worker-1.tasks_run": IntValue(5),
		"groups.worker.size": IntValue(2), "boss-0.state": StringValue("STARTED"),
	}
	want := []string{"3 writes, 15 tasks, ratio 50, 2 workers, STARTED {literal}", "limit 50"}
	for i, c := range sc.Watch {
		if got := c.Render(r, sc); got != want[i] {
			t.Errorf("caption %d = %q, want %q", i, got, want[i])
		}
	}
	if got := sc.Watch[0].Render(nil, sc); !strings.HasPrefix(got, "? writes, ? tasks, ratio 50") {
		t.Errorf("without figures: %q", got)
	}
	if err := sc.Set("loop.io_ratio", "100"); err != nil {
		t.Fatal(err)
	}
	if got := sc.Watch[1].Render(r, sc); got != "no limit" {
		t.Errorf("under --set loop.io_ratio=100 the caption says %q", got)
	}
}

// A bad placeholder is an error at its own line and column, inside a
// folded block too; a loop the topology lacks is only a warning.
func TestCaptionTemplateErrors(t *testing.T) {
	for _, tc := range []struct{ watch, want string }{
		{"  - text: >-\n      first line\n      then {worker-0.wakeups_writen} here\n", "c.yaml:9:22: unknown loop counter wakeups_writen"},
		{"  - text: \"x {bosss.accepted}\"\n", "c.yaml:7:15: unknown name bosss"},
		{"  - text: \"{worker-*.accepted}\"\n", "c.yaml:7:13: a pattern needs an aggregate"},
		{"  - text: \"{clients.errors}\"\n", "c.yaml:7:13: a caption cannot show clients.errors"},
		{"  - text: \"{worker-0.accepted\"\n", "c.yaml:7:12: this { has no closing }"},
		{"  - text: \"a } b\"\n", "c.yaml:7:14: a } in a caption is written }}"},
		{"  - if: loop.io_ratoi == 1\n    text: x\n", "c.yaml:7:9: a condition cannot test loop.io_ratoi"},
		{"  - text: x\n    else: y\n", "c.yaml:8:11: else: needs an if:"},
	} {
		_, err := Parse("c.yaml", []byte(captionBase+"watch:\n"+tc.watch))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.watch, err, tc.want)
		}
	}
	sc, err := Parse("c.yaml", []byte(captionBase+"watch:\n  - text: \"{worker-7.accepted}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := sc.Warnings(); len(w) == 0 || !strings.Contains(w[0].String(), "c.yaml:7:13: unknown loop worker-7") {
		t.Errorf("warnings %v", w)
	}
}

// A caption's figures are of the loops their placeholders read, patterns
// expanded, each with its counter's key, in the caption's order; a run key
// or a configuration value names none.
func TestCaptionPoints(t *testing.T) {
	src := captionBase + `watch:
  - text: "{worker-1.rebuilds} and {sum(boss-*.accepted)}, {groups.worker.size} at {loop.io_ratio}"
  - text: nothing to point at
`
	sc, err := Parse("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"boss-0", "boss-1", "worker-0", "worker-1"}
	want := []Point{{"worker-1", "rebuilds"}, {"boss-0", "accepted"}, {"boss-1", "accepted"}}
	if got := sc.Watch[0].Points(names); !reflect.DeepEqual(got, want) {
		t.Errorf("points %v, want %v", got, want)
	}
	if got := sc.Watch[1].Points(names); len(got) != 0 {
		t.Errorf("a plain note points at %v", got)
	}
}
