package codec

import "bytes"

// HandleMixed is the Handler that serves HTTP and RESP on one connection,
// telling them apart for each request as the peers do, so that one server
// can take every bench of the peer harness on one port. A request that
// starts with '*' is a RESP array; otherwise its first line decides: one that
// ends in " HTTP/1.0" or " HTTP/1.1" starts an HTTP request, any other is an
// inline RESP command. Each is then parsed and answered as by HandleHTTP or
// HandleRESP, including their limits, errors and closing rules.
//
// On the peers' own test cases it answers as they do, except that an
// HTTP/1.0 request without keep-alive closes the connection here. An error
// has no answer of its own, since the offending request's protocol may be
// unknown: the peers close without one, and the caller can do the same.
func HandleMixed(in, out []byte, limit int) (consumed, answered int, reply []byte, closeConn bool, err error) {
	return answer(nextMixed, in, out, limit)
}

// nextMixed parses the request, of either protocol, at the start of b, which
// is not empty.
func nextMixed(b []byte, limit int) (int, replyKind, error) {
	w := window(b, limit)
	if w[0] == '*' {
		return respArray(b, w, limit)
	}
	nl := bytes.IndexByte(w, '\n')
	if nl < 0 {
		return needMore(b, limit)
	}
	line := trimLine(w[:nl])
	if isHTTPLine(line) {
		return httpRequest(b, w, line, nl+1, limit)
	}
	return nl + 1, inline(line), nil
}
