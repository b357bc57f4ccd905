package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unsafe"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

const (
	hdrLine = `{"format":"reactorviz-trace","version":2,"scenario":"tour","model":"multi","started":"2026-01-02T15:04:05Z","loops":[{"name":"boss-0","group":"boss"},{"name":"worker-0","group":"worker"}]}`
	ev1     = `{"seq":1,"t":10,"loop":"worker-0","kind":"select_end","ready":0,"took_ns":5,"select_cnt":2,"premature":true}`
	ev2     = `{"seq":2,"t":20,"loop":"boss-0","kind":"state","from":"NOT_STARTED","to":"STARTED"}`
	endLn   = `{"end":20,"events":2,"emitted":2,"dropped":0}`
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestReaderAcceptsValidVariants(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []trace.Event
		loops int
	}{
		{
			name:  "as written",
			input: lines(hdrLine, ev1, ev2, endLn),
			want: []trace.Event{
				{Seq: 1, Time: 10, Loop: 1, Kind: trace.KindSelectEnd, B: 5, C: 2, Flag: true},
				{Seq: 2, Time: 20, Loop: 0, Kind: trace.KindState, A: int64(trace.StateNotStarted), B: int64(trace.StateStarted)},
			},
			loops: 2,
		},
		{
			name:  "keys in any order, spaces, CRLF, blank lines, escapes",
			input: hdrLine + "\r\n\r\n" + ` { "premature" : false , "kind":"select_begin","mode":"sel\u0065ct\/now","loop":"worker-0","t":3,"seq":9 }` + "\r\n" + `{"events":1,"dropped":0,"emitted":1,"end":3}` + "\r\n\n",
			want:  nil, // checked below: premature is not a select_begin field
		},
		{
			name:  "missing kind fields read as zero",
			input: lines(hdrLine, `{"seq":1,"t":1,"loop":"boss-0","kind":"tasks_end"}`, `{"end":1,"events":1,"emitted":1,"dropped":0}`),
			want:  []trace.Event{{Seq: 1, Time: 1, Kind: trace.KindTasksEnd}},
			loops: 2,
		},
		{
			name:  "add_loop extends the table",
			input: lines(hdrLine, `{"add_loop":"wheel","group":"wheel","index":2}`, `{"seq":1,"t":1,"loop":"wheel","kind":"wheel_tick","tick":4}`, `{"end":1,"events":1,"emitted":1,"dropped":0}`),
			want:  []trace.Event{{Seq: 1, Time: 1, Loop: 2, Kind: trace.KindWheelTick, A: 4}},
			loops: 3,
		},
		{
			name:  "end line without a final newline",
			input: lines(hdrLine, ev1, ev2) + endLn,
			want: []trace.Event{
				{Seq: 1, Time: 10, Loop: 1, Kind: trace.KindSelectEnd, B: 5, C: 2, Flag: true},
				{Seq: 2, Time: 20, Loop: 0, Kind: trace.KindState, A: int64(trace.StateNotStarted), B: int64(trace.StateStarted)},
			},
			loops: 2,
		},
		{
			name:  "surrogate pairs and lone surrogates",
			input: lines(hdrLine, `{"seq":1,"t":1,"loop":"boss-0","kind":"close","reason":"\ud83d\ude00 \ud800x \u00e9"}`, `{"end":1,"events":1,"emitted":1,"dropped":0}`),
			want:  []trace.Event{{Seq: 1, Time: 1, Kind: trace.KindClose, Str: "😀 \ufffdx é"}},
			loops: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadAll(strings.NewReader(tc.input), "ok.jsonl")
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), `unknown field "premature" for select_begin`) {
					t.Fatalf("err = %v", err)
				}
				fixed := strings.Replace(tc.input, `"premature" : false ,`, "", 1)
				tr, err = ReadAll(strings.NewReader(fixed), "ok.jsonl")
				if err != nil {
					t.Fatal(err)
				}
				want := trace.Event{Seq: 9, Time: 3, Loop: 1, Kind: trace.KindSelectBegin, Str: "select/now"}
				if len(tr.Events) != 1 || tr.Events[0] != want {
					t.Fatalf("events %+v, want %+v", tr.Events, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Events) != len(tc.want) {
				t.Fatalf("events %+v, want %+v", tr.Events, tc.want)
			}
			for i := range tc.want {
				if tr.Events[i] != tc.want[i] {
					t.Errorf("event %d = %+v, want %+v", i, tr.Events[i], tc.want[i])
				}
			}
			if len(tr.Header.Loops) != tc.loops {
				t.Errorf("%d loops, want %d", len(tr.Header.Loops), tc.loops)
			}
		})
	}
}

func TestReaderHeader(t *testing.T) {
	rd, err := NewReader(strings.NewReader(lines(hdrLine, endLn)), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	h := rd.Header()
	want := Header{Scenario: "tour", Model: "multi", Started: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC),
		Loops: []trace.LoopInfo{{Name: "boss-0", Group: "boss"}, {Name: "worker-0", Group: "worker"}}}
	if !headerEqual(h, want) {
		t.Errorf("header %+v, want %+v", h, want)
	}
}

func TestReaderErrors(t *testing.T) {
	long := `{"seq":1,"t":1,"loop":"boss-0","kind":"close","reason":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	tests := []struct {
		name       string
		input      string
		wantErr    string
		wantIs     error // sentinel, or nil
		wantEvents int   // events read before the error
	}{
		// Header problems: NewReader fails.
		{"empty file", "", "t.jsonl:1: empty file: no trace header", ErrTruncated, 0},
		{"blank file", "\n  \n", "t.jsonl:2: empty file: no trace header", ErrTruncated, 0},
		{"not json", "hello\n", "t.jsonl:1: not a reactorviz trace: the first line is not a trace header", ErrNotTrace, 0},
		{"other json", `{"traceEvents":[]}` + "\n", `t.jsonl:1: not a reactorviz trace: the header has no "format"`, ErrNotTrace, 0},
		{"wrong format", `{"format":"chrome","version":1}` + "\n", `t.jsonl:1: not a reactorviz trace (format "chrome")`, ErrNotTrace, 0},
		{"bad version", `{"format":"reactorviz-trace","version":3,"loops":[]}` + "\n", "t.jsonl:1: unsupported trace version 3 (this build reads versions 1 to 2)", ErrVersion, 0},
		{"version not a number", `{"format":"reactorviz-trace","version":"1"}` + "\n", `t.jsonl:1: header: "version": want an integer, got a string`, nil, 0},
		{"missing version", `{"format":"reactorviz-trace"}` + "\n", `t.jsonl:1: header: missing "version"`, nil, 0},
		{"unknown header field", `{"format":"reactorviz-trace","version":1,"speed":{"x":[1,2]}}` + "\n", `t.jsonl:1: header: unknown field "speed"`, nil, 0},
		{"bad started", `{"format":"reactorviz-trace","version":1,"started":"yesterday"}` + "\n", `t.jsonl:1: header: "started": not an RFC 3339 time: "yesterday"`, nil, 0},
		{"scenario not a string", `{"format":"reactorviz-trace","version":2,"scenario":3}` + "\n", `t.jsonl:1: header: "scenario": want a string, got an integer`, nil, 0},
		{"loops not an array", `{"format":"reactorviz-trace","version":1,"loops":{}}` + "\n", `t.jsonl:1: header: "loops": want an array, got an object`, nil, 0},
		{"duplicate loop", `{"format":"reactorviz-trace","version":1,"loops":[{"name":"a","group":"g"},{"name":"a","group":"g"}]}` + "\n", `t.jsonl:1: header: duplicate loop name "a"`, nil, 0},
		{"loop without name", `{"format":"reactorviz-trace","version":1,"loops":[{"group":"g"}]}` + "\n", `t.jsonl:1: header: "loops": loop 0 has no "name"`, nil, 0},
		{"loop unknown field", `{"format":"reactorviz-trace","version":1,"loops":[{"name":"a","tid":3}]}` + "\n", `t.jsonl:1: header: "loops": unknown field "tid"`, nil, 0},
		{"truncated header", hdrLine[:40], "t.jsonl:1: truncated line", ErrTruncated, 0},
		{"header cut in its format", hdrLine[:15], "t.jsonl:1: truncated line", ErrTruncated, 0},
		{"binary without newline", "\x00\x01\x02PK", "t.jsonl:1: not a reactorviz trace: the first line is not a trace header", ErrNotTrace, 0},
		{"header syntax", `{"format":"reactorviz-trace","version":1,}` + "\n", `t.jsonl:1: invalid JSON at column 42: want a key, found '}'`, nil, 0},

		// Event problems: Next fails at the line.
		{"unknown kind", lines(hdrLine, ev1, `{"seq":2,"t":20,"loop":"boss-0","kind":"selct_end"}`), `t.jsonl:3: unknown kind "selct_end"`, nil, 1},
		{"unknown loop", lines(hdrLine, `{"seq":2,"t":20,"loop":"worker-9","kind":"io_begin"}`), `t.jsonl:2: unknown loop "worker-9"`, nil, 0},
		{"unknown field", lines(hdrLine, `{"seq":2,"t":20,"loop":"boss-0","kind":"io_begin","keys":3}`), `t.jsonl:2: unknown field "keys" for io_begin`, nil, 0},
		{"wrong type int", lines(hdrLine, `{"seq":2,"t":20,"loop":"boss-0","kind":"io_end","keys":"3"}`), `t.jsonl:2: field "keys" of io_end: want an integer, got a string`, nil, 0},
		{"fraction", lines(hdrLine, `{"seq":2,"t":20,"loop":"boss-0","kind":"io_end","took_ns":1.5}`), `t.jsonl:2: field "took_ns" of io_end: want an integer, got a fractional number`, nil, 0},
		{"wrong type bool", lines(hdrLine, `{"seq":2,"t":20,"loop":"boss-0","kind":"select_end","premature":1}`), `t.jsonl:2: field "premature" of select_end: want a boolean, got an integer`, nil, 0},
		{"wrong type string", lines(hdrLine, `{"seq":2,"t":20,"loop":"boss-0","kind":"close","reason":null}`), `t.jsonl:2: field "reason" of close: want a string, got null`, nil, 0},
		{"unknown state", lines(hdrLine, `{"seq":2,"t":20,"loop":"boss-0","kind":"state","from":"STARTD"}`), `t.jsonl:2: field "from" of state: unknown state "STARTD"`, nil, 0},
		{"state of wrong type", lines(hdrLine, `{"seq":2,"t":20,"loop":"boss-0","kind":"state","to":true}`), `t.jsonl:2: field "to" of state: want a state name, got a boolean`, nil, 0},
		{"int out of range", lines(hdrLine, `{"seq":2,"t":9223372036854775808,"loop":"boss-0","kind":"io_begin"}`), `t.jsonl:2: field "t": integer out of range`, nil, 0},
		{"huge int", lines(hdrLine, `{"seq":99999999999999999999,"t":1,"loop":"boss-0","kind":"io_begin"}`), `t.jsonl:2: field "seq": integer out of range`, nil, 0},
		{"negative seq", lines(hdrLine, `{"seq":-1,"t":1,"loop":"boss-0","kind":"io_begin"}`), `t.jsonl:2: field "seq": want a non-negative integer`, nil, 0},
		{"missing kind", lines(hdrLine, `{"seq":1,"t":1,"loop":"boss-0"}`), `t.jsonl:2: missing "kind"`, nil, 0},
		{"missing seq", lines(hdrLine, `{"t":1,"loop":"boss-0","kind":"io_begin"}`), `t.jsonl:2: missing "seq"`, nil, 0},
		{"missing t", lines(hdrLine, `{"seq":1,"loop":"boss-0","kind":"io_begin"}`), `t.jsonl:2: missing "t"`, nil, 0},
		{"missing loop", lines(hdrLine, `{"seq":1,"t":1,"kind":"io_begin"}`), `t.jsonl:2: missing "loop"`, nil, 0},
		{"kind not a string", lines(hdrLine, `{"seq":1,"t":1,"loop":"boss-0","kind":7}`), `t.jsonl:2: field "kind": want a string, got an integer`, nil, 0},
		{"duplicate field", lines(hdrLine, `{"seq":1,"seq":2,"t":1,"loop":"boss-0","kind":"io_begin"}`), `t.jsonl:2: duplicate field "seq"`, nil, 0},
		{"too many fields", lines(hdrLine, manyFields(33)), `t.jsonl:2: more than 32 fields`, nil, 0},
		{"not an object", lines(hdrLine, `[1,2]`), `t.jsonl:2: invalid JSON at column 1: want '{', found '['`, nil, 0},
		{"trailing garbage", lines(hdrLine, ev1+`x`), `t.jsonl:2: invalid JSON at column 109: want end of line, found 'x'`, nil, 0},
		{"bad escape", lines(hdrLine, `{"seq":1,"t":1,"loop":"boss-0","kind":"close","reason":"\q"}`), `t.jsonl:2: invalid JSON at column 57: bad escape \q`, nil, 0},
		{"control char", lines(hdrLine, "{\"seq\":1,\"t\":1,\"loop\":\"boss-0\",\"kind\":\"close\",\"reason\":\"\x01\"}"), `t.jsonl:2: invalid JSON at column 57: control character 0x01 in string`, nil, 0},
		{"leading zero", lines(hdrLine, `{"seq":01,"t":1,"loop":"boss-0","kind":"io_begin"}`), `t.jsonl:2: invalid JSON at column 9: number with a leading zero`, nil, 0},
		{"deep nesting", lines(hdrLine, `{"x":`+strings.Repeat("[", 40)+strings.Repeat("]", 40)+`}`), `t.jsonl:2: invalid JSON at column 38: nested deeper than 32 levels`, nil, 0},
		{"line too long", lines(hdrLine, ev1, long), "t.jsonl:3: line longer than 65536 bytes", nil, 1},

		// Truncation.
		{"truncated line", lines(hdrLine, ev1) + ev2[:30], "t.jsonl:3: truncated line", ErrTruncated, 1},
		{"no end line", lines(hdrLine, ev1, ev2), "t.jsonl:4: no end line: the trace was cut short after 2 events", ErrTruncated, 2},
		{"missing event line", lines(hdrLine, ev1, endLn), "t.jsonl:3: end line counts 2 events, the file has 1", nil, 1},
		{"line after end", lines(hdrLine, ev1, ev2, endLn, ev2), "t.jsonl:5: line after the end line", nil, 2},
		{"end line incomplete", lines(hdrLine, `{"end":1,"events":0}`), `t.jsonl:2: end line needs "end", "events", "emitted" and "dropped"`, nil, 0},
		{"end line unknown field", lines(hdrLine, `{"end":1,"events":0,"emitted":0,"dropped":0,"x":1}`), `t.jsonl:2: unknown field "x" in end line`, nil, 0},
		{"end line bad type", lines(hdrLine, `{"end":1,"events":-2,"emitted":0,"dropped":0}`), `t.jsonl:2: field "events": want a non-negative integer`, nil, 0},

		// Loop lines.
		{"add_loop wrong index", lines(hdrLine, `{"add_loop":"wheel","group":"wheel","index":5}`), `t.jsonl:2: add_loop "wheel" has index 5, want 2`, nil, 0},
		{"add_loop duplicate", lines(hdrLine, `{"add_loop":"boss-0","group":"boss","index":2}`), `t.jsonl:2: add_loop: duplicate loop name "boss-0"`, nil, 0},
		{"add_loop empty name", lines(hdrLine, `{"add_loop":"","group":"boss","index":2}`), `t.jsonl:2: add_loop: empty loop name`, nil, 0},
		{"add_loop no index", lines(hdrLine, `{"add_loop":"w","group":"boss"}`), `t.jsonl:2: add_loop line without "index"`, nil, 0},
		{"add_loop no group", lines(hdrLine, `{"add_loop":"w","index":2}`), `t.jsonl:2: add_loop line without "group"`, nil, 0},
		{"add_loop bad field", lines(hdrLine, `{"add_loop":"w","group":"g","index":2,"tid":1}`), `t.jsonl:2: unknown field "tid" in add_loop line`, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadAll(strings.NewReader(tc.input), "t.jsonl")
			if err == nil {
				t.Fatalf("no error, want %s", tc.wantErr)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error\n got %s\nwant %s", err, tc.wantErr)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "t.jsonl" || e.Line < 1 {
				t.Errorf("error %T %v does not name the file and line", err, err)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %v is not %v", err, tc.wantIs)
			}
			got := 0
			if tr != nil {
				got = len(tr.Events)
			}
			if got != tc.wantEvents {
				t.Errorf("read %d events before the error, want %d", got, tc.wantEvents)
			}
		})
	}
}

func TestReaderErrorIsSticky(t *testing.T) {
	rd, err := NewReader(strings.NewReader(lines(hdrLine, `{"seq":1}`, ev1, endLn)), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := rd.Next()
	_, err2 := rd.Next()
	if err1 == nil || err1 != err2 {
		t.Errorf("first %v, then %v", err1, err2)
	}
}

func TestReaderEOFRepeats(t *testing.T) {
	rd, err := NewReader(strings.NewReader(lines(hdrLine, ev1, ev2, endLn)), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 2; i++ {
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("Next = %v, want io.EOF", err)
		}
	}
	if end, ok := rd.End(); !ok || end.Events != 2 {
		t.Errorf("End = %+v, %v", end, ok)
	}
}

func TestReaderIOError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(lines(hdrLine, ev1)), iotest.ErrReader(boom))
	tr, err := ReadAll(r, "io.jsonl")
	if !errors.Is(err, boom) || err.Error() != "io.jsonl:3: read: boom" {
		t.Fatalf("err = %v", err)
	}
	if len(tr.Events) != 1 {
		t.Errorf("read %d events before the error, want 1", len(tr.Events))
	}
}

func TestReaderInternsStrings(t *testing.T) {
	in := lines(hdrLine,
		`{"seq":1,"t":1,"loop":"boss-0","kind":"select_begin","mode":"select_now"}`,
		`{"seq":2,"t":2,"loop":"boss-0","kind":"select_begin","mode":"select_now"}`,
		`{"end":2,"events":2,"emitted":2,"dropped":0}`)
	tr, err := ReadAll(strings.NewReader(in), "i.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	a, b := tr.Events[0].Str, tr.Events[1].Str
	if a != "select_now" || b != "select_now" || unsafeData(a) != unsafeData(b) {
		t.Errorf("strings %q and %q are not shared", a, b)
	}
}

func unsafeData(s string) *byte { return unsafe.StringData(s) }

func manyFields(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\"f%d\":%d,", i, i)
	}
	b.WriteString(`"last":0}`)
	return b.String()
}

func TestHeaderConfigRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Scenario: "s", Model: "multi", Config: "io_ratio=70 rebuild_threshold=64",
		Loops: []trace.LoopInfo{{Name: "boss-0", Group: "boss"}}}, Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(&buf, "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Header().Config; got != "io_ratio=70 rebuild_threshold=64" {
		t.Fatalf("config %q", got)
	}
}
