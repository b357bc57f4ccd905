package remote

import (
	"errors"
	"io"
	"testing"

	"github.com/reactorviz/reactorviz/sim"
)

// onceConn yields one message, then the end of the connection.
type onceConn struct {
	binary bool
	data   []byte
	read   bool
}

func (c *onceConn) ReadMessage() (bool, []byte, error) {
	if c.read {
		return false, nil, io.EOF
	}
	c.read = true
	return c.binary, c.data, nil
}

func (c *onceConn) WriteMessage(bool, []byte) error { return nil }

// Whatever a page sends, the host takes it as a control or lets the page go
// with the close code of its fault, and never panics; whatever a host
// sends, a page's client takes it or ends its connection with an error.
func FuzzLiveMessage(f *testing.F) {
	for _, s := range []string{`{"op":"new"}`, `{"op":"pause","loop":0,"run":true,"reason":"x"}`,
		`{"op":"step","loop":-1,"iteration":true}`, `{"op":"slow","loop":2,"delay":-5}`,
		`{"op":"breaks","loop":0,"breaks":{"rebuild":true,"queue_above":64}}`, `{"op":`, `[]`, `null`,
		`{"t":"state","seq":3,"state":{"loops":[{"state":"started"}]}}`, `{"t":"built","loops":[],"controls":5}`,
		`{"t":"ended","summary":{}}`, `{"t":"started","addrs":["127.0.0.1:1"]}`} {
		f.Add(false, []byte(s))
	}
	f.Add(true, []byte("{\"t\":\"trace\"}\n"))
	f.Fuzz(func(t *testing.T, binary bool, data []byte) {
		o, err := readOp(binary, data)
		if err != nil {
			var ce *closeError
			if !errors.As(err, &ce) || (ce.code != 1003 && ce.code != 1008 && ce.code != 1009) {
				t.Fatalf("%q: %v is not a page's fault with its close code", data, err)
			}
		} else {
			h := NewHost(func(io.Writer) (*sim.Run, error) { return nil, errors.New("no runs here") })
			p := &page{h: h, c: &onceConn{}, out: newOutbox(1 << 20)}
			p.apply(o)
		}
		cl := NewClient(&onceConn{binary: binary, data: data})
		<-cl.Gone()
		if cl.Err() == nil {
			t.Fatal("a client's connection ended without a reason")
		}
	})
}
