package codec

import (
	"strings"
	"testing"
)

// TestMixedPeerCases runs the peers' own parser cases (go/proto/proto_test.go
// in the peer harness, also run by the C peer's -test): for the request at
// the start of the input, the bytes it spans and its reply must be the
// peers'. Two answers differ by design: the peers' n < 0 (malformed, close)
// is ErrMalformed here, and an HTTP/1.0 request without keep-alive gets the
// reply that announces the close.
func TestMixedPeerCases(t *testing.T) {
	get := "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
	cases := []struct {
		name  string
		in    string
		n     int
		reply string
		err   error
	}{
		{name: "two gets", in: get + get, n: len(get), reply: HTTPResponse},
		{name: "http 1.0", in: "GET / HTTP/1.0\r\n\r\n", n: 18, reply: HTTPResponseClose},
		{name: "http incomplete", in: "GET / HTTP/1.1\r\nHost: a\r\n"},
		{name: "two pings", in: "PING\r\nPING\r\n", n: 6, reply: RESPPong},
		{name: "ping LF", in: "ping\n", n: 5, reply: RESPPong},
		{name: "empty line", in: "\r\n", n: 2},
		{name: "inline incomplete", in: "PIN"},
		{name: "unknown inline", in: "FOO\r\n", n: 5, reply: RESPUnknown},
		{name: "array then more", in: "*1\r\n$4\r\nPING\r\n*1", n: 14, reply: RESPPong},
		{name: "array incomplete", in: "*1\r\n$4\r\nPIN"},
		{name: "config get", in: "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nsave\r\n", n: 35, reply: RESPUnknown},
		{name: "bad count", in: "*x\r\n", err: ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, r, err := nextMixed([]byte(tc.in), DefaultLimit)
			if n != tc.n || replies[r] != tc.reply || err != tc.err {
				t.Errorf("nextMixed(%q) = %d, %q, %v; want %d, %q, %v", tc.in, n, replies[r], err, tc.n, tc.reply, tc.err)
			}
		})
	}
}

func mixedCases() []handlerCase {
	return []handlerCase{
		{
			name: "interleaved", in: wrkGet + pingInline + pingMbulk + "\r\n" + curlGet + configGet,
			want:     []string{HTTPResponse, RESPPong, RESPPong, HTTPResponse, RESPUnknown},
			consumed: len(wrkGet) + 6 + 14 + 2 + len(curlGet) + 35,
		},
		{name: "http pipelined 16", in: repeat(wrkGet, 16), want: fill(HTTPResponse, 16), consumed: 16 * len(wrkGet)},
		{name: "inline lines that are not HTTP", in: "GET /\r\nHost: a\r\n", want: fill(RESPUnknown, 2), consumed: 16},
		{name: "http close", in: "GET / HTTP/1.1\r\nConnection: close\r\n\r\n" + pingInline, want: []string{HTTPResponseClose}, consumed: 37, close: true},
		{name: "http malformed", in: pingInline + "GET  / HTTP/1.1\r\n\r\n", want: []string{RESPPong}, consumed: 6, err: ErrMalformed},
		{name: "http body", in: "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", err: ErrBody},
		{name: "http too large", in: "GET / HTTP/1.1\r\nX: " + strings.Repeat("a", 64), limit: 64, err: ErrTooLarge},
		{name: "array too large", in: "*1\r\n$64\r\n", limit: 64, err: ErrTooLarge},
		{name: "partial http", in: pingInline + "GET / HTTP/1.1\r\n", want: []string{RESPPong}, consumed: 6},
	}
}

func TestHandleMixed(t *testing.T) { checkCases(t, HandleMixed, mixedCases()) }
func TestMixedSplit(t *testing.T)  { checkSplits(t, HandleMixed, mixedCases()) }
