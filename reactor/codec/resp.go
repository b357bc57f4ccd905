package codec

import "bytes"

// The RESP replies, byte for byte the peers'.
const (
	RESPPong    = "+PONG\r\n"
	RESPUnknown = "-ERR unknown command\r\n"
)

// The answers to refused requests, in the form Redis uses before it closes a
// connection for a protocol error.
const (
	respMalformed = "-ERR Protocol error: malformed request\r\n"
	respTooLarge  = "-ERR Protocol error: request too large\r\n"
)

// minBulk is the size of the smallest array element, "$0\r\n\r\n".
const minBulk = len("$0\r\n\r\n")

// HandleRESP is the Handler for the Redis protocol, just enough of it for
// redis-benchmark's ping_inline and ping_mbulk: PING gets RESPPong, any
// other command RESPUnknown, and the client carries on (redis-benchmark
// sends CONFIG GET first and only warns at the error). closeConn is set only
// with an error.
//
// A request is either an array of bulk strings, "*<n>\r\n" then n times
// "$<len>\r\n<len bytes>\r\n", whose first element names the command
// (case-insensitively), or an inline command: any other line, ending in CRLF
// or a bare LF. As with the peers, an inline line is PING only if it is
// exactly PING, while an array is PING whatever follows its first element;
// an empty inline line is skipped without a reply; and "*0\r\n" is an
// unknown command.
//
// Lengths and counts are decimal digits; a sign, a missing digit, a bare CR,
// an element that is not a bulk string or a bulk string not followed by CRLF
// makes ErrMalformed. The limit bounds a whole request, array or line
// (DefaultLimit if limit <= 0), and so every bulk length, array count and
// line length: a request that is or will be longer makes ErrTooLarge, as
// soon as its declared lengths show it, without waiting for the bytes.
//
// Differences from the peers: they do not check the CRLF after a bulk
// string, and they cap lengths at 16 KiB each rather than the request as a
// whole.
func HandleRESP(in, out []byte, limit int) (consumed, answered int, reply []byte, closeConn bool, err error) {
	return answer(nextRESP, in, out, limit)
}

// AppendRESPError appends the RESP answer to a handler error and returns the
// extended slice: a "-ERR Protocol error" line naming the cause.
func AppendRESPError(out []byte, err error) []byte {
	if err == ErrTooLarge {
		return append(out, respTooLarge...)
	}
	return append(out, respMalformed...)
}

// nextRESP parses the request at the start of b, which is not empty: it
// returns the bytes the request spans and its reply, or n == 0 and no error
// if b holds no complete request yet.
func nextRESP(b []byte, limit int) (int, replyKind, error) {
	w := window(b, limit)
	if w[0] == '*' {
		return respArray(b, w, limit)
	}
	nl := bytes.IndexByte(w, '\n')
	if nl < 0 {
		return needMore(b, limit)
	}
	return nl + 1, inline(trimLine(w[:nl])), nil
}

// inline answers an inline command line.
func inline(line []byte) replyKind {
	switch {
	case len(line) == 0:
		return replyNone
	case isPing(line):
		return replyPong
	}
	return replyUnknown
}

// respArray parses the array at the start of w, b's window.
func respArray(b, w []byte, limit int) (int, replyKind, error) {
	count, p, err := readInt(w, 1, limit)
	if err != nil {
		return 0, replyNone, err
	}
	if p == 0 {
		return needMore(b, limit)
	}
	// Refuse at once a count that cannot fit: each element takes at least
	// minBulk bytes, and p <= limit as p lies in the window.
	if count > (limit-p)/minBulk {
		return 0, replyNone, ErrTooLarge
	}
	r := replyUnknown
	for k := 0; k < count; k++ {
		if p >= len(w) {
			return needMore(b, limit)
		}
		if w[p] != '$' {
			return 0, replyNone, ErrMalformed
		}
		l, q, err := readInt(w, p+1, limit)
		if err != nil {
			return 0, replyNone, err
		}
		if q == 0 {
			return needMore(b, limit)
		}
		end := q + l // the CRLF after the payload; l <= limit, no overflow
		if end+2 > limit {
			return 0, replyNone, ErrTooLarge
		}
		if end+2 > len(w) {
			return needMore(b, limit)
		}
		if w[end] != '\r' || w[end+1] != '\n' {
			return 0, replyNone, ErrMalformed
		}
		if k == 0 && isPing(w[q:end]) {
			r = replyPong
		}
		p = end + 2
	}
	return p, r, nil
}

// readInt parses the decimal number at w[p:] that ends in CRLF: it returns the
// number and the offset past the CRLF, or next == 0 if w ends first. A number
// above limit is refused as soon as its digits show it, so it never grows
// past limit*10+9.
func readInt(w []byte, p, limit int) (v, next int, err error) {
	for i := p; i < len(w); i++ {
		c := w[i]
		switch {
		case '0' <= c && c <= '9':
			v = v*10 + int(c-'0')
			if v > limit {
				return 0, 0, ErrTooLarge
			}
		case c == '\r' && i > p:
			if i+1 == len(w) {
				return 0, 0, nil
			}
			if w[i+1] != '\n' {
				return 0, 0, ErrMalformed
			}
			return v, i + 2, nil
		default:
			return 0, 0, ErrMalformed
		}
	}
	return 0, 0, nil
}

// isPing reports whether s is PING in any case.
func isPing(s []byte) bool {
	return len(s) == 4 && s[0]|0x20 == 'p' && s[1]|0x20 == 'i' && s[2]|0x20 == 'n' && s[3]|0x20 == 'g'
}
