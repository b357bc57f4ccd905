//go:build linux && !nolive

package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
)

// run NAME --web serves the page and the live run's WebSocket on
// loopback, prints the URL with #live, runs the scenario when a page asks
// (its controls and trace go over the socket), and stops on SIGINT with
// the run's summary.
func TestRunWebServesTheLiveRun(t *testing.T) {
	if !reactor.Live {
		t.Skip("live runs need the Linux engine")
	}
	t.Run("run", func(t *testing.T) {
		webLive(t, "#live", "reactor-0", "run", "single-reactor", "--web", "--web-port", "0", "--duration", "30s")
	})
	t.Run("serve", func(t *testing.T) {
		webLive(t, "#live,serve", "boss-0", "serve", "--addr", "127.0.0.1:0", "--workers", "1", "--web", "--web-port", "0")
	})
}

// webLive runs the command args, which serves a live run in the browser at
// a URL ending in frag, and drives it as a page would over the WebSocket:
// a run whose loops include loop is built, started and streams its trace;
// SIGINT stops it and prints its summary.
func webLive(t *testing.T, frag, loop string, args ...string) {
	t.Helper()
	cmd := exec.Command(buildReactorviz(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/(#\S+)`).FindStringSubmatch(line)
	if m == nil || m[2] != frag {
		t.Fatalf("no loopback URL with %s in %q", frag, line)
	}
	addr := m[1]
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(br); rest <- string(b) }()

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(c, "GET /live HTTP/1.1\r\nHost: %s\r\nOrigin: http://%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr, addr)
	cr := bufio.NewReader(c)
	resp, err := http.ReadResponse(cr, nil)
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	send := func(text string) {
		mask := []byte{1, 2, 3, 4}
		f := append([]byte{0x81, 0x80 | byte(len(text))}, mask...)
		for i := range len(text) {
			f = append(f, text[i]^mask[i&3])
		}
		if _, err := c.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	// next reads a message: binary (the trace) or text (JSON).
	next := func() (bool, []byte) {
		var h [2]byte
		if _, err := io.ReadFull(cr, h[:]); err != nil {
			t.Fatal(err)
		}
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			io.ReadFull(cr, b[:])
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			io.ReadFull(cr, b[:])
			n = binary.BigEndian.Uint64(b[:])
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(cr, p); err != nil {
			t.Fatal(err)
		}
		return h[0]&0x0f == 2, p
	}
	send(`{"op":"new"}`)
	if isBinary, p := next(); isBinary || !strings.Contains(string(p), `"t":"built"`) || !strings.Contains(string(p), `"`+loop+`"`) {
		t.Fatalf("after new: %s", p)
	}
	send(`{"op":"start"}`)
	var started, traced bool
	for !started || !traced {
		isBinary, p := next()
		switch {
		case isBinary:
			traced = traced || strings.Contains(string(p), `"format":"reactorviz-trace"`)
		case strings.Contains(string(p), `"t":"started"`):
			started = true
		}
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGINT: %v", err)
	}
	if out := <-rest; !strings.Contains(out, loop) {
		t.Errorf("no summary of the run at the end:\n%s", out)
	}
}

func TestRunWebRefusesHeadless(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "single-reactor", "--web", "--headless")
	if code != exitUsage || !strings.Contains(stderr, "--web") {
		t.Fatalf("run --web --headless: exit %d, %q", code, stderr)
	}
}

func TestRunWebRefusesARemoteHost(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "single-reactor", "--web", "--web-host", "0.0.0.0")
	if code != exitUsage || !strings.Contains(stderr, "--web-host 0.0.0.0") {
		t.Fatalf("run --web --web-host 0.0.0.0: exit %d, %q", code, stderr)
	}
}
