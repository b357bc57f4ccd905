package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestEveryBuiltinSaysWhatToWatch(t *testing.T) {
	for _, info := range Builtin() {
		sc, err := Load(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Watch) == 0 || sc.CaptionAt(0) == "" {
			t.Errorf("%s has no caption at 0s", info.Name)
		}
		for _, c := range sc.Watch {
			if c.At >= sc.Duration {
				t.Errorf("%s: caption at %v is after the run (%v)", info.Name, c.At, sc.Duration)
			}
		}
	}
}

func TestCaptionAtFollowsTheClock(t *testing.T) {
	src := "name: w\nduration: 3s\nwatch:\n  - {at: 2s, text: later}\n  - {text: \"first,\n    folded\"}\n  - {at: 2s, text: too}\n"
	sc, err := Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{{0, "first, folded"}, {time.Second, "first, folded"}, {2 * time.Second, "later too"}, {time.Hour, "later too"}} {
		if got := sc.CaptionAt(tc.at); got != tc.want {
			t.Errorf("CaptionAt(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

func TestWatchProblems(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: w\nwatch:\n  - {at: 1s}\n", "w.yaml:3:5: a watch entry needs text"},
		{"name: w\nwatch:\n  - {at: soon, text: x}\n", "w.yaml:3:10: at must be a duration"},
		{"name: w\nwatch:\n  - {txt: x}\n", "w.yaml:3:6: unknown key txt"},
	} {
		_, err := Parse("w.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
	sc, err := Parse("w.yaml", []byte("name: w\nduration: 1s\nwatch:\n  - {at: 5s, text: x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := sc.Warnings(); len(w) != 1 || !strings.Contains(w[0].String(), "never shown") {
		t.Errorf("warnings %v, want one about a caption after the run", w)
	}
}

func TestDescribeEveryBuiltinAction(t *testing.T) {
	for _, info := range Builtin() {
		sc, err := Load(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range sc.Timeline {
			if d := Describe(a); d == "" || strings.HasPrefix(d, "scenarios.") {
				t.Errorf("%s: no description for %#v", info.Name, a)
			}
		}
	}
	got := Describe(Submit{Loop: "worker-3", Count: 20000, Cost: 20 * time.Microsecond})
	if want := "20 000 tasks of 20µs submitted to worker-3 from outside"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
