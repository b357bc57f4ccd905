package jsonl

import "github.com/reactorviz/reactorviz/tracefile/internal/jsontext"

// appendString appends s as a JSON string literal, cut to at most limit bytes
// of s on a rune boundary. The cut keeps every line under MaxLineBytes, so a
// file the writer produced is always one the reader accepts.
func appendString(dst []byte, s string, limit int) []byte {
	return jsontext.AppendString(dst, s, limit)
}

// cutString returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func cutString(s string, n int) string { return jsontext.Cut(s, n) }
