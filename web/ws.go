package web

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A WebSocket (RFC 6455) on the site's own server, for a live run: the
// page's controls come in, the run's trace and state go out. Only what a
// browser speaks is taken: no extensions, no subprotocols. The server faces
// whatever a page sends, so every frame is read as untrusted: bounded in
// size, checked against the RFC, and a bad one ends the connection with a
// close frame that says why, never a panic or an exit.

// LivePath is where the page opens its WebSocket.
const LivePath = "/live"

// LiveHandler serves one page's WebSocket until it returns; the
// connection is then closed, with a close frame saying why when the error
// is not the page's own close.
type LiveHandler func(ctx context.Context, c *WSConn) error

const (
	wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
	// wsMaxMessage bounds a message a page sends: its controls are tiny.
	wsMaxMessage = 64 << 10
	// wsIdle is how long a page may send nothing, pongs included; the
	// server pings it every wsPing, and a browser answers on its own.
	wsIdle = 60 * time.Second
	wsPing = 20 * time.Second
	// wsWrite bounds one write: a page that cannot take a message in this
	// long is gone.
	wsWrite = 10 * time.Second
)

// The opcodes.
const (
	opCont   = 0x0
	opText   = 0x1
	opBinary = 0x2
	opClose  = 0x8
	opPing   = 0x9
	opPong   = 0xA
)

// Close codes (RFC 6455, 7.4.1).
const (
	CloseNormal      = 1000
	CloseGoingAway   = 1001
	CloseProtocol    = 1002
	CloseBadData     = 1007
	ClosePolicy      = 1008
	CloseTooBig      = 1009
	CloseServerError = 1011
)

// CloseError is how a WebSocket ended: the peer's close frame, or the one
// the server sent about a bad frame.
type CloseError struct {
	Code   int
	Reason string
	Peer   bool // the page closed it
}

func (e *CloseError) Error() string {
	who := "server"
	if e.Peer {
		who = "page"
	}
	return fmt.Sprintf("websocket closed by the %s: %d %s", who, e.Code, e.Reason)
}

// WSConn is the server's end of a WebSocket. One goroutine reads; any may
// write.
type WSConn struct {
	c  net.Conn
	br *bufio.Reader

	wmu       sync.Mutex
	closeSent bool

	// The reader's: a message being reassembled from fragments.
	frag   []byte
	fragOp byte
}

func newWSConn(c net.Conn, br *bufio.Reader) *WSConn { return &WSConn{c: c, br: br} }

// ReadMessage returns the next text or binary message, answering pings on
// the way. A close from the page is answered and returned as a
// *CloseError with Peer set; a frame that breaks the protocol or the size
// cap is answered with a close naming the fault, and returned as a
// *CloseError.
func (w *WSConn) ReadMessage() (binary bool, data []byte, err error) {
	for {
		w.c.SetReadDeadline(time.Now().Add(wsIdle))
		fin, op, payload, err := w.readFrame()
		if err != nil {
			return false, nil, w.fail(err)
		}
		switch op {
		case opPing:
			if err := w.write(opPong, payload); err != nil {
				return false, nil, err
			}
		case opPong:
		case opClose:
			return false, nil, w.peerClose(payload)
		case opText, opBinary:
			if w.fragOp != 0 {
				return false, nil, w.fail(&CloseError{Code: CloseProtocol, Reason: "a new message inside a fragmented one"})
			}
			if !fin {
				w.fragOp, w.frag = op, append(w.frag[:0], payload...)
				continue
			}
			return w.message(op, payload)
		case opCont:
			if w.fragOp == 0 {
				return false, nil, w.fail(&CloseError{Code: CloseProtocol, Reason: "a continuation of no message"})
			}
			if len(w.frag)+len(payload) > wsMaxMessage {
				return false, nil, w.fail(&CloseError{Code: CloseTooBig, Reason: "message too big"})
			}
			w.frag = append(w.frag, payload...)
			if fin {
				op := w.fragOp
				w.fragOp = 0
				return w.message(op, append([]byte(nil), w.frag...))
			}
		default:
			return false, nil, w.fail(&CloseError{Code: CloseProtocol, Reason: fmt.Sprintf("unknown opcode %#x", op)})
		}
	}
}

// message checks a whole message: text must be UTF-8.
func (w *WSConn) message(op byte, data []byte) (bool, []byte, error) {
	if op == opText && !utf8.Valid(data) {
		return false, nil, w.fail(&CloseError{Code: CloseBadData, Reason: "text that is not UTF-8"})
	}
	return op == opBinary, data, nil
}

// readFrame reads one frame and unmasks it, refusing what the RFC forbids
// of a client and anything over the size cap before reading its payload.
func (w *WSConn) readFrame() (fin bool, op byte, payload []byte, err error) {
	var h [14]byte
	if _, err := io.ReadFull(w.br, h[:2]); err != nil {
		return false, 0, nil, err
	}
	fin, op = h[0]&0x80 != 0, h[0]&0x0f
	bad := func(code int, reason string) (bool, byte, []byte, error) {
		return false, 0, nil, &CloseError{Code: code, Reason: reason}
	}
	switch {
	case h[0]&0x70 != 0:
		return bad(CloseProtocol, "reserved bits set: no extension was agreed")
	case h[1]&0x80 == 0:
		return bad(CloseProtocol, "a page's frames must be masked")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		if _, err := io.ReadFull(w.br, h[2:4]); err != nil {
			return false, 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(h[2:4]))
	case 127:
		if _, err := io.ReadFull(w.br, h[2:10]); err != nil {
			return false, 0, nil, err
		}
		n = binary.BigEndian.Uint64(h[2:10])
		if n>>63 != 0 {
			return bad(CloseProtocol, "length with its top bit set")
		}
	}
	if op >= opClose {
		if !fin {
			return bad(CloseProtocol, "a fragmented control frame")
		}
		if n > 125 {
			return bad(CloseProtocol, "a control frame over 125 bytes")
		}
	}
	if n > wsMaxMessage {
		return bad(CloseTooBig, "message too big")
	}
	var mask [4]byte
	if _, err := io.ReadFull(w.br, mask[:]); err != nil {
		return false, 0, nil, err
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(w.br, payload); err != nil {
		return false, 0, nil, err
	}
	for i := range payload {
		payload[i] ^= mask[i&3]
	}
	return fin, op, payload, nil
}

// peerClose answers the page's close with its code and reports it.
func (w *WSConn) peerClose(p []byte) error {
	e := &CloseError{Code: 1005, Peer: true} // 1005: no code given
	switch {
	case len(p) == 1:
		return w.fail(&CloseError{Code: CloseProtocol, Reason: "a close frame of one byte"})
	case len(p) >= 2:
		e.Code, e.Reason = int(binary.BigEndian.Uint16(p)), string(p[2:])
		if !validCloseCode(e.Code) {
			return w.fail(&CloseError{Code: CloseProtocol, Reason: fmt.Sprintf("close code %d", e.Code)})
		}
		if !utf8.ValidString(e.Reason) {
			return w.fail(&CloseError{Code: CloseBadData, Reason: "a close reason that is not UTF-8"})
		}
	}
	code := e.Code
	if code == 1005 {
		code = CloseNormal
	}
	_ = w.Close(code, "")
	return e
}

// validCloseCode reports whether a page may send code (RFC 6455 7.4 and
// IANA's registry): 1005, 1006 and 1015 are never sent.
func validCloseCode(code int) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014:
		return true
	}
	return code >= 3000 && code <= 4999
}

// fail sends the close a read error calls for, if it is a fault of the
// page's, and returns the error.
func (w *WSConn) fail(err error) error {
	var ce *CloseError
	if errors.As(err, &ce) && !ce.Peer {
		_ = w.Close(ce.Code, ce.Reason)
	}
	return err
}

// WriteMessage sends one message, binary or text, unfragmented.
func (w *WSConn) WriteMessage(binary bool, data []byte) error {
	op := byte(opText)
	if binary {
		op = opBinary
	}
	return w.write(op, data)
}

// Ping sends a ping; the page's pong keeps the connection from idling out.
func (w *WSConn) Ping() error { return w.write(opPing, nil) }

// Close sends a close frame with code and reason, once; it does not close
// the connection, which the server does when the handler returns.
func (w *WSConn) Close(code int, reason string) error {
	if len(reason) > 123 {
		reason = reason[:123] // a control frame's payload is at most 125 bytes
		for !utf8.ValidString(reason) {
			reason = reason[:len(reason)-1]
		}
	}
	p := binary.BigEndian.AppendUint16(nil, uint16(code))
	return w.write(opClose, append(p, reason...))
}

var errCloseSent = errors.New("websocket: close sent")

func (w *WSConn) write(op byte, data []byte) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.closeSent {
		return errCloseSent
	}
	w.closeSent = op == opClose
	var h [10]byte
	h[0] = 0x80 | op
	n := 2
	switch l := len(data); {
	case l < 126:
		h[1] = byte(l)
	case l <= 0xffff:
		h[1] = 126
		binary.BigEndian.PutUint16(h[2:], uint16(l))
		n = 4
	default:
		h[1] = 127
		binary.BigEndian.PutUint64(h[2:], uint64(l))
		n = 10
	}
	w.c.SetWriteDeadline(time.Now().Add(wsWrite))
	if _, err := w.c.Write(h[:n]); err != nil {
		return err
	}
	_, err := w.c.Write(data)
	return err
}

// wsAccept is the Sec-WebSocket-Accept answer to a key.
func wsAccept(key string) string {
	h := sha1.Sum([]byte(key + wsGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// upgradeProblem says what is wrong with a WebSocket handshake, or "".
func upgradeProblem(req request) (status int, problem string) {
	switch {
	case req.method != "GET":
		return 405, "a WebSocket opens with a GET"
	case !strings.EqualFold(req.upgrade, "websocket") || !req.connUpgrade:
		return 400, "this address is a WebSocket: Upgrade: websocket"
	case req.wsVersion != "13":
		return 400, "WebSocket version 13 only"
	}
	if k, err := base64.StdEncoding.DecodeString(req.wsKey); err != nil || len(k) != 16 {
		return 400, "a Sec-WebSocket-Key of 16 bytes in base64"
	}
	// The run is this machine's: it is reached by a loopback name, never
	// by one a page's DNS points here (rebinding), and a page of another
	// site must not drive it: a browser names the page's origin, which
	// must be this server.
	if !loopbackHost(req.host) {
		return 403, "the live run answers on a loopback address only"
	}
	if req.origin != "" && !sameOrigin(req.origin, req.host) {
		return 403, "a page of another origin"
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

// serveLive answers a request for the WebSocket: the handshake, then live
// on the connection until it returns, or an error response.
func serveLive(ctx context.Context, c net.Conn, br *bufio.Reader, bw *bufio.Writer, req request, live LiveHandler) {
	if status, problem := upgradeProblem(req); status != 0 {
		c.SetWriteDeadline(time.Now().Add(writeTimeout))
		writeResponse(bw, response{status: status, text: problem}, false, true)
		return
	}
	c.SetWriteDeadline(time.Now().Add(writeTimeout))
	bw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n")
	bw.WriteString("Sec-WebSocket-Accept: " + wsAccept(req.wsKey) + "\r\n\r\n")
	if bw.Flush() != nil {
		return
	}
	ws := newWSConn(c, br)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pinged := make(chan struct{})
	go func() {
		defer close(pinged)
		t := time.NewTicker(wsPing)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if ws.Ping() != nil {
					return
				}
			}
		}
	}()
	err := live(ctx, ws)
	cancel()
	<-pinged
	var ce *CloseError
	switch {
	case err == nil:
		_ = ws.Close(CloseGoingAway, "the server stops")
	case errors.As(err, &ce):
		// Sent already, or the page's own.
	default:
		_ = ws.Close(CloseServerError, err.Error())
	}
}
