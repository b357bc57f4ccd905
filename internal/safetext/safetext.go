// Package safetext neutralises text read from files before it reaches a
// terminal. Trace files and scenarios are shared, so a loop name, a caption
// or an error quoting a file may hold terminal control sequences: ESC [ 2 J
// clears the screen, OSC 0 sets the window title, OSC 52 writes the
// clipboard on terminals that allow it. Printed raw, a file would drive the
// reader's terminal.
//
// Every control character becomes a visible escape, in the form Go uses in
// string literals: C0 controls (U+0000–U+001F) and bytes that are not UTF-8
// as \xHH, DEL and the C1 controls (U+007F–U+009F, which some terminals take
// as 8-bit CSI, OSC, ...) as \u00HH. The \u form is also a valid JSON escape
// for the same rune, so JSON passed through Text stays valid and decodes to
// what it said. Text keeps line feeds and tabs (multi-line output); Line
// escapes them too, for a value that must stay on its line.
package safetext

import (
	"io"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// Text returns s with every control character except '\n' and '\t' escaped.
func Text(s string) string { return escape(s, false) }

// Line returns s with every control character escaped, line feeds and tabs
// included: a name or message from a file stays on one line.
func Line(s string) string { return escape(s, true) }

// Safe reports whether s prints as itself in multi-line text.
func Safe(s string) bool { return clean(s, false) }

func clean(s string, line bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && (line || (c != '\n' && c != '\t')) || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r <= 0x9f {
				return false
			}
			i += n - 1
		}
	}
	return true
}

func escape(s string, line bool) string {
	if clean(s, line) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < 0x20 && (line || (c != '\n' && c != '\t')):
			b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			i++
		case c == 0x7f:
			b = append(b, `\u007f`...)
			i++
		case c < 0x80:
			b = append(b, c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			case r <= 0x9f:
				b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&15])
			default:
				b = append(b, s[i:i+n]...)
			}
			i += n
		}
	}
	return string(b)
}

// Writer passes what is written to it through Text. A multi-byte character
// split between two writes would be escaped as two invalid bytes: callers
// write whole lines or whole formatted values (fmt does), which never split
// one.
type Writer struct{ W io.Writer }

// Write writes Text(p) and reports len(p) when that succeeded.
func (w Writer) Write(p []byte) (int, error) {
	s := string(p)
	if clean(s, false) {
		return w.W.Write(p)
	}
	if _, err := io.WriteString(w.W, Text(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
