// Package codec holds the request parsers and responders of the protocols the
// reactor serves to outside clients: echo, HTTP/1.1 plaintext (curl, wrk) and
// RESP PING (redis-benchmark). It knows nothing of the engine: a handler is a
// pure function from the bytes a connection has received to the replies it
// owes, so the same code runs under the epoll loops, in tests and in fuzzing.
//
// Every handler has the shape of Handler. It answers as many complete requests
// as in holds, appending one reply per request to out, and reports how many
// bytes it consumed; the caller keeps in[consumed:], the start of a request
// not yet complete, and presents it again, followed by the next read. Handlers
// keep no state between calls and never allocate when out has room, so a
// connection costs its buffers and nothing else.
//
// The request rules are those of the baseline peers the project is measured
// against (a bare C epoll server among them), so a benchmark compares the same
// work: the fixed replies are byte for byte the peers' replies, and requests
// are recognised the same way. The handlers are stricter about malformed input
// and bounded by a per-request size limit; the differences are listed at
// HandleHTTP, HandleRESP and HandleMixed.
//
// A handler's cost is linear in the bytes it looks at. An incomplete request
// is parsed again from its start on every call, so a client that sends its
// request a byte at a time costs at most limit²/2 byte steps before the
// request completes or is refused; the limit bounds that work as well as the
// memory.
package codec

import "errors"

// Sentinel errors. A handler returns one of these values itself, never a
// wrapped copy, so comparing with == is enough and returning one allocates
// nothing.
var (
	// ErrMalformed: the request breaks the protocol's syntax.
	ErrMalformed = errors.New("codec: malformed request")
	// ErrTooLarge: the request is, or will be once complete, longer than the
	// size limit.
	ErrTooLarge = errors.New("codec: request exceeds the size limit")
	// ErrBody: an HTTP request announces a body (Content-Length > 0 or any
	// Transfer-Encoding), which this server does not accept.
	ErrBody = errors.New("codec: HTTP request bodies are not supported")
)

// DefaultLimit is the size limit a handler applies when given limit <= 0:
// 16 KiB per request, as the peers cap theirs.
const DefaultLimit = 16 << 10

// MaxLimit is the largest limit a handler honours; a larger one is lowered to
// it. It keeps every length and count the parsers compute far from overflow,
// on 32-bit platforms too.
const MaxLimit = 64 << 20

// Handler is the shape every protocol handler has.
//
// It parses the complete requests at the start of in, appends one reply for
// each (none for a bare empty line) to out and returns the extended slice as
// reply. out is reused in place when it has room, as append does, so it must
// not share memory with in; in is only read. consumed is how many bytes of
// in those requests spanned; in[consumed:] is an incomplete request, shorter
// than the limit, that the caller keeps and presents again with the next
// read. answered is how many replies it appended (echo has no requests and
// answers 0), for a server that reports its requests per second.
//
// closeConn reports that the connection must be closed once reply has been
// written: the client asked for it, or err is set. On an error, consumed is
// where the offending request starts, reply holds the replies of all the
// requests before it, and the caller may append an error reply
// (AppendHTTPError, AppendRESPError) before writing and closing.
//
// limit bounds one request in bytes; limit <= 0 means DefaultLimit. A request
// longer than limit is refused with ErrTooLarge, whether it arrived whole or
// in pieces, so the outcome never depends on how reads split the stream.
type Handler func(in, out []byte, limit int) (consumed, answered int, reply []byte, closeConn bool, err error)

// Compile-time checks that every handler has the Handler shape.
var (
	_ Handler = HandleEcho
	_ Handler = HandleHTTP
	_ Handler = HandleRESP
	_ Handler = HandleMixed
)

// HandleEcho answers every byte with itself: it consumes all of in and
// appends it to out. It has no requests, so limit is unused. The engine may
// as well write in back directly; this form exists so echo fits Handler.
func HandleEcho(in, out []byte, _ int) (consumed, answered int, reply []byte, closeConn bool, err error) {
	return len(in), 0, append(out, in...), false, nil
}

// answer is the loop every protocol handler shares: parse the next request
// with next, append its fixed reply, and stop at an incomplete request, an
// error, or a reply that closes the connection. next sees a non-empty b and
// returns the bytes the request spans (0: incomplete) and its reply.
func answer(next func(b []byte, limit int) (int, replyKind, error), in, out []byte, limit int) (consumed, answered int, reply []byte, closeConn bool, err error) {
	limit = effectiveLimit(limit)
	for consumed < len(in) {
		n, r, perr := next(in[consumed:], limit)
		if perr != nil {
			return consumed, answered, out, true, perr
		}
		if n == 0 {
			break
		}
		consumed += n
		if r != replyNone {
			answered++
		}
		out = append(out, replies[r]...)
		if r == replyHTTPClose {
			return consumed, answered, out, true, nil
		}
	}
	return consumed, answered, out, false, nil
}

// effectiveLimit maps a caller's limit onto the range the parsers support.
func effectiveLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultLimit
	case limit > MaxLimit:
		return MaxLimit
	}
	return limit
}

// window is the part of b a request may occupy: its first limit bytes.
// Parsing only inside it makes every decision depend on those bytes alone,
// never on how much more has arrived, which keeps the result the same however
// reads split the stream.
func window(b []byte, limit int) []byte {
	if len(b) > limit {
		return b[:limit]
	}
	return b
}

// needMore is the verdict when the window ends before the request does: the
// request is incomplete (0) if more input may still complete it within the
// limit, or too large if the window is full.
func needMore(b []byte, limit int) (int, replyKind, error) {
	if len(b) >= limit {
		return 0, replyNone, ErrTooLarge
	}
	return 0, replyNone, nil
}

// isSpace reports whether c is optional whitespace (SP or HTAB) in the sense
// of RFC 9110 §5.6.3.
func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// equalFold reports whether s equals lower, a lower-case ASCII pattern,
// ignoring the case of ASCII letters in s. Only 'A'-'Z' are folded, so no
// other byte can pass for a letter or for '-'.
func equalFold(s []byte, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// trimLine returns line without the CR that may precede its LF: like the
// peers (and RFC 9112 §2.2), a bare LF ends a line too.
func trimLine(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}
