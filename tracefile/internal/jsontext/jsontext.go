// Package jsontext writes JSON string literals for the trace file writers,
// by hand and without allocating, so writing an event costs no reflection.
package jsontext

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string literal, cut to at most limit
// bytes of s on a rune boundary, so a writer can bound its line length.
// Invalid UTF-8 becomes U+FFFD, as JSON text must be UTF-8.
func AppendString(dst []byte, s string, limit int) []byte {
	s = Cut(s, limit)
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// Cut returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	// Back up over continuation bytes (at most utf8.UTFMax-1 of them) so the
	// cut lands on the first byte of a rune.
	for j := 0; j < utf8.UTFMax && i > 0 && !utf8.RuneStart(s[i]); j++ {
		i--
	}
	return s[:i]
}
