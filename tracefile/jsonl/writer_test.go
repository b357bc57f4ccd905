package jsonl

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

var started = time.Date(2026, 1, 2, 15, 4, 5, 123456789, time.UTC)

// fullEvent returns an event of kind k with every field of its schema set to
// a value derived from i, so that slots cannot be confused on the way back.
func fullEvent(tb testing.TB, k trace.Kind, i int) trace.Event {
	tb.Helper()
	e := trace.Event{Seq: uint64(i + 1), Time: int64(1000 * (i + 1)), Loop: uint16(i % 3), Kind: k}
	for j, f := range e.Fields(nil) {
		switch {
		case f.State:
			f.Int = int64(trace.StateNotStarted) + int64((i+j)%5)
		case f.Type == trace.FieldInt:
			f.Int = int64(i*100 + j)
		case f.Type == trace.FieldBool:
			f.Bool = true
		case f.Type == trace.FieldString:
			f.Str = "name \"" + k.String() + "\" é\t日本\x01\n\\"
		}
		if !e.SetField(f.Name, f) {
			tb.Fatalf("%s: schema field %q not settable", k, f.Name)
		}
	}
	return e
}

// staticSource is a Source whose loop table can grow during a test.
type staticSource struct {
	mu               sync.Mutex
	loops            []trace.LoopInfo
	emitted, dropped uint64
}

func (s *staticSource) Loops() []trace.LoopInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]trace.LoopInfo(nil), s.loops...)
}

func (s *staticSource) Stats() (uint64, uint64) { return s.emitted, s.dropped }

func (s *staticSource) add(l trace.LoopInfo) {
	s.mu.Lock()
	s.loops = append(s.loops, l)
	s.mu.Unlock()
}

var threeLoops = []trace.LoopInfo{
	{Name: "boss-0", Group: "boss"}, {Name: "worker-0", Group: "worker"}, {Name: "worker-1", Group: "worker"},
}

func TestRoundTripEveryKind(t *testing.T) {
	var events []trace.Event
	for i, k := range trace.Kinds() {
		events = append(events, fullEvent(t, k, i))
	}
	// Extremes of every slot type, within the reader's order and magnitude
	// rules (counts at most MaxTime, other fields any int64).
	extreme := trace.Event{Seq: 1 << 62, Time: MaxTime, Loop: 2, Kind: trace.KindRebuildEnd,
		A: MaxTime, B: 0, C: 0, D: math.MinInt64, E: math.MaxInt64}
	events = append(events, extreme,
		trace.Event{Seq: 1<<62 + 1, Time: MaxTime, Kind: trace.KindClose, Str: ""},
		trace.Event{Seq: 1<<62 + 2, Time: MaxTime, Kind: trace.KindState, A: 0, B: 99}, // states outside the names
		trace.Event{Seq: math.MaxUint64, Time: MaxTime, Kind: trace.KindWakeup, Str: "\u2028\\/\"\x00\x7f"},
	)

	for _, batches := range []int{1, 3, len(events)} {
		var buf bytes.Buffer
		w := NewWriter(&buf, Header{Scenario: "tour", Model: "multi", Started: started, Loops: threeLoops}, Options{BufferSize: 64})
		for i := 0; i < len(events); i += batches {
			w.Consume(events[i:min(i+batches, len(events))])
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		tr, err := ReadAll(&buf, "rt.jsonl")
		if err != nil {
			t.Fatalf("batches of %d: %v", batches, err)
		}
		if len(tr.Events) != len(events) {
			t.Fatalf("read %d events, wrote %d", len(tr.Events), len(events))
		}
		for i := range events {
			if tr.Events[i] != events[i] {
				t.Errorf("event %d:\n got %+v\nwant %+v", i, tr.Events[i], events[i])
			}
		}
		want := Header{Scenario: "tour", Model: "multi", Started: started, Loops: threeLoops}
		if !headerEqual(tr.Header, want) {
			t.Errorf("header %+v, want %+v", tr.Header, want)
		}
		if tr.End.Events != uint64(len(events)) || tr.End.Time != MaxTime {
			t.Errorf("end %+v", tr.End)
		}
	}
}

func headerEqual(a, b Header) bool {
	if a.Scenario != b.Scenario || a.Model != b.Model || !a.Started.Equal(b.Started) || len(a.Loops) != len(b.Loops) {
		return false
	}
	for i := range a.Loops {
		if a.Loops[i] != b.Loops[i] {
			return false
		}
	}
	return true
}

func TestWriterLines(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Scenario: "tour", Model: "multi", Started: started, Loops: threeLoops[:1]}, Options{})
	state := trace.Event{Seq: 2, Time: 130, Loop: 0, Kind: trace.KindState}
	for name, v := range map[string]int64{"from": int64(trace.StateNotStarted), "to": int64(trace.StateStarted), "tid": 4312} {
		if !state.SetField(name, trace.Field{Type: trace.FieldInt, Int: v}) {
			t.Fatalf("state has no field %q", name)
		}
	}
	w.Consume([]trace.Event{
		{Seq: 1, Time: 123, Loop: 0, Kind: trace.KindSelectEnd, A: 0, B: 999, C: 3, Flag: true},
		state,
		{Seq: 3, Time: 140, Loop: 0, Kind: trace.KindDrop, A: 5},
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := `{"format":"reactorviz-trace","version":2,"scenario":"tour","model":"multi","started":"2026-01-02T15:04:05.123456789Z","loops":[{"name":"boss-0","group":"boss"}]}
{"seq":1,"t":123,"loop":"boss-0","kind":"select_end","ready":0,"took_ns":999,"select_cnt":3,"premature":true}
{"seq":2,"t":130,"loop":"boss-0","kind":"state","from":"NOT_STARTED","to":"STARTED","tid":4312,"quiet_ns":0,"timeout_ns":0}
{"seq":3,"t":140,"loop":"boss-0","kind":"drop","count":5}
{"end":140,"events":3,"emitted":3,"dropped":5}
`
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriterLoops(t *testing.T) {
	tests := []struct {
		name      string
		header    []trace.LoopInfo
		source    []trace.LoopInfo // nil: no Source
		later     []trace.LoopInfo // added to the source after the first batch
		loops     []uint16         // Loop of each event, one batch each
		wantLoops []trace.LoopInfo
		wantLines []string // substrings expected in order
	}{
		{
			name:      "header lists loops known at the first batch",
			header:    nil,
			source:    threeLoops,
			loops:     []uint16{2},
			wantLoops: threeLoops,
		},
		{
			name:      "loops registered later get add_loop lines",
			source:    threeLoops[:1],
			later:     []trace.LoopInfo{{Name: "wheel", Group: "wheel"}},
			loops:     []uint16{0, 1},
			wantLoops: append(append([]trace.LoopInfo(nil), threeLoops[:1]...), trace.LoopInfo{Name: "wheel", Group: "wheel"}),
			wantLines: []string{`{"add_loop":"wheel","group":"wheel","index":1}`, `"loop":"wheel"`},
		},
		{
			name:      "unknown indices are named so they read back",
			header:    threeLoops[:1],
			loops:     []uint16{2},
			wantLoops: []trace.LoopInfo{threeLoops[0], {Name: "loop-1"}, {Name: "loop-2"}},
			wantLines: []string{`{"add_loop":"loop-1","group":"","index":1}`, `{"add_loop":"loop-2","group":"","index":2}`},
		},
		{
			name:      "empty and duplicate names are made unique",
			header:    []trace.LoopInfo{{Name: "a"}, {Name: "a"}, {Name: ""}, {Name: "a#2"}},
			loops:     []uint16{3},
			wantLoops: []trace.LoopInfo{{Name: "a"}, {Name: "a#2"}, {Name: "loop-2"}, {Name: "a#2#2"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			opts := Options{}
			var src *staticSource
			if tc.source != nil {
				src = &staticSource{loops: append([]trace.LoopInfo(nil), tc.source...)}
				opts.Source = src
			}
			w := NewWriter(&buf, Header{Loops: tc.header}, opts)
			for i, l := range tc.loops {
				if i == 1 {
					for _, x := range tc.later {
						src.add(x)
					}
				}
				w.Consume([]trace.Event{{Seq: uint64(i + 1), Loop: l, Kind: trace.KindIOBegin}})
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			rest := text
			for _, s := range tc.wantLines {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Fatalf("missing %s in order in\n%s", s, text)
				}
				rest = rest[i+len(s):]
			}
			tr, err := ReadAll(strings.NewReader(text), "loops.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Header.Loops) != len(tc.wantLoops) {
				t.Fatalf("loops %v, want %v", tr.Header.Loops, tc.wantLoops)
			}
			for i := range tc.wantLoops {
				if tr.Header.Loops[i] != tc.wantLoops[i] {
					t.Errorf("loop %d = %v, want %v", i, tr.Header.Loops[i], tc.wantLoops[i])
				}
			}
			for i, ev := range tr.Events {
				if ev.Loop != tc.loops[i] {
					t.Errorf("event %d on loop %d, want %d", i, ev.Loop, tc.loops[i])
				}
			}
		})
	}
}

func TestWriterManyLoopsStayUnderLineLimit(t *testing.T) {
	src := &staticSource{}
	long := strings.Repeat("\x01", MaxNameBytes*2) // escapes to 6 bytes each
	for i := 0; i < 3000; i++ {
		src.add(trace.LoopInfo{Name: strconv.Itoa(i) + long, Group: long})
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Scenario: long, Model: long}, Options{Source: src})
	w.Consume([]trace.Event{{Seq: 1, Loop: 2999, Kind: trace.KindException, Str: strings.Repeat("\x00", 3*MaxStringBytes)}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(buf.String(), "\n") {
		if len(line) >= MaxLineBytes {
			t.Fatalf("line %d is %d bytes", i+1, len(line))
		}
	}
	tr, err := ReadAll(&buf, "many.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Header.Loops) != 3000 || tr.Events[0].Loop != 2999 {
		t.Fatalf("%d loops, event on %d", len(tr.Header.Loops), tr.Events[0].Loop)
	}
	if got := len(tr.Events[0].Str); got != MaxStringBytes {
		t.Errorf("string kept %d bytes, want %d", got, MaxStringBytes)
	}
}

func TestWriterStringsCutOnRuneBoundary(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"short stays", "日本", "日本"},
		{"ascii cut", strings.Repeat("a", MaxStringBytes+10), strings.Repeat("a", MaxStringBytes)},
		{"multibyte not split", strings.Repeat("a", MaxStringBytes-1) + "日本", strings.Repeat("a", MaxStringBytes-1)},
		{"invalid utf-8 replaced", "a\xffb", "a\ufffdb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, Header{Loops: threeLoops}, Options{})
			w.Consume([]trace.Event{{Kind: trace.KindTaskRun, Str: tc.in}})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			tr, err := ReadAll(&buf, "s.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if tr.Events[0].Str != tc.want {
				t.Errorf("got %q (%d bytes), want %d bytes", tr.Events[0].Str, len(tr.Events[0].Str), len(tc.want))
			}
		})
	}
}

func TestWriterEndLineCounts(t *testing.T) {
	tests := []struct {
		name        string
		src         *staticSource
		events      []trace.Event
		wantEmitted uint64
		wantDropped uint64
	}{
		{
			name:        "counted from the stream",
			events:      []trace.Event{{Seq: 1, Kind: trace.KindDrop, A: 4}, {Seq: 2, Kind: trace.KindIOBegin}, {Seq: 3, Kind: trace.KindDrop, A: 3}},
			wantEmitted: 3, wantDropped: 7,
		},
		{
			name:        "taken from the source",
			src:         &staticSource{loops: threeLoops, emitted: 100, dropped: 9},
			events:      []trace.Event{{Kind: trace.KindDrop, A: 4}},
			wantEmitted: 100, wantDropped: 9,
		},
		{
			name:   "no events still makes a valid file",
			events: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			opts := Options{}
			if tc.src != nil {
				opts.Source = tc.src
			}
			w := NewWriter(&buf, Header{Loops: threeLoops}, opts)
			if len(tc.events) > 0 {
				w.Consume(tc.events)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			tr, err := ReadAll(&buf, "end.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			want := End{Events: uint64(len(tc.events)), Emitted: tc.wantEmitted, Dropped: tc.wantDropped}
			if tr.End != want {
				t.Errorf("end %+v, want %+v", tr.End, want)
			}
		})
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct {
	n     int
	err   error
	calls int
}

func (f *failWriter) Write(p []byte) (int, error) {
	f.calls++
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, f.err
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriterReturnsFirstError(t *testing.T) {
	first := errors.New("disk full")
	fw := &failWriter{n: 10, err: first}
	w := NewWriter(fw, Header{Loops: threeLoops}, Options{BufferSize: 16})
	ev := fullEvent(t, trace.KindSelectEnd, 1)
	w.Consume([]trace.Event{ev, ev})
	calls := fw.calls
	fw.err = errors.New("second error")
	w.Consume([]trace.Event{ev, ev, ev})
	if fw.calls != calls {
		t.Errorf("wrote %d more times after an error", fw.calls-calls)
	}
	if err := w.Flush(); err != first {
		t.Errorf("Flush = %v, want %v", err, first)
	}
	if err := w.Close(); err != first {
		t.Errorf("Close = %v, want %v", err, first)
	}
	if err := w.Close(); err != first {
		t.Errorf("second Close = %v, want %v", err, first)
	}
}

func TestWriterShortWrite(t *testing.T) {
	w := NewWriter(shortWriter{}, Header{}, Options{})
	if err := w.Close(); err != io.ErrShortWrite {
		t.Errorf("Close = %v, want io.ErrShortWrite", err)
	}
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

func TestWriterAfterClose(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Loops: threeLoops}, Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	w.Consume([]trace.Event{fullEvent(t, trace.KindIOEnd, 0)})
	if err := w.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	if buf.Len() != n {
		t.Errorf("wrote %d bytes after Close", buf.Len()-n)
	}
}

func TestWriterFlushWritesHeader(t *testing.T) {
	var buf bytes.Buffer
	src := &staticSource{loops: threeLoops[:2]}
	w := NewWriter(&buf, Header{Scenario: "s"}, Options{Source: src})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"format":"reactorviz-trace"`) || !strings.Contains(buf.String(), `"worker-0"`) {
		t.Errorf("after Flush: %q", buf.String())
	}
}

// TestWriterWithCollector runs the writer as a real sink of a Collector fed
// from two goroutines, under -race.
func TestWriterWithCollector(t *testing.T) {
	c := trace.NewCollector(trace.Options{RingSize: 64, Interval: time.Millisecond})
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Scenario: "race", Started: c.Clock().Epoch()}, Options{Source: c})
	r0 := c.AddLoop("worker-0", "worker")
	c.AddSink(w)
	c.Start()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 500; i++ {
			r0.Put(trace.Event{Time: c.Clock().Now(), Kind: trace.KindTaskRun, A: int64(i), Str: "t"})
		}
	}()
	r1 := c.AddLoop("wheel", "wheel")
	for i := 0; i < 500; i++ {
		r1.Put(trace.Event{Time: c.Clock().Now(), Kind: trace.KindWheelTick, A: int64(i)})
		c.External(trace.Event{Time: c.Clock().Now(), Loop: 0, Kind: trace.KindTaskSubmit, Flag: true})
	}
	wg.Wait()
	c.Stop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := ReadAll(&buf, "race.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	emitted, dropped := c.Stats()
	if uint64(len(tr.Events)) != emitted || tr.End.Emitted != emitted || tr.End.Dropped != dropped {
		t.Errorf("read %d events, end %+v; collector emitted %d dropped %d", len(tr.Events), tr.End, emitted, dropped)
	}
	for i, ev := range tr.Events {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
}
