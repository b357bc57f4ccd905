package load

import (
	"fmt"

	"github.com/reactorviz/reactorviz/reactor/codec"
)

// exchange knows one protocol's request and expected response.
type exchange interface {
	// request appends request number seq of connection conn to dst.
	request(dst []byte, conn, seq int) []byte
	// responseLen is the length of the response to that request.
	responseLen() int
	// check reports whether got answers request seq of conn.
	check(got []byte, conn, seq int) bool
}

func newExchange(protocol string, payload int) (exchange, error) {
	switch protocol {
	case "echo":
		return echoExchange{size: max(payload, 1)}, nil
	case "http":
		return httpExchange{}, nil
	case "resp":
		return respExchange{}, nil
	}
	return nil, fmt.Errorf("load: unknown protocol %q", protocol)
}

// echoExchange sends payloads whose bytes depend on the connection and the
// sequence number, so a byte echoed to the wrong place or out of order is
// caught, not just a short read.
type echoExchange struct{ size int }

func (e echoExchange) request(dst []byte, conn, seq int) []byte {
	for i := 0; i < e.size; i++ {
		dst = append(dst, byte('a'+(conn*31+seq*7+i)%26))
	}
	return dst
}

func (e echoExchange) responseLen() int { return e.size }

func (e echoExchange) check(got []byte, conn, seq int) bool {
	for i, b := range got {
		if b != byte('a'+(conn*31+seq*7+i)%26) {
			return false
		}
	}
	return len(got) == e.size
}

type httpExchange struct{}

func (httpExchange) request(dst []byte, _, _ int) []byte {
	return append(dst, "GET / HTTP/1.1\r\nHost: reactorviz\r\n\r\n"...)
}
func (httpExchange) responseLen() int { return len(codec.HTTPResponse) }
func (httpExchange) check(got []byte, _, _ int) bool {
	return string(got) == codec.HTTPResponse
}

// respExchange alternates PING inline and as a RESP array, as
// redis-benchmark's ping_inline and ping_mbulk do.
type respExchange struct{}

func (respExchange) request(dst []byte, _, seq int) []byte {
	if seq%2 == 0 {
		return append(dst, "PING\r\n"...)
	}
	return append(dst, "*1\r\n$4\r\nPING\r\n"...)
}
func (respExchange) responseLen() int                { return len(codec.RESPPong) }
func (respExchange) check(got []byte, _, _ int) bool { return string(got) == codec.RESPPong }

// RequestSize is the mean size of one request of protocol, for a server
// that counts requests by bytes; 0 for an unknown protocol.
func RequestSize(protocol string, payload int) int {
	ex, err := newExchange(protocol, payload)
	if err != nil {
		return 0
	}
	a, b := ex.request(nil, 0, 0), ex.request(nil, 0, 1)
	return max((len(a)+len(b))/2, 1)
}
