package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary bytes to Parse. It must never panic, and it must
// either return a valid scenario or an *ErrorList of well-formed problems.
// Seeds: the built-ins, the bad corpus, and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, name := range builtinOrder {
		src, _ := BuiltinSource(name)
		f.Add(src)
	}
	bad, _ := filepath.Glob("testdata/bad/*.yaml")
	for _, file := range bad {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	// Terminal escapes in every string a scenario prints: name, summary,
	// notes, a caption, an expectation, a key, a value quoted in an error.
	f.Add([]byte("name: \"sc\\e]0;PWNED\\a\\e[2J\"\nsummary: \"\\e[31mred\"\nnotes: \"\\x9b1m\"\nduration: 1s\nserver: {protocol: echo}\n" +
		"timeline:\n  - {at: 0s, caption: \"\\e]52;c;Zm9v\\a\"}\nexpect:\n  - \"worker-0.accepted == \\e[2J\"\n"))
	f.Add([]byte("name: s\n\x1b[2J: 1\nmodel: \"\\e[2Jx\"\nworkers: \"\\u009b\"\n"))
	// Bytes in flight over the bound, one factor at a time and in all.
	f.Add([]byte("name: s\nserver: {protocol: echo}\nclients:\n  - {connections: 100, payload: 1MiB, pipeline: 1024}\n"))
	f.Add([]byte("name: s\nserver: {protocol: echo}\nclients:\n  - {connections: 40, payload: 1MiB}\n  - {connections: 40, payload: 1MiB}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		if s == nil || s.Name == "" {
			t.Fatal("a valid scenario without a name")
		}
		checkInvariants(t, s)
		// An accepted file accepts an override of a promised key, and an
		// out-of-range one is refused cleanly.
		if err := s.Set("loop.io_ratio", "0"); err == nil {
			t.Fatal("--set loop.io_ratio=0 accepted")
		} else {
			checkFuzzError(t, err)
		}
	})
}

// FuzzSet applies arbitrary overrides to a built-in.
func FuzzSet(f *testing.F) {
	f.Add("loop.io_ratio", "100")
	f.Add("clients.0.rate", "max")
	f.Add("expect", "[worker-0.rebuilds >= 1]")
	f.Add("timeline.0", "{at: 1s, inject: slow-task, loop: worker-0}")
	f.Add("server", "{ports: 3, reuseport: true}")
	f.Add("a.b.c.d", "&x [*x]")
	f.Fuzz(func(t *testing.T, key, value string) {
		s, err := Load("tour")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Set(key, value); err != nil {
			checkFuzzError(t, err)
			return
		}
		checkInvariants(t, s)
	})
}

// FuzzExpect parses arbitrary clauses and evaluates the ones that parse.
func FuzzExpect(f *testing.F) {
	for _, seed := range []string{
		"worker-0.rebuilds >= 1", "sum(worker-*.accepted) == clients.connections",
		`groups.worker.chooser == "power-of-two"`, "boss-1.state == NOT_STARTED",
		"worker-*.wakeups_written < worker-*.tasks_submitted", "-1.5e3 < avg(*.io_ns)",
		`"a\"b" != model`, "x(", "))((", "worker-0.", "..", "é == 1",
	} {
		f.Add(seed)
	}
	run := sampleRun()
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseExpect(text)
		if err != nil {
			var ee *ExpectError
			if !errors.As(err, &ee) {
				t.Fatalf("error of type %T", err)
			}
			if ee.Msg == "" || ee.Offset < 0 || ee.Offset > utf8.RuneCountInString(text) && ee.Offset != maxExpectLen {
				t.Fatalf("malformed ExpectError %+v for %q", ee, text)
			}
			return
		}
		res := e.Eval(run)
		if res.Expr != text || res.OK == (res.Reason != "") {
			t.Fatalf("inconsistent result %+v", res)
		}
		if _, err := res.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}

func checkFuzzError(t *testing.T, err error) {
	t.Helper()
	var list *ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error of type %T: %v", err, err)
	}
	if len(list.Problems) == 0 {
		t.Fatal("empty ErrorList")
	}
	for _, p := range list.Problems {
		if p.File != "f.yaml" && p.File != "builtin:tour" && !strings.HasPrefix(p.File, "--set ") {
			t.Fatalf("problem names file %q", p.File)
		}
		if p.Msg == "" || strings.ContainsFunc(p.Msg, unicode.IsControl) || p.Line < 0 || p.Col < 0 || (p.Line > 0) != (p.Col > 0) {
			t.Fatalf("malformed problem %#v", p)
		}
	}
	if !strings.Contains(list.Error(), list.Problems[0].Msg) {
		t.Fatal("Error() lost the first problem")
	}
}

// checkInvariants asserts what any valid scenario guarantees the simulation.
func checkInvariants(t *testing.T, s *Scenario) {
	t.Helper()
	if s.Loop.IORatio < 1 || s.Loop.IORatio > 100 || s.Duration < minDuration || s.Duration > maxDuration {
		t.Fatalf("out-of-range config %+v %v", s.Loop, s.Duration)
	}
	if s.Server.Ports < 1 || s.Shutdown.Timeout < s.Shutdown.Quiet {
		t.Fatalf("bad server or shutdown %+v %+v", s.Server, s.Shutdown)
	}
	names := s.LoopNames()
	if len(names) == 0 {
		t.Fatal("no loops")
	}
	inFlight := 0
	for _, c := range s.Clients {
		if c.Connections < 1 || c.Stop > s.Duration || c.Protocol != s.Server.Protocol {
			t.Fatalf("bad client %+v", c)
		}
		size := c.Payload
		if c.Protocol != ProtocolEcho {
			size = defaultPayload
		}
		inFlight += c.Connections * size * c.Pipeline
	}
	if inFlight > maxInFlight {
		t.Fatalf("clients keep %d bytes in flight", inFlight)
	}
	for _, w := range s.Warnings() {
		if strings.ContainsFunc(w.String(), unicode.IsControl) {
			t.Fatalf("warning with a raw control character: %q", w.String())
		}
	}
	for i, a := range s.Timeline {
		if i > 0 && a.Time() < s.Timeline[i-1].Time() {
			t.Fatal("timeline not sorted")
		}
	}
	for _, e := range s.Expect {
		if e == nil || e.Text == "" {
			t.Fatal("empty expectation")
		}
	}
}
