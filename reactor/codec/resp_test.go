package codec

import (
	"strings"
	"testing"
)

// Requests as redis-benchmark sends them.
const (
	pingInline = "PING\r\n"
	pingMbulk  = "*1\r\n$4\r\nPING\r\n"
	configGet  = "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nsave\r\n"
)

func respCases() []handlerCase {
	return []handlerCase{
		{name: "empty", in: ""},
		{name: "inline", in: pingInline, want: []string{RESPPong}, consumed: 6},
		{name: "inline lower case", in: "ping\r\n", want: []string{RESPPong}, consumed: 6},
		{name: "inline LF only", in: "PiNg\n", want: []string{RESPPong}, consumed: 5},
		{name: "inline pipelined 16", in: repeat(pingInline, 16), want: fill(RESPPong, 16), consumed: 16 * 6},
		{name: "inline partial", in: "PIN"},
		{name: "inline partial CR", in: "PING\r"},
		{name: "inline with argument", in: "PING hello\r\n", want: []string{RESPUnknown}, consumed: 12},
		{name: "inline trailing space", in: "PING \r\n", want: []string{RESPUnknown}, consumed: 7},
		{name: "inline unknown", in: "FOO\r\n", want: []string{RESPUnknown}, consumed: 5},
		{name: "inline other type markers", in: "+OK\r\n$4\r\n:1\r\n", want: fill(RESPUnknown, 3), consumed: 13},
		{name: "empty lines skipped", in: "\r\n\n" + pingInline, want: []string{RESPPong}, consumed: 9},
		{name: "HTTP is inline lines", in: "GET / HTTP/1.1\r\nHost: a\r\n\r\n", want: fill(RESPUnknown, 2), consumed: 27},

		{name: "array", in: pingMbulk, want: []string{RESPPong}, consumed: 14},
		{name: "array lower case", in: "*1\r\n$4\r\nping\r\n", want: []string{RESPPong}, consumed: 14},
		{name: "array pipelined 16", in: repeat(pingMbulk, 16), want: fill(RESPPong, 16), consumed: 16 * 14},
		{name: "array with argument", in: "*2\r\n$4\r\nPING\r\n$5\r\nhello\r\n", want: []string{RESPPong}, consumed: 25},
		{name: "CONFIG GET", in: configGet + pingMbulk, want: []string{RESPUnknown, RESPPong}, consumed: 35 + 14},
		{name: "empty array", in: "*0\r\n", want: []string{RESPUnknown}, consumed: 4},
		{name: "empty bulk", in: "*1\r\n$0\r\n\r\n", want: []string{RESPUnknown}, consumed: 10},
		{name: "leading zeros", in: "*001\r\n$0004\r\nPING\r\n", want: []string{RESPPong}, consumed: 19},
		{name: "binary payload", in: "*2\r\n$4\r\nECHO\r\n$4\r\n\r\n\x00*\r\n", want: []string{RESPUnknown}, consumed: 24},
		{name: "mixed inline and array", in: pingInline + pingMbulk + "QUIT\r\n", want: []string{RESPPong, RESPPong, RESPUnknown}, consumed: 26},
		{name: "array partial count", in: "*1"},
		{name: "array partial CR", in: "*1\r"},
		{name: "array partial element", in: "*1\r\n$4\r\nPIN"},
		{name: "array partial trailer", in: "*1\r\n$4\r\nPING\r"},
		{name: "array missing element", in: "*2\r\n$4\r\nPING\r\n"},
		{name: "array then partial", in: pingMbulk + "*1", want: []string{RESPPong}, consumed: 14},

		{name: "count not a number", in: "*x\r\n", err: ErrMalformed},
		{name: "count negative", in: "*-1\r\n", err: ErrMalformed},
		{name: "count missing", in: "*\r\n", err: ErrMalformed},
		{name: "count bare CR", in: "*1\rx", err: ErrMalformed},
		{name: "count LF only", in: "*1\n$4\r\nPING\r\n", err: ErrMalformed},
		{name: "element not bulk", in: "*1\r\n:4\r\n", err: ErrMalformed},
		{name: "bulk length missing", in: "*1\r\n$\r\n", err: ErrMalformed},
		{name: "bulk length negative", in: "*1\r\n$-1\r\n", err: ErrMalformed},
		{name: "bulk not followed by CRLF", in: "*1\r\n$4\r\nPINGxx", err: ErrMalformed},
		{name: "bulk longer than declared", in: "*1\r\n$3\r\nPING\r\n", err: ErrMalformed},
		{name: "malformed after good", in: pingInline + "*?\r\n", want: []string{RESPPong}, consumed: 6, err: ErrMalformed},

		{name: "count over the limit", in: "*100000\r\n", err: ErrTooLarge},
		{name: "count huge", in: "*99999999999999999999999999\r\n", err: ErrTooLarge},
		{name: "count cannot fit", in: "*5\r\n", limit: 32, err: ErrTooLarge},
		{name: "count just fits", in: "*4\r\n" + repeat("$0\r\n\r\n", 4), limit: 28, want: []string{RESPUnknown}, consumed: 28},
		{name: "bulk over the limit", in: "*1\r\n$20000\r\n", err: ErrTooLarge},
		{name: "bulk cannot fit", in: "*1\r\n$20\r\n", limit: 30, err: ErrTooLarge},
		{name: "bulk just fits", in: "*1\r\n$20\r\n" + strings.Repeat("x", 20) + "\r\n", limit: 31, want: []string{RESPUnknown}, consumed: 31},
		{name: "inline at the limit", in: "PING\r\n", limit: 6, want: []string{RESPPong}, consumed: 6},
		{name: "inline over the limit", in: "PING\r\n", limit: 5, err: ErrTooLarge},
		{name: "inline line without LF", in: strings.Repeat("P", DefaultLimit), err: ErrTooLarge},
		{name: "inline line without LF under the limit", in: strings.Repeat("P", DefaultLimit-1)},
		{name: "long digits within the window", in: "*" + strings.Repeat("0", 40), limit: 32, err: ErrTooLarge},
		{name: "too large after good", in: pingMbulk + "*1\r\n$99\r\n", limit: 64, want: []string{RESPPong}, consumed: 14, err: ErrTooLarge},
	}
}

func TestHandleRESP(t *testing.T) { checkCases(t, HandleRESP, respCases()) }
func TestRESPSplit(t *testing.T)  { checkSplits(t, HandleRESP, respCases()) }

func TestAppendRESPError(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{name: "malformed", err: ErrMalformed, want: "-ERR Protocol error: malformed request\r\n"},
		{name: "too large", err: ErrTooLarge, want: "-ERR Protocol error: request too large\r\n"},
		{name: "other", err: ErrBody, want: "-ERR Protocol error: malformed request\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(AppendRESPError([]byte("+PONG\r\n"), tc.err)); got != "+PONG\r\n"+tc.want {
				t.Errorf("AppendRESPError = %q, want %q", got, "+PONG\r\n"+tc.want)
			}
		})
	}
}

func TestHandleEcho(t *testing.T) {
	cases := []struct {
		name string
		out  string
		in   string
	}{
		{name: "empty", out: "", in: ""},
		{name: "bytes", out: "", in: "hello\x00\r\n"},
		{name: "appends", out: "ab", in: "cd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, _, out, closeConn, err := HandleEcho([]byte(tc.in), []byte(tc.out), 0)
			if n != len(tc.in) || string(out) != tc.out+tc.in || closeConn || err != nil {
				t.Errorf("HandleEcho = %d, %q, %v, %v; want %d, %q, false, nil", n, out, closeConn, err, len(tc.in), tc.out+tc.in)
			}
		})
	}
}
