package remote

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/reactorviz/reactorviz/web"
)

// The remote-run tests talk over the live run's own WebSocket: package
// web's server on a loopback socket, and a page's end dialled to it.

// pageConn is a page's end of the live run's WebSocket.
type pageConn struct{ c *websocket.Conn }

func (p pageConn) ReadMessage() (bool, []byte, error) {
	typ, data, err := p.c.Read(context.Background())
	return typ == websocket.MessageBinary, data, err
}

func (p pageConn) WriteMessage(binary bool, data []byte) error {
	typ := websocket.MessageText
	if binary {
		typ = websocket.MessageBinary
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.c.Write(ctx, typ, data)
}

// Close ends the page as a closed tab does: the socket goes, no close
// frame.
func (p pageConn) Close() { p.c.CloseNow() }

// serveHost serves h's live run on a loopback port, as run --web does,
// until the test ends; every Serve's result goes to served.
func serveHost(t *testing.T, h *Host) (addr string, served <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	results := make(chan error, 16)
	done := make(chan error, 1)
	go func() {
		done <- new(web.Site).ServeLive(ctx, ln, func(ctx context.Context, c *web.WSConn) error {
			err := h.Serve(ctx, c)
			results <- err
			return err
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeLive: %v", err)
		}
	})
	return ln.Addr().String(), results
}

// dialHost opens a page's WebSocket to the live run at addr.
func dialHost(t *testing.T, addr string) pageConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+web.LivePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(16 << 20) // the trace comes in messages of up to 256 KiB
	t.Cleanup(func() { c.CloseNow() })
	return pageConn{c}
}

// closeCode is the code of the close frame that ended err, or -1.
func closeCode(err error) int {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	return -1
}
