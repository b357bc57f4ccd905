package codec

import (
	"bytes"
	"testing"
)

// The fuzz targets take the input, where to split it in two, and a limit
// (0: DefaultLimit); the limit is kept under 1 KiB otherwise, so that the
// inputs the fuzzer builds reach it and the ErrTooLarge paths get explored.

func FuzzHTTP(f *testing.F) {
	for _, tc := range httpCases() {
		f.Add([]byte(tc.in), uint16(len(tc.in)/2), uint16(tc.limit))
	}
	f.Fuzz(func(t *testing.T, in []byte, split, limit uint16) {
		lim := int(limit % 1024)
		checkHandler(t, HandleHTTP, in, int(split), lim, HTTPResponse, HTTPResponseKeepAlive)
		checkHandler(t, HandleMixed, in, int(split), lim, HTTPResponse, HTTPResponseKeepAlive, RESPPong, RESPUnknown)
	})
}

func FuzzRESP(f *testing.F) {
	for _, tc := range respCases() {
		f.Add([]byte(tc.in), uint16(len(tc.in)/2), uint16(tc.limit))
	}
	f.Fuzz(func(t *testing.T, in []byte, split, limit uint16) {
		lim := int(limit % 1024)
		checkHandler(t, HandleRESP, in, int(split), lim, RESPPong, RESPUnknown)
		checkHandler(t, HandleMixed, in, int(split), lim, HTTPResponse, HTTPResponseKeepAlive, RESPPong, RESPUnknown)
	})
}

// checkHandler asserts what must hold for any input: h does not panic;
// consumed is within in; the output is what out held followed by whole
// replies, from open (the replies that keep the connection) and, last only,
// HTTPResponseClose; a call that neither closes nor fails leaves an
// incomplete request shorter than the limit; and feeding in split in two
// gives what feeding it whole gives.
func checkHandler(t *testing.T, h Handler, in []byte, split, limit int, open ...string) {
	t.Helper()
	const prefix = "prefix"
	orig := bytes.Clone(in)
	n, _, out, closeConn, err := h(in, []byte(prefix), limit)
	if !bytes.Equal(in, orig) {
		t.Fatalf("handler modified its input")
	}
	if n < 0 || n > len(in) {
		t.Fatalf("consumed %d of %d bytes", n, len(in))
	}
	if !bytes.HasPrefix(out, []byte(prefix)) {
		t.Fatalf("reply %q lost what out held", out)
	}
	replies, ok := splitReplies(string(out[len(prefix):]), append(open, HTTPResponseClose)...)
	if !ok {
		t.Fatalf("reply %q is not a sequence of whole replies", out[len(prefix):])
	}
	for i, r := range replies {
		if r == HTTPResponseClose && (i != len(replies)-1 || !closeConn || err != nil) {
			t.Fatalf("HTTPResponseClose at %d of %d replies, closeConn %v, err %v", i, len(replies), closeConn, err)
		}
	}
	if err != nil && (!closeConn || (err != ErrMalformed && err != ErrTooLarge && err != ErrBody)) {
		t.Fatalf("err %v with closeConn %v", err, closeConn)
	}
	if !closeConn {
		tail := in[n:]
		if len(tail) >= effectiveLimit(limit) {
			t.Fatalf("left %d bytes pending, limit %d", len(tail), effectiveLimit(limit))
		}
		if m, _, again, _, err := h(tail, nil, limit); m != 0 || len(again) != 0 || err != nil {
			t.Fatalf("the tail %q still holds a request: consumed %d, reply %q, err %v", tail, m, again, err)
		}
	}

	if split > len(in) {
		split %= len(in) + 1
	}
	whole := drive(h, limit, in)
	if got := drive(h, limit, in[:split], in[split:]); got != whole {
		t.Fatalf("split at %d:\n got %v\nwant %v", split, got, whole)
	}
}
