package jsonl

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// FuzzReader feeds arbitrary bytes to the reader. It must never panic; every
// error must be an *Error naming the file and a line; and whatever it accepts
// must survive a write and a second read unchanged.
func FuzzReader(f *testing.F) {
	f.Add([]byte(lines(hdrLine, ev1, ev2, endLn)))
	f.Add([]byte(lines(hdrLine, `{"add_loop":"wheel","group":"wheel","index":2}`, `{"seq":1,"t":1,"loop":"wheel","kind":"wheel_tick","tick":4}`, `{"end":1,"events":1,"emitted":1,"dropped":0}`)))
	f.Add([]byte(lines(hdrLine, ev1) + ev2[:30]))
	f.Add([]byte(""))
	// Terminal escapes in every string field: header names, loop and group
	// names, add_loop, an event's string, raw and \u-escaped.
	const esc = `\u001b]0;PWNED\u0007\u001b[2J\r\u009b31m`
	f.Add([]byte(lines(`{"format":"reactorviz-trace","version":2,"scenario":"sc`+esc+`","model":"m`+esc+`","config":"c`+esc+`","started":"2026-01-02T15:04:05Z","loops":[{"name":"w`+esc+`","group":"g`+esc+`"}]}`,
		`{"add_loop":"x`+esc+`","group":"y`+esc+`","index":1}`,
		`{"seq":1,"t":1,"loop":"w`+esc+`","kind":"select_begin","timeout_ns":1,"mode":"s`+esc+`"}`,
		`{"seq":2,"t":2,"loop":"x`+esc+`","kind":"close","channel":1,"fd":3,"reason":"\u001b[31m"}`,
		`{"end":2,"events":2,"emitted":2,"dropped":0}`)))
	f.Add([]byte(lines(hdrLine, "{\"seq\":1,\"t\":1,\"loop\":\"\x1b[2J\",\"kind\":\"x\x07\"}")))
	// Order, seq and time violations.
	f.Add([]byte(lines(hdrLine, ev2, ev1, endLn)))
	f.Add([]byte(lines(hdrLine, ev1, ev1, endLn)))
	f.Add([]byte(lines(hdrLine, `{"seq":1,"t":-5,"loop":"boss-0","kind":"io_begin"}`)))
	f.Add([]byte(lines(hdrLine, `{"seq":1,"t":9000000000000000000,"loop":"boss-0","kind":"io_begin"}`)))
	f.Add([]byte(lines(hdrLine, `{"seq":1,"t":20000000000,"loop":"boss-0","kind":"io_begin"}`, `{"seq":2,"t":1,"loop":"boss-0","kind":"io_begin"}`)))
	f.Add([]byte(lines(hdrLine, `{"seq":1,"t":1,"loop":"boss-0","kind":"read","channel":1,"fd":1,"bytes":-7}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadAll(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Fatalf("error without a line: %T %v", err, err)
			}
			// A message quotes the file; it must not carry its control
			// characters (a terminal would act on them).
			if strings.ContainsFunc(err.Error(), unicode.IsControl) {
				t.Fatalf("error with a raw control character: %q", err.Error())
			}
		}
		if tr != nil {
			checkOrder(t, tr)
		}
		if err != nil {
			return
		}
		if !writable(tr) {
			return
		}
		var buf bytes.Buffer
		w := NewWriter(&buf, tr.Header, Options{})
		w.Consume(tr.Events)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := ReadAll(&buf, "again.jsonl")
		if err != nil {
			t.Fatalf("rewritten trace does not read: %v\n%s", err, buf.Bytes())
		}
		if !headerEqual(again.Header, tr.Header) || len(again.Events) != len(tr.Events) {
			t.Fatalf("header or count changed:\n%+v\n%+v", again.Header, tr.Header)
		}
		for i := range tr.Events {
			if again.Events[i] != tr.Events[i] {
				t.Fatalf("event %d changed: %+v, then %+v", i, tr.Events[i], again.Events[i])
			}
		}
	})
}

// checkOrder asserts the rules of order.go on what the reader let through.
func checkOrder(t *testing.T, tr *Trace) {
	t.Helper()
	var latest int64
	for i, e := range tr.Events {
		if i > 0 && e.Seq <= tr.Events[i-1].Seq || e.Time < 0 || e.Time > MaxTime || i > 0 && e.Time < latest-MaxTimeSkew {
			t.Fatalf("event %d out of order or range: %+v after %+v", i, e, tr.Events[max(i-1, 0)])
		}
		latest = max(latest, e.Time)
		for _, f := range e.Fields(nil) {
			if f.Type == trace.FieldInt && !f.State && countFields[f.Name] && (f.Int < 0 || f.Int > MaxTime) {
				t.Fatalf("event %d: %s = %d", i, f.Name, f.Int)
			}
		}
	}
}

// writable reports whether the writer keeps tr as it is: it cuts long strings
// and replaces invalid UTF-8, which the reader lets through.
func writable(tr *Trace) bool {
	ok := func(s string, limit int) bool { return len(s) <= limit && utf8.ValidString(s) }
	if !ok(tr.Header.Scenario, MaxNameBytes) || !ok(tr.Header.Model, MaxNameBytes) || tr.Header.Started.Year() > 9999 || tr.Header.Started.Year() < 0 {
		return false
	}
	for _, l := range tr.Header.Loops {
		if !ok(l.Name, MaxNameBytes) || !ok(l.Group, MaxNameBytes) {
			return false
		}
	}
	for _, e := range tr.Events {
		if !ok(e.Str, MaxStringBytes) {
			return false
		}
	}
	return true
}
