package safetext

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestText(t *testing.T) {
	cases := []struct{ in, text, line string }{
		{"plain", "plain", "plain"},
		{"a\nb\tc", "a\nb\tc", `a\x0ab\x09c`},
		{"evil\x1b]0;PWNED\x07\x1b[2J", `evil\x1b]0;PWNED\x07\x1b[2J`, `evil\x1b]0;PWNED\x07\x1b[2J`},
		{"cr\rdel\x7f", `cr\x0ddel\u007f`, `cr\x0ddel\u007f`},
		{"c1\u009b31m", `c1\u009b31m`, `c1\u009b31m`},
		{"raw\x9bbyte", `raw\x9bbyte`, `raw\x9bbyte`},
		{"µs é 日本", "µs é 日本", "µs é 日本"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if !Safe(Text(c.in)) {
			t.Errorf("Text(%q) is not safe", c.in)
		}
	}
}

// TestTextKeepsJSON: JSON from encoding/json escapes C0 itself but leaves
// DEL and C1 raw; through Text it stays valid and decodes to the same value.
func TestTextKeepsJSON(t *testing.T) {
	in := map[string]string{"s": "a\x1b\u009b\x7fz"}
	b, _ := json.Marshal(in)
	var out map[string]string
	if err := json.Unmarshal([]byte(Text(string(b))), &out); err != nil {
		t.Fatalf("Text made JSON invalid: %v (%s)", err, Text(string(b)))
	}
	if out["s"] != in["s"] {
		t.Fatalf("round trip %q, want %q", out["s"], in["s"])
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := Writer{&buf}
	n, err := w.Write([]byte("x\x1b[2Jy\n"))
	if err != nil || n != 7 {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if buf.String() != "x\\x1b[2Jy\n" {
		t.Fatalf("wrote %q", buf.String())
	}
}
