package jsonl

import (
	"bytes"
	"strings"
	"testing"
)

// The engine version goes into the header when set and comes back; a
// trace without one (older files, hand-written ones) reads as 0.
func TestHeaderEngineRoundTrip(t *testing.T) {
	for _, engine := range []int{0, 1, 7} {
		var buf bytes.Buffer
		w := NewWriter(&buf, Header{Scenario: "s", Model: "multi", Engine: engine}, Options{})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(buf.String(), `"engine":`); has != (engine != 0) {
			t.Fatalf("engine %d: header %s", engine, buf.String())
		}
		r, err := NewReader(&buf, "t.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Header().Engine; got != engine {
			t.Fatalf("engine %d read back as %d", engine, got)
		}
	}
}

func TestHeaderEngineErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"format":"reactorviz-trace","version":1,"engine":"1"}`:         `t.jsonl:1: header: "engine": want an integer, got a string`,
		`{"format":"reactorviz-trace","version":1,"engine":-1}`:          `t.jsonl:1: header: "engine": out of range`,
		`{"format":"reactorviz-trace","version":1,"engine":99999999999}`: `t.jsonl:1: header: "engine": out of range`,
	} {
		_, err := NewReader(strings.NewReader(in+"\n"), "t.jsonl")
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", in, err, want)
		}
	}
}
