package jsonl

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// Each order or magnitude rule refuses the first event that breaks it, at
// its line; events within the rules, including one that lags the latest by
// less than MaxTimeSkew, read.
func TestReaderRefusesOrderViolations(t *testing.T) {
	ev := func(seq, tm, bytes string) string {
		return `{"seq":` + seq + `,"t":` + tm + `,"loop":"worker-0","kind":"read","channel":1,"fd":7,"bytes":` + bytes + `}`
	}
	for _, tc := range []struct {
		name  string
		input string
		want  string // "" reads to the end
	}{
		{"in order", lines(hdrLine, ev("1", "10", "5"), ev("2", "10", "5"), ev("5", "11", "0"), `{"end":11,"events":3,"emitted":3,"dropped":0}`), ""},
		{"lags by under the skew", lines(hdrLine, ev("1", "20000000000", "5"), ev("2", "10000000001", "5"), `{"end":20000000000,"events":2,"emitted":2,"dropped":0}`), ""},
		{"reversed", lines(hdrLine, ev("2", "20", "5"), ev("1", "10", "5")), "x.jsonl:3: seq 1 after seq 2: events out of order"},
		{"every seq equal", lines(hdrLine, ev("1", "10", "5"), ev("1", "20", "5")), "x.jsonl:3: seq 1 after seq 1"},
		{"negative t", lines(hdrLine, ev("1", "-4", "5")), "x.jsonl:2: t -4: a time cannot be negative"},
		{"t beyond a year", lines(hdrLine, ev("1", "10", "5"), ev("2", "9000000000000000000", "5")), "x.jsonl:3: t 9000000000000000000: beyond"},
		{"t back by more than the skew", lines(hdrLine, ev("1", "15000000000", "5"), ev("2", "10", "5")), "x.jsonl:3: t 10 is 15.000s before t 15000000000"},
		{"negative bytes", lines(hdrLine, ev("1", "10", "5"), ev("2", "11", "-5")), `x.jsonl:3: field "bytes" of read: -5: want 0..`},
		{"huge count", lines(hdrLine, ev("1", "10", "9223372036854775807")), `x.jsonl:2: field "bytes" of read: 9223372036854775807`},
		{"negative end time", lines(hdrLine, ev("1", "10", "5"), `{"end":-1,"events":1,"emitted":1,"dropped":0}`), `x.jsonl:3: field "end": want 0..`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := NewReader(strings.NewReader(tc.input), "x.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			for err == nil {
				_, err = rd.Next()
			}
			if tc.want == "" {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("got %v, want the whole trace", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tc.want) || errors.Is(err, ErrTruncated) {
				t.Fatalf("got %v, want %q...", err, tc.want)
			}
		})
	}
}
