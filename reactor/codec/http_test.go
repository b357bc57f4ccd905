package codec

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Requests as the benchmark clients and curl send them.
const (
	wrkGet  = "GET / HTTP/1.1\r\nHost: 127.0.0.1:18080\r\n\r\n"
	curlGet = "GET / HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n"
	abGet   = "GET / HTTP/1.0\r\nHost: localhost:8080\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n"
	abGetK  = "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: localhost:8080\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n"
)

// handlerCase is one input to a Handler and what it must answer.
type handlerCase struct {
	name     string
	in       string
	limit    int
	want     []string // replies, in order
	consumed int
	close    bool // the connection closes (implied by err)
	err      error
}

func httpCases() []handlerCase {
	big := "GET / HTTP/1.1\r\nX-Pad: " + strings.Repeat("a", 40) + "\r\n\r\n" // 66 bytes
	return []handlerCase{
		{name: "wrk", in: wrkGet, want: []string{HTTPResponse}, consumed: len(wrkGet)},
		{name: "curl", in: curlGet, want: []string{HTTPResponse}, consumed: len(curlGet)},
		{name: "minimal 1.1", in: "GET / HTTP/1.1\r\n\r\n", want: []string{HTTPResponse}, consumed: 18},
		{name: "any method and target", in: "BREW /pot?x=1#y HTTP/1.1\r\n\r\n", want: []string{HTTPResponse}, consumed: 28},
		{name: "empty", in: ""},
		{name: "partial request line", in: "GET / HTTP/1.", consumed: 0},
		{name: "partial headers", in: "GET / HTTP/1.1\r\nHost: a\r\n", consumed: 0},
		{name: "partial final CRLF", in: "GET / HTTP/1.1\r\nHost: a\r\n\r", consumed: 0},
		{
			name: "pipelined with partial tail", in: wrkGet + curlGet + wrkGet + "GET / HT",
			want:     []string{HTTPResponse, HTTPResponse, HTTPResponse},
			consumed: 2*len(wrkGet) + len(curlGet),
		},
		{name: "pipelined 16", in: repeat(wrkGet, 16), want: fill(HTTPResponse, 16), consumed: 16 * len(wrkGet)},
		{name: "LF only", in: "GET / HTTP/1.1\nHost: a\n\n", want: []string{HTTPResponse}, consumed: 24},
		{name: "mixed line endings", in: "GET / HTTP/1.1\nHost: a\r\n\n", want: []string{HTTPResponse}, consumed: 25},
		{name: "leading empty lines", in: "\r\n\n" + wrkGet, want: []string{HTTPResponse}, consumed: 3 + len(wrkGet)},
		{name: "only empty lines", in: "\r\n\r\n\n", consumed: 5},
		{name: "lone CR waits", in: "\r", consumed: 0},
		{name: "header without value", in: "GET / HTTP/1.1\r\nX-Empty:\r\n\r\n", want: []string{HTTPResponse}, consumed: 28},

		// Keep-alive and closing.
		{name: "1.1 keep-alive explicit", in: "GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", want: []string{HTTPResponse}, consumed: 42},
		{
			name: "Connection close stops reading", in: "GET / HTTP/1.1\r\nConnection: close\r\n\r\n" + wrkGet,
			want: []string{HTTPResponseClose}, consumed: 37, close: true,
		},
		{
			name: "close after earlier replies", in: wrkGet + "GET / HTTP/1.1\r\nConnection: close\r\n\r\nGARBAGE\r\n",
			want: []string{HTTPResponse, HTTPResponseClose}, consumed: len(wrkGet) + 37, close: true,
		},
		{name: "header name case", in: "GET / HTTP/1.1\r\nCONNECTION: Close\r\n\r\n", want: []string{HTTPResponseClose}, consumed: 37, close: true},
		{name: "token list", in: "GET / HTTP/1.1\r\nconnection: Upgrade ,\tclose \r\n\r\n", want: []string{HTTPResponseClose}, consumed: 48, close: true},
		{name: "close wins over keep-alive", in: "GET / HTTP/1.1\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", want: []string{HTTPResponseClose}, consumed: 61, close: true},
		{name: "closed is not close", in: "GET / HTTP/1.1\r\nConnection: closed\r\n\r\n", want: []string{HTTPResponse}, consumed: 38},
		{name: "close in another header", in: "GET / HTTP/1.1\r\nX-Connection: close\r\n\r\n", want: []string{HTTPResponse}, consumed: 39},
		{name: "1.0 closes", in: abGet + wrkGet, want: []string{HTTPResponseClose}, consumed: len(abGet), close: true},
		{name: "1.0 keep-alive", in: abGetK + abGetK, want: []string{HTTPResponseKeepAlive, HTTPResponseKeepAlive}, consumed: 2 * len(abGetK)},

		// Bodies.
		{name: "Content-Length 0", in: "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", want: []string{HTTPResponse}, consumed: 38},
		{name: "Content-Length zeros and spaces", in: "POST / HTTP/1.1\r\ncontent-length:\t000 \r\n\r\n", want: []string{HTTPResponse}, consumed: 41},
		{name: "Content-Length 5", in: "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", err: ErrBody},
		{name: "Content-Length huge", in: "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", err: ErrBody},
		{name: "Content-Length refused before the head ends", in: "POST / HTTP/1.1\r\nContent-Length: 1\r\n", err: ErrBody},
		{name: "Transfer-Encoding", in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", err: ErrBody},
		{name: "Transfer-Encoding empty", in: "GET / HTTP/1.1\r\nTRANSFER-ENCODING:\r\n\r\n", err: ErrBody},
		{name: "Content-Length not a number", in: "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", err: ErrMalformed},
		{name: "Content-Length negative", in: "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", err: ErrMalformed},
		{name: "Content-Length empty", in: "POST / HTTP/1.1\r\nContent-Length: \r\n\r\n", err: ErrMalformed},

		// Malformed.
		{name: "RESP to HTTP", in: "PING\r\n", err: ErrMalformed},
		{name: "HTTP/2 preface", in: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", err: ErrMalformed},
		{name: "lower-case version", in: "GET / http/1.1\r\n\r\n", err: ErrMalformed},
		{name: "HTTP/1.2", in: "GET / HTTP/1.2\r\n\r\n", err: ErrMalformed},
		{name: "no method", in: " / HTTP/1.1\r\n\r\n", err: ErrMalformed},
		{name: "no target", in: "GET HTTP/1.1\r\n\r\n", err: ErrMalformed},
		{name: "only version", in: " HTTP/1.1\r\n\r\n", err: ErrMalformed},
		{name: "double space", in: "GET  / HTTP/1.1\r\n\r\n", err: ErrMalformed},
		{name: "space in target", in: "GET /a b HTTP/1.1\r\n\r\n", err: ErrMalformed},
		{name: "header without colon", in: "GET / HTTP/1.1\r\nHost\r\n\r\n", err: ErrMalformed},
		{name: "header without name", in: "GET / HTTP/1.1\r\n: a\r\n\r\n", err: ErrMalformed},
		{name: "space before colon", in: "GET / HTTP/1.1\r\nHost : a\r\n\r\n", err: ErrMalformed},
		{name: "obsolete folding", in: "GET / HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n", err: ErrMalformed},
		{name: "malformed header refused before the head ends", in: "GET / HTTP/1.1\r\nHost\r\n", err: ErrMalformed},
		{
			name: "malformed after a good request", in: wrkGet + "HELLO\r\n" + wrkGet,
			want: []string{HTTPResponse}, consumed: len(wrkGet), err: ErrMalformed,
		},

		// Size limit.
		{name: "at the limit", in: big, limit: len(big), want: []string{HTTPResponse}, consumed: len(big)},
		{name: "one over the limit", in: big, limit: len(big) - 1, err: ErrTooLarge},
		{name: "incomplete at the limit", in: big[:40], limit: 40, err: ErrTooLarge},
		{name: "incomplete under the limit", in: big[:39], limit: 40},
		{name: "long line without LF", in: strings.Repeat("G", DefaultLimit), err: ErrTooLarge},
		{name: "long line without LF under the limit", in: strings.Repeat("G", DefaultLimit-1)},
		{
			name: "oversize after a good request", in: wrkGet + big, limit: len(big) - 1,
			want: []string{HTTPResponse}, consumed: len(wrkGet), err: ErrTooLarge,
		},
		{
			// The window stops the parse at the limit: the malformed line
			// beyond it is never looked at.
			name: "too large wins over a later malformed line", in: "GET / HTTP/1.1\r\nX: " + strings.Repeat("a", 30) + "\r\nbad\r\n\r\n",
			limit: 40, err: ErrTooLarge,
		},
	}
}

// fill returns n copies of s.
func fill(s string, n int) []string {
	r := make([]string, n)
	for i := range r {
		r[i] = s
	}
	return r
}

func TestHandleHTTP(t *testing.T) { checkCases(t, HandleHTTP, httpCases()) }
func TestHTTPSplit(t *testing.T)  { checkSplits(t, HandleHTTP, httpCases()) }

// checkCases runs every case through h in one read, appending to an out
// that already holds bytes, which the handler must keep.
func checkCases(t *testing.T, h Handler, cases []handlerCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte("earlier")
			n, _, out, closeConn, err := h([]byte(tc.in), prefix, tc.limit)
			if !strings.HasPrefix(string(out), "earlier") {
				t.Fatalf("reply %q does not keep what out held", out)
			}
			got := string(out[len("earlier"):])
			if want := strings.Join(tc.want, ""); got != want {
				t.Errorf("reply = %q, want %q", got, want)
			}
			if n != tc.consumed {
				t.Errorf("consumed = %d, want %d", n, tc.consumed)
			}
			if err != tc.err {
				t.Errorf("err = %v, want %v", err, tc.err)
			}
			if wantClose := tc.close || tc.err != nil; closeConn != wantClose {
				t.Errorf("closeConn = %v, want %v", closeConn, wantClose)
			}
		})
	}
}

// checkSplits feeds every case's input in two reads, split at every
// offset, and a byte at a time: the replies, the bytes consumed and the
// verdict must be those of the whole input in one read.
func checkSplits(t *testing.T, h Handler, cases []handlerCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testSplits(t, h, tc.limit, []byte(tc.in))
		})
	}
}

func testSplits(t *testing.T, h Handler, limit int, in []byte) {
	t.Helper()
	whole := drive(h, limit, in)
	for s := 0; s <= len(in); s++ {
		if got := drive(h, limit, in[:s], in[s:]); got != whole {
			t.Fatalf("split at %d:\n got %v\nwant %v", s, got, whole)
		}
	}
	bytewise := make([][]byte, len(in))
	for i := range in {
		bytewise[i] = in[i : i+1]
	}
	if got := drive(h, limit, bytewise...); got != whole {
		t.Fatalf("a byte at a time:\n got %v\nwant %v", got, whole)
	}
}

// TestHTTPResponses parses every fixed answer with net/http, so a typo in a
// status line or a Content-Length that does not match its body is caught.
func TestHTTPResponses(t *testing.T) {
	cases := []struct {
		name      string
		resp      string
		status    int
		body      string
		closeConn bool
	}{
		{name: "ok", resp: HTTPResponse, status: 200, body: "Hello, World!"},
		{name: "ok close", resp: HTTPResponseClose, status: 200, body: "Hello, World!", closeConn: true},
		{name: "ok keep-alive", resp: HTTPResponseKeepAlive, status: 200, body: "Hello, World!"},
		{name: "malformed", resp: string(AppendHTTPError(nil, ErrMalformed)), status: 400, body: "Bad Request\n", closeConn: true},
		{name: "unknown error", resp: string(AppendHTTPError(nil, errors.New("x"))), status: 400, body: "Bad Request\n", closeConn: true},
		{name: "too large", resp: string(AppendHTTPError(nil, ErrTooLarge)), status: 431, body: "Request Header Fields Too Large\n", closeConn: true},
		{name: "body", resp: string(AppendHTTPError(nil, ErrBody)), status: 413, body: "Request bodies not accepted\n", closeConn: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReader(strings.NewReader(tc.resp))
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("ReadResponse: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading body: %v", err)
			}
			if resp.StatusCode != tc.status || string(body) != tc.body || resp.Close != tc.closeConn {
				t.Errorf("got status %d body %q close %v; want %d %q %v", resp.StatusCode, body, resp.Close, tc.status, tc.body, tc.closeConn)
			}
			if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(tc.body)) {
				t.Errorf("Content-Length = %s, body has %d bytes", cl, len(tc.body))
			}
			if r.Buffered() != 0 {
				t.Errorf("%d bytes after the response", r.Buffered())
			}
		})
	}
	if len(HTTPResponse) != 78 {
		t.Errorf("HTTPResponse has %d bytes, the peers send 78", len(HTTPResponse))
	}
}

// TestHTTPRequestsParse cross-checks the accepted requests with net/http:
// whatever this package answers 200, the standard library reads as a
// request too.
func TestHTTPRequestsParse(t *testing.T) {
	for _, tc := range httpCases() {
		if tc.err != nil || len(tc.want) == 0 || strings.HasPrefix(tc.in, "\r") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			if _, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tc.in))); err != nil {
				t.Errorf("net/http refuses %q: %v", tc.in, err)
			}
		})
	}
}

func TestEffectiveLimit(t *testing.T) {
	cases := []struct {
		name  string
		limit int
		want  int
	}{
		{name: "zero", limit: 0, want: DefaultLimit},
		{name: "negative", limit: -5, want: DefaultLimit},
		{name: "small", limit: 1, want: 1},
		{name: "max", limit: MaxLimit, want: MaxLimit},
		{name: "above max", limit: MaxLimit + 1, want: MaxLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := effectiveLimit(tc.limit); got != tc.want {
				t.Errorf("effectiveLimit(%d) = %d, want %d", tc.limit, got, tc.want)
			}
		})
	}
}
