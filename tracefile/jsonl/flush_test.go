package jsonl

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// syncBuffer is a bytes.Buffer the flusher and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// With FlushInterval an event far below the buffer's size reaches the file
// without Flush or Close, and what reached it reads back as a trace cut
// short; Close stops the flusher.
func TestWriterFlushesOnATimer(t *testing.T) {
	leaktest.Check(t)
	var out syncBuffer
	w := NewWriter(&out, Header{Scenario: "tour", Model: "multi", Loops: threeLoops}, Options{FlushInterval: 5 * time.Millisecond})
	w.Consume([]trace.Event{{Seq: 1, Time: 10, Loop: 1, Kind: trace.KindSelectBegin, A: 1e9, Str: "select"}})
	leaktest.WaitFor(t, "the timer's flush", func() bool { return strings.Contains(out.String(), `"seq":1,`) })
	_, err := ReadAll(strings.NewReader(out.String()), "cut.jsonl")
	if err == nil || !strings.Contains(err.Error(), "cut short after 1 events") {
		t.Fatalf("a flushed, unclosed trace reads as %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if tr, err := ReadAll(strings.NewReader(out.String()), "done.jsonl"); err != nil || len(tr.Events) != 1 {
		t.Fatalf("closed: %v", err)
	}
}

// A pause event (a breakpoint, the user's pause) is written at once: the
// run may stay paused, or never resume.
func TestWriterWritesAPauseAtOnce(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, Header{Loops: threeLoops}, Options{})
	w.Consume([]trace.Event{{Seq: 1, Time: 1, Kind: trace.KindSelectBegin}})
	if out.Len() != 0 {
		t.Fatalf("wrote %d bytes before the buffer filled", out.Len())
	}
	w.Consume([]trace.Event{{Seq: 2, Time: 2, Kind: trace.KindPause, A: int64(trace.PhaseIO), Str: "breakpoint: x"}})
	if !strings.Contains(out.String(), `"kind":"pause"`) {
		t.Fatalf("the pause is not in the file: %q", out.String())
	}
}
