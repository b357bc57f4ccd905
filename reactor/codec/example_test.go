package codec_test

import (
	"fmt"

	"github.com/reactorviz/reactorviz/reactor/codec"
)

// A connection's read path: the pending tail of the last read plus the new
// bytes go to the handler, the replies go out in one write, and what was not
// consumed waits for the next read.
func ExampleHandleHTTP() {
	reads := []string{
		"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HT",      // one request and a half
		"TP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", // the rest, asking to close
	}
	var pending, out []byte
	for _, r := range reads {
		pending = append(pending, r...)
		n, _, reply, closeConn, err := codec.HandleHTTP(pending, out[:0], 0)
		if err != nil {
			reply = codec.AppendHTTPError(reply, err)
		}
		out = reply
		pending = append(pending[:0], pending[n:]...)
		fmt.Printf("consumed %d, wrote %d bytes, pending %d, close %v\n", n, len(out), len(pending), closeConn)
		if closeConn {
			break
		}
	}
	// Output:
	// consumed 27, wrote 78 bytes, pending 8, close false
	// consumed 46, wrote 97 bytes, pending 0, close true
}

func ExampleHandleRESP() {
	in := []byte("PING\r\n*1\r\n$4\r\nPING\r\n*2\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n*1\r\n$4\r\nPI")
	n, _, out, _, _ := codec.HandleRESP(in, nil, 0)
	fmt.Printf("%q\nconsumed %d of %d\n", out, n, len(in))
	// Output:
	// "+PONG\r\n+PONG\r\n-ERR unknown command\r\n"
	// consumed 45 of 55
}
