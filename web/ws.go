package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// The live run's WebSocket (RFC 6455), served by github.com/coder/websocket
// beside the site: the page's controls come in, the run's trace and state
// go out. The package reads the frames (masking, reserved bits, control
// frames, fragments, close codes) and refuses a message over the cap
// once it has read one byte past it, holding no more; what is checked here is who may open the socket, and
// what a message must be for a run to take it.

// LivePath is where the page opens its WebSocket.
const LivePath = "/live"

// LiveHandler serves one page's WebSocket until it returns; the socket is
// then closed, with the code its error names (see CloseCoder), or 1001
// (going away) when the server stops.
type LiveHandler func(ctx context.Context, c *WSConn) error

// CloseCoder is an error of a LiveHandler that names the WebSocket close
// code (RFC 6455 7.4.1) to end the page's socket with: 1000 when another
// page took over, 1003, 1007, 1008 or 1009 for the page's own faults. An
// error that names none is the server's (1011).
type CloseCoder interface {
	error
	CloseCode() int
}

const (
	// wsMaxMessage bounds a message a page sends: its controls are tiny.
	// The package refuses a bigger one with 1009 once it has read one
	// byte past the cap, across fragments: a message held is at most this.
	wsMaxMessage = 64 << 10
	// wsPing is how often the server pings a page, and wsIdle how long it
	// waits for the pong (a browser answers on its own, but only once it
	// has read what was sent before the ping) before it takes the page for
	// gone.
	wsPing = 20 * time.Second
	wsIdle = 60 * time.Second
)

// wsWrite bounds one write: a page that takes nothing of a message in this
// long is gone. A page that reads, however slowly, is not cut off by it but
// by the queue's cap (sim/remote's Host): a busy tab may be many
// seconds behind the run and catch up. A variable so tests can shorten it.
var wsWrite = 60 * time.Second

// closeError is a fault of the page's found here, with its close code.
type closeError struct {
	code   int
	reason string
}

func (e *closeError) Error() string  { return "websocket: " + e.reason }
func (e *closeError) CloseCode() int { return e.code }

// WSConn is the server's end of a page's WebSocket: sim/remote's Conn. One
// goroutine reads; any may write.
//
// Its reads and writes do not take the handler's context: the package
// closes a socket, without a close frame, when the context of a read or
// write in progress ends, and the page is to be told why it ends.
type WSConn struct {
	c *websocket.Conn
}

// ReadMessage returns the next text or binary message; pings are answered
// and a close from the page echoed on the way. Text must be UTF-8: a
// message that is not is the page's fault, 1007.
func (w *WSConn) ReadMessage() (binary bool, data []byte, err error) {
	typ, data, err := w.c.Read(context.Background())
	if err != nil {
		return false, nil, err
	}
	if typ == websocket.MessageText && !utf8.Valid(data) {
		// The package leaves text as it came: UTF-8 is checked here.
		return false, nil, &closeError{int(websocket.StatusInvalidFramePayloadData), "text that is not UTF-8"}
	}
	return typ == websocket.MessageBinary, data, nil
}

// WriteMessage sends one message, binary or text, within wsWrite; the
// package writes its header and payload through one buffered writer.
func (w *WSConn) WriteMessage(binary bool, data []byte) error {
	typ := websocket.MessageText
	if binary {
		typ = websocket.MessageBinary
	}
	ctx, cancel := context.WithTimeout(context.Background(), wsWrite)
	defer cancel()
	return w.c.Write(ctx, typ, data)
}

// liveServer answers the page's requests for the WebSocket, one handler
// call per socket; wait returns once every call has returned.
type liveServer struct {
	handler LiveHandler
	mu      sync.Mutex
	closed  bool // set by wait: no socket is served after
	wg      sync.WaitGroup
}

func (l *liveServer) wait() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.wg.Wait()
}

// serving counts a socket served, unless the server has stopped.
func (l *liveServer) serving() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	return true
}

func (l *liveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if l.handler == nil {
		http.Error(w, "no live run here: reactorviz run NAME --web serves one", http.StatusNotFound)
		return
	}
	if status, problem := upgradeProblem(r); status != 0 {
		http.Error(w, problem, status)
		return
	}
	if !l.serving() {
		http.Error(w, "the server stops", http.StatusServiceUnavailable)
		return
	}
	defer l.wg.Done()
	// The server's read and write deadlines are for requests; a socket
	// lives as long as the page does, watched by pings.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return // Accept answered the request
	}
	c.SetReadLimit(wsMaxMessage)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	pinged := make(chan struct{})
	go func() {
		defer close(pinged)
		ping(ctx, c)
	}()
	err = l.handler(ctx, &WSConn{c: c})
	cancel()
	if code, reason := closeFor(err); code == 0 {
		_ = c.CloseNow()
	} else {
		_ = c.Close(websocket.StatusCode(code), reason)
	}
	<-pinged // a ping in flight ends with the socket
}

// ping pings the page every wsPing until ctx ends; a page that does not
// answer within wsIdle is gone: its socket is closed, which ends the
// handler's read. A ping in flight when ctx ends ends with the socket.
func ping(ctx context.Context, c *websocket.Conn) {
	t := time.NewTicker(wsPing)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(context.Background(), wsIdle)
			err := c.Ping(pctx)
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					_ = c.CloseNow()
				}
				return
			}
		}
	}
}

// closeFor is the close a handler's error calls for: 0 when the page closed
// the socket, or it failed, and there is no one to tell.
func closeFor(err error) (code int, reason string) {
	var cc CloseCoder
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return int(websocket.StatusGoingAway), "the server stops"
	case websocket.CloseStatus(err) != -1:
		return 0, "" // the package echoed the page's close
	case errors.As(err, &cc):
		return cc.CloseCode(), closeReason(err.Error())
	case errors.Is(err, net.ErrClosed), errors.Is(err, context.DeadlineExceeded):
		return 0, ""
	}
	return int(websocket.StatusInternalError), closeReason(err.Error())
}

// closeReason fits a reason into a close frame, whose payload is at most
// 125 bytes, the code's two included.
func closeReason(s string) string {
	if len(s) <= 123 {
		return s
	}
	s = s[:123]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// upgradeProblem says what is wrong with a request for the WebSocket
// before the package reads the handshake, or 0.
func upgradeProblem(r *http.Request) (status int, problem string) {
	if r.Method != http.MethodGet {
		return http.StatusMethodNotAllowed, "a WebSocket opens with a GET"
	}
	// The run is this machine's: it is reached by a loopback name, never
	// by one a page's DNS points here (rebinding), and a page of another
	// site must not drive it: a browser names the page's origin, which
	// must be this server. net/http has refused a request with two Hosts
	// or a malformed one before this is read.
	if !loopbackHost(r.Host) {
		return http.StatusForbidden, "the live run answers on a loopback address only"
	}
	if o := r.Header.Values("Origin"); len(o) > 1 || (len(o) == 1 && !sameOrigin(o[0], r.Host)) {
		return http.StatusForbidden, "a page of another origin"
	}
	return 0, ""
}

// loopbackHost reports whether a Host header names this machine by a
// loopback address or localhost, with a port or without.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.IsLoopback()
}

// sameOrigin reports whether a page at origin was served by host.
func sameOrigin(origin, host string) bool {
	o, ok := strings.CutPrefix(strings.ToLower(origin), "http://")
	return ok && host != "" && o == strings.ToLower(host)
}
