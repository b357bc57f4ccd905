//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"sync"
	"syscall/js"
)

// jsConn is the page's WebSocket to a live run (sim/remote's Conn), the
// browser's own: its callbacks only queue what arrives, since a callback
// that blocks would block the page.
type jsConn struct {
	ws js.Value

	mu     sync.Mutex
	cond   *sync.Cond
	in     []jsMsg
	opened bool
	err    error // set once the socket has closed

	funcs  []js.Func
	events []string
}

type jsMsg struct {
	binary bool
	data   []byte
}

// dialLive opens url and waits until the socket is open or has failed.
func dialLive(url string) (*jsConn, error) {
	c := &jsConn{}
	c.cond = sync.NewCond(&c.mu)
	ws := js.Global().Get("WebSocket").New(url)
	ws.Set("binaryType", "arraybuffer")
	c.ws = ws
	c.on("open", func(js.Value) {
		c.mu.Lock()
		c.opened = true
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	c.on("message", func(ev js.Value) {
		d := ev.Get("data")
		var m jsMsg
		if d.Type() == js.TypeString {
			m.data = []byte(d.String())
		} else {
			u := js.Global().Get("Uint8Array").New(d)
			m.binary, m.data = true, make([]byte, u.Get("length").Int())
			js.CopyBytesToGo(m.data, u)
		}
		c.mu.Lock()
		c.in = append(c.in, m)
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	c.on("close", func(ev js.Value) {
		reason := ev.Get("reason").String()
		if reason == "" {
			reason = "the connection closed"
		}
		c.fail(fmt.Errorf("live run: %s (%d)", reason, ev.Get("code").Int()))
	})
	c.on("error", func(js.Value) {
		c.fail(errors.New("live run: no connection to a run here (reactorviz run NAME --web serves one)"))
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.opened && c.err == nil {
		c.cond.Wait()
	}
	if !c.opened {
		return nil, c.err
	}
	return c, nil
}

func (c *jsConn) on(event string, f func(js.Value)) {
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any {
		f(args[0])
		return nil
	})
	c.funcs, c.events = append(c.funcs, fn), append(c.events, event)
	c.ws.Call("addEventListener", event, fn)
}

func (c *jsConn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	c.cond.Broadcast()
}

// ReadMessage returns what arrived, in order; after a close, the close.
func (c *jsConn) ReadMessage() (bool, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.in) == 0 && c.err == nil {
		c.cond.Wait()
	}
	if len(c.in) == 0 {
		return false, nil, c.err
	}
	m := c.in[0]
	c.in[0] = jsMsg{}
	c.in = c.in[1:]
	return m.binary, m.data, nil
}

// WriteMessage sends a message; the browser queues it.
func (c *jsConn) WriteMessage(binary bool, data []byte) error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if !binary {
		c.ws.Call("send", string(data))
		return nil
	}
	u := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(u, data)
	c.ws.Call("send", u)
	return nil
}

// Close closes the socket and lets go of the callbacks.
func (c *jsConn) Close() {
	c.ws.Call("close", 1000, "the page closed the live run")
	c.fail(errors.New("live run: closed"))
	// A callback released while the socket can still call it would
	// panic: it is unhooked first.
	for i, f := range c.funcs {
		c.ws.Call("removeEventListener", c.events[i], f)
		f.Release()
	}
}
