package jsonl

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// The reader parses lines with this small scanner rather than encoding/json:
// trace lines are flat objects of strings, integers and booleans, and a
// scanner that knows it can report "want an integer, got a string" with the
// key, keep int64 exact, and decode an event without allocating.

// valKind is the JSON type of a scanned value.
type valKind uint8

const (
	vString valKind = iota
	vInt            // an integer literal: no fraction, no exponent
	vNumber         // any other number
	vBool
	vNull
	vObject
	vArray
)

var valKindNames = [...]string{
	vString: "a string",
	vInt:    "an integer",
	vNumber: "a fractional number",
	vBool:   "a boolean",
	vNull:   "null",
	vObject: "an object",
	vArray:  "an array",
}

func (k valKind) String() string { return valKindNames[k] }

// value is one scanned scalar. Objects and arrays are skipped and only their
// kind is kept.
type value struct {
	kind     valKind
	str      []byte // vString: the decoded text
	neg      bool   // vInt: sign
	mag      uint64 // vInt: magnitude
	overflow bool   // vInt: magnitude beyond uint64
	b        bool   // vBool
}

// int64 returns the value as an int64, or a message saying why it is not one.
func (v *value) int64() (int64, string) {
	switch {
	case v.kind != vInt:
		return 0, "want an integer, got " + v.kind.String()
	case v.overflow,
		!v.neg && v.mag > 1<<63-1,
		v.neg && v.mag > 1<<63:
		return 0, "integer out of range"
	case v.neg:
		return -int64(v.mag-1) - 1, "" // -(mag) without overflowing at -2^63
	}
	return int64(v.mag), ""
}

// uint64 returns the value as a non-negative integer.
func (v *value) uint64() (uint64, string) {
	switch {
	case v.kind != vInt:
		return 0, "want an integer, got " + v.kind.String()
	case v.overflow:
		return 0, "integer out of range"
	case v.neg && v.mag != 0:
		return 0, "want a non-negative integer"
	}
	return v.mag, ""
}

// syntaxError is a malformed line; col is 1-based.
type syntaxError struct {
	col int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at column %d: %s", e.col, e.msg)
}

// maxDepth bounds the nesting of skipped objects and arrays; deeper input is
// refused rather than walked.
const maxDepth = 32

type scanner struct {
	b []byte
	p int
}

func (s *scanner) ws() {
	for s.p < len(s.b) {
		switch s.b[s.p] {
		case ' ', '\t', '\r', '\n':
			s.p++
		default:
			return
		}
	}
}

func (s *scanner) errf(format string, args ...any) *syntaxError {
	return &syntaxError{col: s.p + 1, msg: fmt.Sprintf(format, args...)}
}

// unexpected describes the byte at the cursor for an error.
func (s *scanner) unexpected(want string) *syntaxError {
	if s.p >= len(s.b) {
		return s.errf("want %s, found end of line", want)
	}
	c := s.b[s.p]
	if c < 0x20 || c >= utf8.RuneSelf {
		return s.errf("want %s, found byte 0x%02x", want, c)
	}
	return s.errf("want %s, found %q", want, c)
}

// object scans `{"key": value, ...}` calling member for each key with the
// cursor on its value; member must consume the value. It then requires the
// end of the line.
func (s *scanner) object(member func(key []byte) error) error {
	s.ws()
	if s.p >= len(s.b) || s.b[s.p] != '{' {
		return s.unexpected("'{'")
	}
	if err := s.members(member); err != nil {
		return err
	}
	s.ws()
	if s.p < len(s.b) {
		return s.unexpected("end of line")
	}
	return nil
}

// members scans an object whose '{' is at the cursor.
func (s *scanner) members(member func(key []byte) error) error {
	s.p++ // '{'
	s.ws()
	if s.p < len(s.b) && s.b[s.p] == '}' {
		s.p++
		return nil
	}
	for {
		s.ws()
		if s.p >= len(s.b) || s.b[s.p] != '"' {
			return s.unexpected("a key")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if s.p >= len(s.b) || s.b[s.p] != ':' {
			return s.unexpected("':'")
		}
		s.p++
		s.ws()
		if err := member(key); err != nil {
			return err
		}
		s.ws()
		if s.p >= len(s.b) {
			return s.unexpected("',' or '}'")
		}
		switch s.b[s.p] {
		case ',':
			s.p++
		case '}':
			s.p++
			return nil
		default:
			return s.unexpected("',' or '}'")
		}
	}
}

// elements scans an array whose '[' is at the cursor, calling elem with the
// cursor on each element.
func (s *scanner) elements(elem func() error) error {
	s.p++ // '['
	s.ws()
	if s.p < len(s.b) && s.b[s.p] == ']' {
		s.p++
		return nil
	}
	for {
		s.ws()
		if err := elem(); err != nil {
			return err
		}
		s.ws()
		if s.p >= len(s.b) {
			return s.unexpected("',' or ']'")
		}
		switch s.b[s.p] {
		case ',':
			s.p++
		case ']':
			s.p++
			return nil
		default:
			return s.unexpected("',' or ']'")
		}
	}
}

// value scans any JSON value into v; objects and arrays are skipped.
func (s *scanner) value(v *value) error {
	*v = value{}
	if s.p >= len(s.b) {
		return s.unexpected("a value")
	}
	switch c := s.b[s.p]; {
	case c == '"':
		str, err := s.str()
		v.kind, v.str = vString, str
		return err
	case c == '-' || c >= '0' && c <= '9':
		return s.number(v)
	case c == '{' || c == '[':
		v.kind = vObject
		if c == '[' {
			v.kind = vArray
		}
		return s.skip(0)
	}
	for _, lit := range [...]struct {
		text string
		kind valKind
		b    bool
	}{{"true", vBool, true}, {"false", vBool, false}, {"null", vNull, false}} {
		if len(s.b)-s.p >= len(lit.text) && string(s.b[s.p:s.p+len(lit.text)]) == lit.text {
			s.p += len(lit.text)
			v.kind, v.b = lit.kind, lit.b
			return nil
		}
	}
	return s.unexpected("a value")
}

// skip passes over the value at the cursor, refusing nesting beyond maxDepth.
func (s *scanner) skip(depth int) error {
	if depth >= maxDepth {
		return s.errf("nested deeper than %d levels", maxDepth)
	}
	if s.p >= len(s.b) {
		return s.unexpected("a value")
	}
	switch s.b[s.p] {
	case '{':
		return s.members(func([]byte) error { return s.skip(depth + 1) })
	case '[':
		return s.elements(func() error { return s.skip(depth + 1) })
	}
	var v value
	return s.value(&v)
}

// number scans a JSON number. Integers keep their exact magnitude; anything
// with a fraction or exponent is only checked for grammar.
func (s *scanner) number(v *value) error {
	v.kind = vInt
	if s.b[s.p] == '-' {
		v.neg = true
		s.p++
	}
	if s.p >= len(s.b) || s.b[s.p] < '0' || s.b[s.p] > '9' {
		return s.unexpected("a digit")
	}
	if s.b[s.p] == '0' {
		s.p++
		if s.p < len(s.b) && s.b[s.p] >= '0' && s.b[s.p] <= '9' {
			return s.errf("number with a leading zero")
		}
	} else {
		for s.p < len(s.b) && s.b[s.p] >= '0' && s.b[s.p] <= '9' {
			d := uint64(s.b[s.p] - '0')
			if v.mag > (1<<64-1-d)/10 {
				v.overflow = true
			}
			v.mag = v.mag*10 + d
			s.p++
		}
	}
	if s.p < len(s.b) && s.b[s.p] == '.' {
		v.kind = vNumber
		s.p++
		if err := s.digits(); err != nil {
			return err
		}
	}
	if s.p < len(s.b) && (s.b[s.p] == 'e' || s.b[s.p] == 'E') {
		v.kind = vNumber
		s.p++
		if s.p < len(s.b) && (s.b[s.p] == '+' || s.b[s.p] == '-') {
			s.p++
		}
		if err := s.digits(); err != nil {
			return err
		}
	}
	return nil
}

func (s *scanner) digits() error {
	start := s.p
	for s.p < len(s.b) && s.b[s.p] >= '0' && s.b[s.p] <= '9' {
		s.p++
	}
	if s.p == start {
		return s.unexpected("a digit")
	}
	return nil
}

// str scans a string literal at the cursor. Without escapes the result
// aliases the line; with escapes it is decoded into a new slice.
func (s *scanner) str() ([]byte, error) {
	s.p++ // opening quote
	start := s.p
	for s.p < len(s.b) {
		c := s.b[s.p]
		switch {
		case c == '"':
			out := s.b[start:s.p]
			s.p++
			return out, nil
		case c == '\\':
			return s.strEscaped(start)
		case c < 0x20:
			return nil, s.errf("control character 0x%02x in string", c)
		}
		s.p++
	}
	return nil, s.errf("unterminated string")
}

// strEscaped decodes the rest of a string that holds an escape; start is
// where its text begins.
func (s *scanner) strEscaped(start int) ([]byte, error) {
	out := append([]byte(nil), s.b[start:s.p]...)
	for s.p < len(s.b) {
		c := s.b[s.p]
		switch {
		case c == '"':
			s.p++
			return out, nil
		case c < 0x20:
			return nil, s.errf("control character 0x%02x in string", c)
		case c != '\\':
			out = append(out, c)
			s.p++
			continue
		}
		if s.p+1 >= len(s.b) {
			return nil, s.errf("unterminated string")
		}
		e := s.b[s.p+1]
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4(s.p + 2)
			if !ok {
				return nil, s.errf(`bad \u escape`)
			}
			s.p += 6
			if utf16.IsSurrogate(r) {
				// A surrogate pair spells one rune in two escapes; a lone
				// half becomes U+FFFD, as encoding/json decodes it.
				if r2, ok := s.hex4(s.p + 2); ok && s.p+1 < len(s.b) && s.b[s.p] == '\\' && s.b[s.p+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						s.p += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			if e < 0x20 || e >= 0x7f {
				// Not printable: a message must not carry a control byte.
				return nil, s.errf("bad escape: backslash then byte 0x%02x", e)
			}
			return nil, s.errf("bad escape \\%c", e)
		}
		s.p += 2
	}
	return nil, s.errf("unterminated string")
}

// hex4 reads four hex digits at i.
func (s *scanner) hex4(i int) (rune, bool) {
	if i+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
