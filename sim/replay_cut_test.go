package sim

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// cutTrace writes a small trace of n select_begin/select_end pairs on one
// loop and returns its lines, the end line last.
func cutTrace(t *testing.T, n int) []string {
	t.Helper()
	var buf bytes.Buffer
	w := jsonl.NewWriter(&buf, jsonl.Header{Scenario: "hand-made", Model: "multi",
		Loops: []trace.LoopInfo{{Name: "worker-0", Group: "worker"}}}, jsonl.Options{})
	var evs []trace.Event
	for i := range n {
		evs = append(evs,
			trace.Event{Seq: uint64(2*i + 1), Time: int64(10 * i), Kind: trace.KindSelectBegin, A: 1e9, Str: "select"},
			trace.Event{Seq: uint64(2*i + 2), Time: int64(10*i + 5), Kind: trace.KindSelectEnd, C: int64(i + 1)})
	}
	w.Consume(evs)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

// A run killed mid-way leaves complete lines and no end line: the replay
// shows them and says where the trace stops.
func TestReplayCutShort(t *testing.T) {
	lines := cutTrace(t, 5)
	for name, in := range map[string]string{
		"no end line":   strings.Join(lines[:len(lines)-1], ""),
		"last line cut": strings.Join(lines[:len(lines)-1], "") + lines[len(lines)-1][:10],
	} {
		t.Run(name, func(t *testing.T) {
			s, tally, err := ReplayFrom(strings.NewReader(in), "t.jsonl")
			if !errors.Is(err, jsonl.ErrTruncated) || s == nil || tally == nil {
				t.Fatalf("got %v, %v, %v; want a summary and ErrTruncated", s, tally, err)
			}
			if tally.Events != 10 || s.Loops[0].Selects != 5 {
				t.Fatalf("replayed %d events, %d selects; want all 10 complete ones", tally.Events, s.Loops[0].Selects)
			}
			if !strings.HasPrefix(err.Error(), "t.jsonl:") {
				t.Fatalf("error %q does not say where the trace stops", err)
			}
		})
	}
}

// A bad line in the middle is not a cut: it stays an error naming the line.
func TestReplayCorruptMiddleLine(t *testing.T) {
	lines := cutTrace(t, 5)
	lines[3] = `{"seq":3,"t":20,"loop":"worker-0","kind":"selct_begin"}` + "\n"
	s, _, err := ReplayFrom(strings.NewReader(strings.Join(lines, "")), "t.jsonl")
	if s != nil || err == nil || errors.Is(err, jsonl.ErrTruncated) || !strings.HasPrefix(err.Error(), "t.jsonl:4: ") {
		t.Fatalf("got %v, %v; want the error at t.jsonl:4", s, err)
	}
}
