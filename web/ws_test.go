package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

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

// dialPage opens the live run's WebSocket as a page of the server's own
// origin does.
func dialPage(t *testing.T, addr string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://"+addr+LivePath, &websocket.DialOptions{
		HTTPHeader: http.Header{"Origin": {"http://" + addr}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %d", resp.StatusCode)
	}
	t.Cleanup(func() { c.CloseNow() })
	c.SetReadLimit(1 << 20)
	return c
}

// closedWith reads until the server closes the socket and returns the code
// and reason of its close frame.
func closedWith(t *testing.T, c *websocket.Conn) (websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("no close frame: %v", err)
		}
		return ce.Code, ce.Reason
	}
}

// Text and binary messages go both ways, a message of the cap's size
// included; the page's close reaches the handler as the page's.
func TestWebSocketEcho(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ended := make(chan error, 1)
	addr := serveLiveOn(t, s, echo(ended))
	c := dialPage(t, addr)
	ctx := context.Background()
	big := make([]byte, wsMaxMessage)
	for i := range big {
		big[i] = byte(i)
	}
	for _, m := range []struct {
		typ  websocket.MessageType
		data []byte
	}{{websocket.MessageText, []byte(`{"op":"pause"}`)}, {websocket.MessageBinary, big}} {
		if err := c.Write(ctx, m.typ, m.data); err != nil {
			t.Fatal(err)
		}
		typ, got, err := c.Read(ctx)
		if err != nil || typ != m.typ || string(got) != string(m.data) {
			t.Fatalf("sent %v of %d bytes, got %v of %d: %v", m.typ, len(m.data), typ, len(got), err)
		}
	}
	if err := c.Close(websocket.StatusNormalClosure, "bye"); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := <-ended; websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("the handler saw %v, want the page's close", err)
	}
}

// A page's message that is not what the run takes ends the socket with the
// code RFC 6455 gives the page's fault: over the 64 KiB cap 1009; text
// that is not UTF-8 1007.
func TestWebSocketRefusesBadMessages(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ended := make(chan error, 1)
	addr := serveLiveOn(t, s, echo(ended))
	for _, tc := range []struct {
		name string
		typ  websocket.MessageType
		data []byte
		code websocket.StatusCode
	}{
		{"over the cap", websocket.MessageBinary, make([]byte, wsMaxMessage+1), websocket.StatusMessageTooBig},
		{"text not UTF-8", websocket.MessageText, []byte{'a', 0xff, 0xfe}, websocket.StatusInvalidFramePayloadData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialPage(t, addr)
			// The write may fail once the server has closed: what counts
			// is the close the page reads.
			_ = c.Write(context.Background(), tc.typ, tc.data)
			if code, reason := closedWith(t, c); code != tc.code {
				t.Errorf("closed with %d %q, want %d", code, reason, tc.code)
			}
			if err := <-ended; err == nil {
				t.Error("the handler saw no error")
			}
		})
	}
}

// fault is a handler's error that names its close code.
type fault struct {
	code websocket.StatusCode
	msg  string
}

func (f fault) Error() string  { return f.msg }
func (f fault) CloseCode() int { return int(f.code) }

// A handler's error goes to the page in the close frame, with the code it
// names (a takeover's normal close, a page's fault), or 1011 when it names
// none; a server that stops says it is going away.
func TestWebSocketCloseSaysWhy(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	addr := serveLiveOn(t, s, func(ctx context.Context, c *WSConn) error {
		_, data, err := c.ReadMessage()
		if err != nil {
			return err
		}
		switch string(data) {
		case "taken over":
			return fault{websocket.StatusNormalClosure, "another page took over the live run"}
		case "binary":
			return fault{websocket.StatusUnsupportedData, "a page sends controls as text"}
		case "fail":
			return errors.New("the run failed")
		}
		<-ctx.Done()
		return nil
	})
	for _, tc := range []struct {
		send, reason string
		code         websocket.StatusCode
	}{
		{"taken over", "another page took over the live run", websocket.StatusNormalClosure},
		{"binary", "a page sends controls as text", websocket.StatusUnsupportedData},
		{"fail", "the run failed", websocket.StatusInternalError},
	} {
		c := dialPage(t, addr)
		if err := c.Write(context.Background(), websocket.MessageText, []byte(tc.send)); err != nil {
			t.Fatal(err)
		}
		if code, reason := closedWith(t, c); code != tc.code || reason != tc.reason {
			t.Errorf("%s: closed with %d %q, want %d %q", tc.send, code, reason, tc.code, tc.reason)
		}
	}
}

// A server that stops closes the page's socket as going away (1001).
func TestWebSocketServerStops(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.ServeLive(ctx, ln, func(ctx context.Context, c *WSConn) error {
			close(served)
			<-ctx.Done()
			return nil
		})
	}()
	c := dialPage(t, ln.Addr().String())
	<-served
	cancel()
	if code, _ := closedWith(t, c); code != websocket.StatusGoingAway {
		t.Errorf("closed with %d, want %d", code, websocket.StatusGoingAway)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeLive: %v", err)
	}
}

// A page that vanishes (its connection closed, no close frame) ends the
// handler's read at once; one that stops reading fails the handler's
// writes within the write timeout, rather than holding them.
func TestWebSocketVanishedAndSlowPages(t *testing.T) {
	leaktest.Check(t)
	defer func(old time.Duration) { wsWrite = old }(wsWrite)
	wsWrite = 300 * time.Millisecond
	s, _ := testSite(t)
	ended := make(chan error, 1)
	addr := serveLiveOn(t, s, func(ctx context.Context, c *WSConn) error {
		_, data, err := c.ReadMessage()
		if err == nil && string(data) == "flood me" {
			chunk := make([]byte, 1<<20)
			for err == nil {
				err = c.WriteMessage(true, chunk)
			}
		} else if err == nil {
			_, _, err = c.ReadMessage()
		}
		ended <- err
		return err
	})

	c := dialPage(t, addr)
	if err := c.Write(context.Background(), websocket.MessageText, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	c.CloseNow()
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the handler's read of a vanished page did not fail")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still reads a page that has gone")
	}

	// The page's side is a bare socket that never reads past the
	// handshake.
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	io.WriteString(raw, "GET /live HTTP/1.1\r\nHost: "+addr+"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(raw), nil); err != nil || resp.StatusCode != 101 {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	// A masked text frame, "flood me".
	msg := []byte("flood me")
	frame := append([]byte{0x81, 0x80 | byte(len(msg)), 0, 0, 0, 0}, msg...)
	raw.Write(frame)
	start := time.Now()
	select {
	case err := <-ended:
		if err == nil {
			t.Error("writes to a page that does not read did not fail")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("writes to a page that does not read still wait")
	}
	t.Logf("a page that does not read was let go after %v", time.Since(start).Round(time.Millisecond))
}

// Who may open the socket: the server's own pages, by a loopback name.
// Another origin, two Origins, a name a rebound DNS points here, a request
// that is not a handshake are refused; a server without a live run has no
// socket.
func TestWebSocketHandshakeChecks(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	ended := make(chan error, 3) // room for every connection, should one be let in wrongly
	addr := serveLiveOn(t, s, echo(ended))
	_, port, _ := net.SplitHostPort(addr)
	const ws = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"own origin", "Host: " + addr + "\r\n" + ws + "Origin: http://" + addr + "\r\n", 101},
		{"localhost", "Host: localhost:" + port + "\r\n" + ws + "Origin: http://localhost:" + port + "\r\n", 101},
		{"no origin", "Host: " + addr + "\r\n" + ws, 101},
		{"another origin", "Host: " + addr + "\r\n" + ws + "Origin: http://evil.example\r\n", 403},
		{"two origins", "Host: " + addr + "\r\n" + ws + "Origin: http://" + addr + "\r\nOrigin: http://evil.example\r\n", 403},
		{"https origin", "Host: " + addr + "\r\n" + ws + "Origin: https://" + addr + "\r\n", 403},
		{"rebound name", "Host: rebound.example:" + port + "\r\n" + ws + "Origin: http://rebound.example:" + port + "\r\n", 403},
		{"two hosts", "Host: rebound.example\r\nHost: " + addr + "\r\n" + ws, 400},
		{"space before colon", "Host : " + addr + "\r\n" + ws, 400},
		{"old version", "Host: " + addr + "\r\n" + strings.Replace(ws, "13", "8", 1), 400},
		{"no upgrade", "Host: " + addr + "\r\n", 426},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, "GET /live HTTP/1.1\r\n"+tc.req+"\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
	// A server without a live run has no WebSocket.
	plain := strings.TrimPrefix(serve(t, s), "http://")
	if _, resp, err := websocket.Dial(context.Background(), "ws://"+plain+LivePath, nil); err == nil || resp == nil || resp.StatusCode != 404 {
		t.Errorf("without a live run: %v, want 404", err)
	}
}
