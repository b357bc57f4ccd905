package codec

import "bytes"

// The HTTP replies. HTTPResponse is the peers' 78-byte answer, sent to every
// request that leaves the connection open. The other two differ only by a
// Connection header, which tells the client what the server does next
// (RFC 9112 §9.6: a server that closes after a response SHOULD say so).
const (
	HTTPResponse          = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"
	HTTPResponseClose     = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\nConnection: close\r\n\r\nHello, World!"
	HTTPResponseKeepAlive = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\nConnection: keep-alive\r\n\r\nHello, World!"
)

// The answers to refused requests; each closes the connection.
const (
	httpBadRequest = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: close\r\n\r\nBad Request\n"
	httpTooLarge   = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain\r\nContent-Length: 32\r\nConnection: close\r\n\r\nRequest Header Fields Too Large\n"
	httpNoBody     = "HTTP/1.1 413 Content Too Large\r\nContent-Type: text/plain\r\nContent-Length: 28\r\nConnection: close\r\n\r\nRequest bodies not accepted\n"
)

// replyKind says which fixed answer a request gets. One enumeration serves both
// protocols so that HandleMixed can answer either from one table.
type replyKind uint8

const (
	replyNone          replyKind = iota // an empty line: consumed, not answered
	replyHTTP                           // HTTPResponse, connection stays open
	replyHTTPClose                      // HTTPResponseClose, then close
	replyHTTPKeepAlive                  // HTTPResponseKeepAlive (HTTP/1.0 keep-alive)
	replyPong                           // RESPPong
	replyUnknown                        // RESPUnknown
)

var replies = [...]string{
	replyNone:          "",
	replyHTTP:          HTTPResponse,
	replyHTTPClose:     HTTPResponseClose,
	replyHTTPKeepAlive: HTTPResponseKeepAlive,
	replyPong:          RESPPong,
	replyUnknown:       RESPUnknown,
}

// HandleHTTP is the Handler for HTTP/1.1 plaintext: every request gets
// "Hello, World!", in order, on a kept-alive connection, with any number of
// requests pipelined in one read.
//
// A request is a request line ending in " HTTP/1.0" or " HTTP/1.1", header
// lines, and an empty line; lines end in CRLF or a bare LF, as with the peers.
// Empty lines before a request line are skipped (RFC 9112 §2.2). The request
// line must have the form "METHOD SP TARGET SP HTTP/1.x" with a non-empty
// method and a target without spaces; the method and target are not
// otherwise looked at, nor is a Host header required. A header line must
// have a non-empty name, a colon and no space before the colon; a line that
// starts with a space (an obsolete line folding) is refused (RFC 9112 §5.1,
// §5.2). Any other shape makes ErrMalformed, answered 400 by
// AppendHTTPError.
//
// Requests have no body. A Content-Length other than 0, or any
// Transfer-Encoding, makes ErrBody (413) rather than a guess at where the
// body ends: skipping a body would need state across reads (a chunked body
// or one longer than the limit), and answering the body's bytes as requests
// would desynchronise the connection.
//
// The reply is HTTPResponse, the peers' 78 bytes, unless the connection is to
// close: a "close" token in a Connection header, or an HTTP/1.0 request
// without "keep-alive", gets HTTPResponseClose, ends the call with closeConn
// set, and leaves whatever follows unread. An HTTP/1.0 request with
// "keep-alive" gets HTTPResponseKeepAlive, since an HTTP/1.0 client keeps
// the connection only if the response says so.
//
// The limit bounds a request head, from its request line through the empty
// line (DefaultLimit if limit <= 0); a longer one makes ErrTooLarge (431).
//
// Differences from the peers, none of which the benchmarks' wrk requests
// meet: the peers answer any line ending in HTTP/1.x, do not read headers,
// keep every connection open and answer a body's bytes as further input.
func HandleHTTP(in, out []byte, limit int) (consumed, answered int, reply []byte, closeConn bool, err error) {
	return answer(nextHTTP, in, out, limit)
}

// AppendHTTPError appends the HTTP answer to a handler error and returns the
// extended slice: 431 for ErrTooLarge, 413 for ErrBody, 400 for anything
// else. Each says "Connection: close", as the caller closes after it.
func AppendHTTPError(out []byte, err error) []byte {
	switch err {
	case ErrTooLarge:
		return append(out, httpTooLarge...)
	case ErrBody:
		return append(out, httpNoBody...)
	}
	return append(out, httpBadRequest...)
}

// nextHTTP parses the request at the start of b: it returns the bytes the
// request spans and its reply, or n == 0 and no error if b holds no complete
// request yet.
func nextHTTP(b []byte, limit int) (int, replyKind, error) {
	w := window(b, limit)
	nl := bytes.IndexByte(w, '\n')
	if nl < 0 {
		return needMore(b, limit)
	}
	line := trimLine(w[:nl])
	if len(line) == 0 {
		return nl + 1, replyNone, nil
	}
	return httpRequest(b, w, line, nl+1, limit)
}

// httpRequest parses the rest of a request whose request line, line, has been
// found: w is b's window, and the header lines start at w[p]. HandleMixed
// comes in here once it has seen an HTTP request line.
func httpRequest(b, w, line []byte, p, limit int) (int, replyKind, error) {
	http10, ok := requestLine(line)
	if !ok {
		return 0, replyNone, ErrMalformed
	}
	var h headerState
	for {
		// Most heads end after a few short headers, so look for the empty
		// line before paying for a search.
		if p < len(w) && w[p] == '\n' {
			p++
			break
		}
		if p+1 < len(w) && w[p] == '\r' && w[p+1] == '\n' {
			p += 2
			break
		}
		i := bytes.IndexByte(w[p:], '\n')
		if i < 0 {
			return needMore(b, limit)
		}
		line := trimLine(w[p : p+i])
		p += i + 1
		// A bad header fails the request as soon as its line is complete,
		// before the head is: the verdict depends only on bytes already
		// seen, so it is the same however reads split the stream.
		if err := h.parse(line); err != nil {
			return 0, replyNone, err
		}
	}
	switch {
	case h.close || (http10 && !h.keepAlive):
		return p, replyHTTPClose, nil
	case http10:
		return p, replyHTTPKeepAlive, nil
	}
	return p, replyHTTP, nil
}

// isHTTPLine reports whether line ends in " HTTP/1.0" or " HTTP/1.1", the
// peers' test for an HTTP request.
func isHTTPLine(line []byte) bool {
	n := len(line)
	return n >= 9 && string(line[n-9:n-1]) == " HTTP/1." && (line[n-1] == '1' || line[n-1] == '0')
}

// requestLine checks that line is "METHOD SP TARGET SP HTTP/1.x" and reports
// whether the version is 1.0.
func requestLine(line []byte) (http10, ok bool) {
	if !isHTTPLine(line) {
		return false, false
	}
	// Methods and targets are short, so plain loops beat the call overhead
	// of bytes.IndexByte here; each stops at the first space.
	end := len(line) - len(" HTTP/1.x")
	sp := 0
	for sp < end && line[sp] != ' ' {
		sp++
	}
	if sp == 0 || sp+1 >= end {
		return false, false // no method, or no target
	}
	for _, c := range line[sp+1 : end] {
		if c == ' ' {
			return false, false
		}
	}
	return line[len(line)-1] == '0', true
}

// headerState gathers what the headers of one request say about the
// connection.
type headerState struct {
	close     bool // a Connection header lists "close"
	keepAlive bool // a Connection header lists "keep-alive"
}

// parse checks one header line (without its line ending) and records what it
// says. Only three names matter; the others are checked for shape and
// skipped.
func (h *headerState) parse(line []byte) error {
	// The empty line ends the head before parse is called; the length test
	// only keeps line[0] safe. A leading space is an obsolete line folding,
	// which a server may refuse (RFC 9112 §5.2).
	if len(line) == 0 || isSpace(line[0]) {
		return ErrMalformed
	}
	// Header names are short: a plain loop finds the colon sooner than a
	// call to bytes.IndexByte.
	colon := 0
	for colon < len(line) && line[colon] != ':' {
		colon++
	}
	if colon == 0 || colon == len(line) || isSpace(line[colon-1]) {
		return ErrMalformed // RFC 9112 §5.1: no space between name and colon
	}
	name, value := line[:colon], line[colon+1:]
	// Switching on the length first keeps the common headers (Host,
	// User-Agent, Accept) to one comparison of integers.
	switch len(name) {
	case len("connection"):
		if equalFold(name, "connection") {
			h.connection(value)
		}
	case len("content-length"):
		if equalFold(name, "content-length") {
			return contentLength(value)
		}
	case len("transfer-encoding"):
		if equalFold(name, "transfer-encoding") {
			return ErrBody
		}
	}
	return nil
}

// connection records the options of a Connection header value, a
// comma-separated list of case-insensitive tokens (RFC 9110 §7.6.1).
func (h *headerState) connection(v []byte) {
	for len(v) > 0 {
		tok := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			tok, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		tok = trimSpace(tok)
		switch {
		case equalFold(tok, "close"):
			h.close = true
		case equalFold(tok, "keep-alive"):
			h.keepAlive = true
		}
	}
}

// contentLength checks a Content-Length value: digits only (RFC 9110 §8.6),
// and zero, since no body is accepted. The digits are not summed, so no
// value can overflow.
func contentLength(v []byte) error {
	v = trimSpace(v)
	if len(v) == 0 {
		return ErrMalformed
	}
	zero := true
	for _, c := range v {
		if c < '0' || c > '9' {
			return ErrMalformed
		}
		zero = zero && c == '0'
	}
	if !zero {
		return ErrBody
	}
	return nil
}

// trimSpace removes optional whitespace (SP, HTAB) around a header value or
// list element.
func trimSpace(v []byte) []byte {
	for len(v) > 0 && isSpace(v[0]) {
		v = v[1:]
	}
	for len(v) > 0 && isSpace(v[len(v)-1]) {
		v = v[:len(v)-1]
	}
	return v
}
