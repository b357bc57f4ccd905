package jsonl

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReader feeds arbitrary bytes to the reader. It must never panic; every
// error must be an *Error naming the file and a line; and whatever it accepts
// must survive a write and a second read unchanged.
func FuzzReader(f *testing.F) {
	f.Add([]byte(lines(hdrLine, ev1, ev2, endLn)))
	f.Add([]byte(lines(hdrLine, `{"add_loop":"wheel","group":"wheel","index":2}`, `{"seq":1,"t":1,"loop":"wheel","kind":"wheel_tick","tick":4}`, `{"end":1,"events":1,"emitted":1,"dropped":0}`)))
	f.Add([]byte(lines(hdrLine, ev1) + ev2[:30]))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadAll(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || !strings.HasPrefix(err.Error(), "fuzz.jsonl:") {
				t.Fatalf("error without a line: %T %v", err, err)
			}
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
