package scenarios

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A scenario sent to another process comes back the same: its overrides
// applied, and its workers resolved with the sender's CPU count, not the
// receiver's.
func TestPortableRoundTrip(t *testing.T) {
	data, ok := BuiltinSource("lazy-start")
	if !ok {
		t.Fatal("no lazy-start")
	}
	sc, err := parseWith("builtin:lazy-start", data, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("loop.io_ratio", "70"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "2s"); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(sc.Portable())
	if err != nil {
		t.Fatal(err)
	}
	var p Portable
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	got, err := FromPortable(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Loop.IORatio != 70 || got.Duration.String() != "2s" {
		t.Errorf("overrides lost: io_ratio %d, duration %v", got.Loop.IORatio, got.Duration)
	}
	if !reflect.DeepEqual(got.LoopNames(), sc.LoopNames()) {
		t.Errorf("topology %v, sent %v", got.LoopNames(), sc.LoopNames())
	}
	if n := len(got.LoopNames()); n != 1+6 { // boss-0 and 2 × 3 workers
		t.Errorf("%d loops: workers: 0 should be 2 × the sender's 3 CPUs: %v", n, got.LoopNames())
	}
}

// A scenario that arrives broken is refused with the parser's errors.
func TestFromPortableRefusesBadInput(t *testing.T) {
	for _, p := range []Portable{
		{File: "x", Source: []byte("name: [")},
		{File: "x", Source: []byte("name: x\nmodel: nope\n")},
		{File: "x", Source: []byte("{}"), Sets: [][2]string{{"", ""}}},
	} {
		if _, err := FromPortable(p); err == nil {
			t.Errorf("%q: no error", p.Source)
		}
	}
}
