package scenarios

import (
	"strings"
	"testing"
)

const predictBase = `name: p
summary: predictions
model: multi
workers: 2
duration: 2s
server: {protocol: echo}
predict:
`

// TestPredictRefusesBrokenItems: a bad expression, an unknown figure, a
// loop the scenario lacks or a moment past the duration is refused at its
// line and column.
func TestPredictRefusesBrokenItems(t *testing.T) {
	for _, tc := range []struct {
		name, item, want string
	}{
		{"bad expression", "  - {at: 1s, question: q, answer: worker-0.accepted >, why: w}\n", "p.yaml:8:"},
		{"unknown figure", "  - {at: 1s, question: q, answer: worker-0.acepted, why: w}\n", "p.yaml:8:44: unknown loop counter acepted"},
		{"unknown loop", "  - {at: 1s, question: q, answer: worker-7.accepted, why: w}\n", "p.yaml:8:35: unknown loop worker-7"},
		{"unknown figure in why", "  - at: 1s\n    question: q\n    answer: worker-0.accepted\n    why: had {worker-0.nope}\n", "p.yaml:11:"},
		{"past the duration", "  - {at: 3s, question: q, answer: worker-0.accepted, why: w}\n", "p.yaml:8:10: this moment, 3s, is past the run's end at 2s"},
		{"missing why", "  - {at: 1s, question: q, answer: worker-0.accepted}\n", "p.yaml:8:5: a predict item needs why"},
		{"comparison without choices", "  - {at: 1s, question: q, answer: worker-0.accepted > 1, why: w}\n", "p.yaml:8:35: a comparison as the answer"},
		{"choice the answer never picks", "  - {at: 1s, question: q, choices: [generic, modulo], answer: groups.worker.chooser, why: w}\n", "power-of-two, which is none of the choices"},
		{"one choice", "  - {at: 1s, question: q, choices: [a], answer: worker-0.state, why: w}\n", "choices needs two or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(predictBase+tc.item))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// fixed is a Resolver of a few figures.
type fixed map[string]Value

func (f fixed) Lookup(p string) (Value, bool) { v, ok := f[p]; return v, ok }
func (f fixed) Loops() []string               { return []string{"boss-0", "worker-0", "worker-1"} }

func TestPredictFigureAndCheck(t *testing.T) {
	sc, err := Parse("p.yaml", []byte(predictBase+`  - {at: 1s, question: "how many", answer: worker-1.registered, why: "{worker-1.registered} by then"}
  - {at: 1s, question: which, choices: [power-of-two, generic], answer: groups.worker.chooser, why: w}
  - {at: 1s, question: more, choices: [yes, no], answer: worker-0.accepted < worker-1.accepted, why: w}
  - {at: 1s, question: total, answer: sum(worker-*.registered), why: w}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := fixed{"worker-1.registered": IntValue(3), "worker-0.registered": IntValue(2), "groups.worker.chooser": StringValue("power-of-two"),
		"worker-0.accepted": IntValue(5), "worker-1.accepted": IntValue(1)}
	for _, tc := range []struct {
		i            int
		typed, value string
		right, ok    bool
	}{
		{0, "3", "3", true, true},
		{0, " 4 ", "3", false, true},
		{0, "three", "3", false, false},
		{1, "1", "power-of-two", true, true},
		{1, "Generic", "power-of-two", false, true},
		{1, "3", "power-of-two", false, false},
		{2, "2", "no", true, true},
		{2, "yes", "no", false, true},
		{3, "5", "5", true, true},
	} {
		p := &sc.Predict[tc.i]
		f := p.Figure(r)
		if !f.OK() || f.Value != tc.value {
			t.Errorf("item %d: figure %q (ok %v, %s), want %q", tc.i, f.Value, f.OK(), f.Reason(), tc.value)
		}
		right, ok := p.Check(tc.typed, f)
		if right != tc.right || ok != tc.ok {
			t.Errorf("item %d, %q: right %v ok %v, want %v %v", tc.i, tc.typed, right, ok, tc.right, tc.ok)
		}
	}
	if got := sc.Predict[0].Why.Render(r, sc); got != "3 by then" {
		t.Errorf("why: %q", got)
	}
	if pts := sc.Predict[3].Points(r.Loops()); len(pts) != 2 || pts[1] != (Point{Loop: "worker-1", Key: "registered"}) {
		t.Errorf("points: %v", pts)
	}
}

// A --set that shortens the run leaves a built-in's predictions a warning,
// not an error: a learner's experiment still runs.
func TestPredictPastShortenedRun(t *testing.T) {
	sc, err := Load("graceful-shutdown")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "1s"); err != nil {
		t.Fatalf("--set duration=1s: %v", err)
	}
	warned := false
	for _, w := range sc.Warnings() {
		warned = warned || strings.Contains(w.String(), "this moment, 4s, is past the run's end at 1s")
	}
	if !warned {
		t.Errorf("no warning of the 4s predictions past the 1s run: %v", sc.Warnings())
	}
}
