package web

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
)

// serveLiveOn serves s with live on a loopback port and returns its
// address.
func serveLiveOn(t *testing.T, s *Site, live LiveHandler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeLive(ctx, ln, live) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeLive: %v", err)
		}
	})
	return ln.Addr().String()
}

// echo is a live handler that sends back every message, and reports how
// the connection ended.
func echo(ended chan<- error) LiveHandler {
	return func(ctx context.Context, c *WSConn) error {
		for {
			binary, data, err := c.ReadMessage()
			if err != nil {
				ended <- err
				return err
			}
			if err := c.WriteMessage(binary, data); err != nil {
				ended <- err
				return err
			}
		}
	}
}

// wsClient is a page's end, written out by hand so that it can break the
// protocol.
type wsClient struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

const rfcKey = "dGhlIHNhbXBsZSBub25jZQ==" // RFC 6455's example key

// dialWS opens the WebSocket with the headers given (a browser's, unless
// replaced) and returns the client and the handshake's response.
func dialWS(t *testing.T, addr string, headers ...string) (*wsClient, *http.Response) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if headers == nil {
		headers = []string{"Upgrade: websocket", "Connection: keep-alive, Upgrade", "Sec-WebSocket-Key: " + rfcKey,
			"Sec-WebSocket-Version: 13", "Origin: http://" + addr}
	}
	req := "GET /live HTTP/1.1\r\nHost: " + addr + "\r\n" + strings.Join(headers, "\r\n") + "\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &wsClient{t: t, c: c, br: br}, resp
}

// frame writes one frame, masked unless told otherwise; length, if not
// -1, is the length to announce instead of the payload's.
func (w *wsClient) frame(b0 byte, payload []byte, masked bool, length int) {
	w.t.Helper()
	n := len(payload)
	if length >= 0 {
		n = length
	}
	h := []byte{b0, 0}
	switch {
	case n < 126:
		h[1] = byte(n)
	case n <= 0xffff:
		h[1] = 126
		h = binary.BigEndian.AppendUint16(h, uint16(n))
	default:
		h[1] = 127
		h = binary.BigEndian.AppendUint64(h, uint64(n))
	}
	p := append([]byte(nil), payload...)
	if masked {
		h[1] |= 0x80
		mask := [4]byte{0x37, 0xfa, 0x21, 0x3d}
		h = append(h, mask[:]...)
		for i := range p {
			p[i] ^= mask[i&3]
		}
	}
	if _, err := w.c.Write(append(h, p...)); err != nil {
		w.t.Fatal(err)
	}
}

// read reads one frame from the server, which never masks.
func (w *wsClient) read() (op byte, payload []byte) {
	w.t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(w.br, h[:]); err != nil {
		w.t.Fatalf("reading a frame: %v", err)
	}
	if h[1]&0x80 != 0 {
		w.t.Fatal("the server masked a frame")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(w.br, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(w.br, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(w.br, payload); err != nil {
		w.t.Fatal(err)
	}
	return h[0] & 0x0f, payload
}

// closeCode reads frames until a close and returns its code.
func (w *wsClient) closeCode() (int, string) {
	w.t.Helper()
	for {
		op, p := w.read()
		if op == opClose {
			if len(p) < 2 {
				return 1005, ""
			}
			return int(binary.BigEndian.Uint16(p)), string(p[2:])
		}
	}
}

func TestWebSocketHandshakeAndEcho(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ended := make(chan error, 1)
	addr := serveLiveOn(t, s, echo(ended))
	w, resp := dialWS(t, addr)
	if resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("handshake: %d, accept %q", resp.StatusCode, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	// A text message in three fragments, a ping between them.
	w.frame(opText, []byte("pau"), true, -1)
	w.frame(0x80|opPing, []byte("are you there"), true, -1)
	w.frame(opCont, []byte("se "), true, -1)
	w.frame(0x80|opCont, []byte("all"), true, -1)
	if op, p := w.read(); op != opPong || string(p) != "are you there" {
		t.Errorf("got %#x %q, want the pong", op, p)
	}
	if op, p := w.read(); op != opText || string(p) != "pause all" {
		t.Errorf("got %#x %q, want the message back", op, p)
	}
	// A binary message large enough for a 16-bit length, and one for 64.
	for _, n := range []int{300, 70000 - 10} {
		big := make([]byte, min(n, wsMaxMessage))
		for i := range big {
			big[i] = byte(i)
		}
		w.frame(0x80|opBinary, big, true, -1)
		if op, p := w.read(); op != opBinary || string(p) != string(big) {
			t.Errorf("%d bytes: got %#x with %d bytes back", len(big), op, len(p))
		}
	}
	// The page closes: the server answers with its code.
	w.frame(0x80|opClose, binary.BigEndian.AppendUint16(nil, CloseNormal), true, -1)
	if code, _ := w.closeCode(); code != CloseNormal {
		t.Errorf("close answered with %d", code)
	}
	var ce *CloseError
	if err := <-ended; !errors.As(err, &ce) || !ce.Peer || ce.Code != CloseNormal {
		t.Errorf("the handler saw %v", err)
	}
}

// Every frame a page may not send ends the connection with a close frame
// that says why; the handler sees the error, the server goes on.
func TestWebSocketRefusesBadFrames(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ended := make(chan error, 1)
	addr := serveLiveOn(t, s, echo(ended))
	big := make([]byte, wsMaxMessage/2+1)
	for _, tc := range []struct {
		name string
		send func(w *wsClient)
		code int
	}{
		{"unmasked", func(w *wsClient) { w.frame(0x80|opText, []byte("hi"), false, -1) }, CloseProtocol},
		{"reserved bits", func(w *wsClient) { w.frame(0xC0|opText, []byte("hi"), true, -1) }, CloseProtocol},
		{"unknown opcode", func(w *wsClient) { w.frame(0x80|0x3, []byte("hi"), true, -1) }, CloseProtocol},
		{"long control", func(w *wsClient) { w.frame(0x80|opPing, make([]byte, 126), true, -1) }, CloseProtocol},
		{"fragmented control", func(w *wsClient) { w.frame(opPing, []byte("x"), true, -1) }, CloseProtocol},
		{"lone continuation", func(w *wsClient) { w.frame(0x80|opCont, []byte("x"), true, -1) }, CloseProtocol},
		{"message inside a message", func(w *wsClient) {
			w.frame(opText, []byte("a"), true, -1)
			w.frame(0x80|opText, []byte("b"), true, -1)
		}, CloseProtocol},
		{"text not UTF-8", func(w *wsClient) { w.frame(0x80|opText, []byte{0xff, 0xfe}, true, -1) }, CloseBadData},
		{"one-byte close", func(w *wsClient) { w.frame(0x80|opClose, []byte{3}, true, -1) }, CloseProtocol},
		{"close code 1006", func(w *wsClient) {
			w.frame(0x80|opClose, binary.BigEndian.AppendUint16(nil, 1006), true, -1)
		}, CloseProtocol},
		// Announced only: the server must refuse it before reading (or
		// allocating) the payload.
		{"too big", func(w *wsClient) { w.frame(0x80|opBinary, nil, true, 1<<40) }, CloseTooBig},
		{"top length bit", func(w *wsClient) {
			w.frame(0x80|opBinary, nil, true, 0)
			w.c.Write([]byte{0x80 | opBinary, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 1})
		}, CloseProtocol},
		{"fragments too big together", func(w *wsClient) {
			w.frame(opBinary, big, true, -1)
			w.frame(0x80|opCont, big, true, -1)
		}, CloseTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, resp := dialWS(t, addr)
			if resp.StatusCode != 101 {
				t.Fatalf("handshake: %d", resp.StatusCode)
			}
			tc.send(w)
			if code, reason := w.closeCode(); code != tc.code {
				t.Errorf("closed with %d %q, want %d", code, reason, tc.code)
			}
			if err := <-ended; err == nil {
				t.Error("the handler saw no error")
			}
			// The server closes the connection after its close frame.
			w.c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := w.br.ReadByte(); err == nil {
				t.Error("the connection stays open after the close")
			}
		})
	}
}

func TestWebSocketHandshakeProblems(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ended := make(chan error, 1)
	addr := serveLiveOn(t, s, echo(ended))
	for _, tc := range []struct {
		name    string
		headers []string
		status  int
	}{
		{"another origin", []string{"Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: " + rfcKey, "Sec-WebSocket-Version: 13", "Origin: http://evil.example"}, 403},
		{"no key", []string{"Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13"}, 400},
		{"short key", []string{"Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: AAAA", "Sec-WebSocket-Version: 13"}, 400},
		{"old version", []string{"Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: " + rfcKey, "Sec-WebSocket-Version: 8"}, 400},
		{"no upgrade", []string{"Connection: keep-alive"}, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, resp := dialWS(t, addr, tc.headers...)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
	// A server without a live run has no WebSocket.
	plain := strings.TrimPrefix(serve(t, s), "http://")
	if _, resp := dialWS(t, plain); resp.StatusCode != 404 {
		t.Errorf("without a live run: %d, want 404", resp.StatusCode)
	}
}

// A handler's error goes to the page in the close frame; a server that
// stops says it is going away.
func TestWebSocketCloseSaysWhy(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	addr := serveLiveOn(t, s, func(ctx context.Context, c *WSConn) error {
		_, data, err := c.ReadMessage()
		if err != nil {
			return err
		}
		if string(data) == "fail" {
			return errors.New("the page fell behind the run")
		}
		<-ctx.Done()
		return nil
	})
	w, _ := dialWS(t, addr)
	w.frame(0x80|opText, []byte("fail"), true, -1)
	if code, reason := w.closeCode(); code != CloseServerError || reason != "the page fell behind the run" {
		t.Errorf("closed with %d %q", code, reason)
	}
}

// A page that a rebound DNS name points at this server names that name as
// its Host and its origin alike: the origin check alone would pass it, so
// the live run answers loopback names only.
func TestWebSocketRefusesARebindingName(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ended := make(chan error, 3) // room for every connection, should one be let in wrongly
	addr := serveLiveOn(t, s, echo(ended))
	_, port, _ := net.SplitHostPort(addr)
	for host, want := range map[string]int{"rebound.example:" + port: 403, "localhost:" + port: 101, addr: 101} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		req := "GET /live HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " +
			rfcKey + "\r\nSec-WebSocket-Version: 13\r\nOrigin: http://" + host + "\r\n\r\n"
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != want {
			t.Errorf("Host %s: status %d, want %d", host, resp.StatusCode, want)
		}
		c.Close()
	}
}
