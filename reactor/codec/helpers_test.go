package codec

import (
	"fmt"
	"strings"
	"testing"
)

// result is what a connection sees from a handler over a whole stream.
type result struct {
	out       string // every reply, in order
	consumed  int    // bytes consumed in all
	pending   int    // bytes kept for a request not yet complete (0 once closing)
	closeConn bool
	err       error
}

func (r result) String() string {
	return fmt.Sprintf("out=%q consumed=%d pending=%d close=%v err=%v", r.out, r.consumed, r.pending, r.closeConn, r.err)
}

// drive feeds parts to h as successive reads, the way the engine does: the
// unconsumed tail of one call is kept and the next read appended to it. It
// stops at the first call that asks to close.
func drive(h Handler, limit int, parts ...[]byte) result {
	var (
		r       result
		pending []byte
		out     []byte
	)
	for _, part := range parts {
		pending = append(pending, part...)
		n, _, reply, closeConn, err := h(pending, out, limit)
		out = reply
		r.consumed += n
		if closeConn || err != nil {
			// The caller closes: what it has not read yet does not matter,
			// and how much that is depends only on how the input was cut.
			r.closeConn, r.err = closeConn, err
			pending = nil
			break
		}
		// Copy the tail to the front, as a caller reusing its buffer would,
		// so that a handler keeping a reference into it would be caught.
		pending = append(pending[:0], pending[n:]...)
	}
	r.out = string(out)
	r.pending = len(pending)
	return r
}

// splitReplies cuts out into replies drawn from allowed and reports how many
// there were, or ok == false if out is not a whole number of them.
func splitReplies(out string, allowed ...string) (replies []string, ok bool) {
	for len(out) > 0 {
		found := false
		for _, a := range allowed {
			if strings.HasPrefix(out, a) {
				replies = append(replies, a)
				out = out[len(a):]
				found = true
				break
			}
		}
		if !found {
			return replies, false
		}
	}
	return replies, true
}

// repeat returns n copies of s, concatenated.
func repeat(s string, n int) string { return strings.Repeat(s, n) }

// answered counts the replies a call appended: one per request, none for
// a bare empty line, none for echo, which has no requests.
func TestHandlersCountTheirAnswers(t *testing.T) {
	get := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, tc := range []struct {
		name string
		h    Handler
		in   string
		want int
	}{
		{"http pipelined", HandleHTTP, get + get + "GET /", 2},
		{"resp inline, empty line, array", HandleRESP, "PING\r\n\r\n*1\r\n$4\r\nPING\r\n", 2},
		{"mixed", HandleMixed, get + "PING\r\n", 2},
		{"echo", HandleEcho, "hello", 0},
	} {
		if _, got, _, _, err := tc.h([]byte(tc.in), nil, 0); err != nil || got != tc.want {
			t.Errorf("%s: answered %d (%v), want %d", tc.name, got, err, tc.want)
		}
	}
}
