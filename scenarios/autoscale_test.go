package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestAutoScaleBlock(t *testing.T) {
	s, err := Parse("a.yaml", []byte("name: a\nnetty: \"4.2\"\nworkers: 4\nautoscale: {min: 2, window: 250ms, down: 0.2, up: 0.8, step: 2, patience: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := AutoScale{Min: 2, Window: 250 * time.Millisecond, Down: 0.2, Up: 0.8, Step: 2, StepDown: 2, Patience: 3}
	if s.AutoScale == nil || *s.AutoScale != want {
		t.Fatalf("autoscale %+v, want %+v", s.AutoScale, want)
	}
	s, err = Parse("a.yaml", []byte("name: a\nnetty: \"4.2\"\nautoscale: {max: 3}\n"))
	if err != nil || s.Workers != 3 {
		t.Fatalf("max sets workers: workers %d, %v", s.Workers, err)
	}
}

func TestAutoScaleErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: a\nnetty: \"4.2\"\nworkers: 4\nautoscale: {max: 3}\n", "a.yaml:4:18: autoscale.max must equal workers (4)"},
		{"name: a\nnetty: \"4.2\"\nworkers: 4\nautoscale: {down: 0.8, up: 0.5}\n", "a.yaml:4:12: autoscale.down (0.8) must be below up (0.5)"},
		{"name: a\nnetty: \"4.2\"\nworkers: 4\nautoscale: {up: 2}\n", "a.yaml:4:17: autoscale.up must be a number from 0 to 1, got 2"},
		{"name: a\nnetty: \"4.2\"\nworkers: 4\nautoscale: {min: 5}\n", "a.yaml:4:12: autoscale.min (5) must not be greater than max"},
		{"name: a\nnetty: \"4.2\"\nworkers: 4\nautoscale: {window: 1ms}\n", "a.yaml:4:21: autoscale.window must be 10ms..1m"},
		{"name: a\nnetty: \"4.2\"\nworkers: 4\nautoscale: {steps: 1}\n", "a.yaml:4:13:"},
	} {
		_, err := Parse("a.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestAutoScaleWarnsOutside42(t *testing.T) {
	s, err := Parse("a.yaml", []byte("name: a\nworkers: 4\nautoscale: {min: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := s.Warnings()
	if s.AutoScale != nil || len(w) != 1 || !strings.Contains(w[0].String(), "a.yaml:3:12: autoscale has no effect under netty 4.1.43") {
		t.Fatalf("autoscale %+v, warnings %v", s.AutoScale, w)
	}
}

// Under model single the I/O group is one loop: a min or max above 1 is a
// warning at its position, the group runs with max 1, and --set workers=…
// stays harmless (a warning, as docs/scenarios.md promises) even beside an
// autoscale.max.
func TestAutoScaleUnderSingle(t *testing.T) {
	src := []byte("name: a\nmodel: single\nnetty: \"4.2\"\nautoscale: {min: 3, max: 4}\n")
	s, err := Parse("a.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range s.Warnings() {
		got = append(got, w.String())
	}
	want := []string{
		"a.yaml:4:18: autoscale.min 3 is more than model single has: its group is one loop, reactor-0, so min is 1",
		"a.yaml:4:26: autoscale.max 4 does not apply to model single: its group is one loop, reactor-0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s.AutoScale == nil || s.AutoScale.Min != 1 || s.AutoScale.Max != 1 || s.Workers != 0 {
		t.Fatalf("autoscale %+v, workers %d", s.AutoScale, s.Workers)
	}
	if err := s.Set("workers", "3"); err != nil {
		t.Fatalf("--set workers=3 under single: %v", err)
	}
	if w := s.Warnings(); len(w) != 3 || !strings.Contains(w[0].String(), "--set workers=3: workers does not apply to model single") {
		t.Fatalf("warnings after --set workers=3: %v", w)
	}
}
