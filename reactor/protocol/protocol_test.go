package protocol

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
)

func serve(t *testing.T, proto string) string {
	t.Helper()
	init, err := New(proto, 0)
	if err != nil {
		t.Fatal(err)
	}
	boss, err := reactor.NewEventLoopGroup("boss", 1, reactor.Config{})
	if err != nil {
		t.Fatal(err)
	}
	worker, err := reactor.NewEventLoopGroup("worker", 1, reactor.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		boss.ShutdownGracefully(0, time.Second)
		worker.ShutdownGracefully(0, time.Second)
		boss.AwaitTermination(5 * time.Second)
		worker.AwaitTermination(5 * time.Second)
	})
	sc, err := (&reactor.ServerBootstrap{Boss: boss, Worker: worker, ChildInit: init}).Bind("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return sc.Addr().String()
}

const httpReply = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"

func TestProtocolsOverLoopback(t *testing.T) {
	for _, tc := range []struct {
		proto string
		send  []string // written one after another; how reads split them is the kernel's (codec's split tests cover every split)
		want  string
	}{
		{proto: "echo", send: []string{"abc", "def"}, want: "abcdef"},
		{proto: "http", send: []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\n"}, want: httpReply},
		{proto: "http", send: []string{"GET / HT", "TP/1.1\r\nHo", "st: x\r\n\r\nGET /2 HTTP/1.1\r\n\r\n"},
			want: httpReply + httpReply},
		{proto: "resp", send: []string{"PING\r\n", "*1\r\n$4\r\nPI", "NG\r\n"}, want: "+PONG\r\n+PONG\r\n"},
		{proto: "http+resp", send: []string{"PING\r\nGET / HTTP/1.1\r\n\r\n*1\r\n$4\r\nPING\r\n"},
			want: "+PONG\r\n" + httpReply + "+PONG\r\n"},
	} {
		t.Run(tc.proto, func(t *testing.T) {
			c, err := net.Dial("tcp", serve(t, tc.proto))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, s := range tc.send {
				if _, err := io.WriteString(c, s); err != nil {
					t.Fatal(err)
				}
			}
			got := make([]byte, len(tc.want))
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(c, got); err != nil || string(got) != tc.want {
				t.Fatalf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}

// A request head over the limit gets an error reply and the connection
// closes: a hostile client cannot grow the server's memory.
func TestOversizeRequestIsRefused(t *testing.T) {
	c, err := net.Dial("tcp", serve(t, "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go io.WriteString(c, "GET / HTTP/1.1\r\nX: "+strings.Repeat("a", 64<<10))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	status, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.Contains(status, "431") && !strings.Contains(status, "400") {
		t.Fatalf("status line %q (%v)", status, err)
	}
	// The server closes with the rest of the request unread, so the
	// kernel may end the connection with a reset rather than a FIN: both
	// mean closed.
	if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("connection not closed: %v", err)
	}
}

func TestUnknownProtocol(t *testing.T) {
	if _, err := New("gopher", 0); err == nil {
		t.Fatal("unknown protocol accepted")
	}
}
