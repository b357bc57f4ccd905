// Command probe puts hostile clients on a server that reactorviz serve
// runs, one probe at a time, and says how the server answered. It is run by
// docs/bench/probe-serve.sh, which records the server's descriptors,
// threads and memory around it.
//
//	probe -addr 127.0.0.1:18199 -proto http slowloris
//
// Probes: slowloris, headers, longline, flood, bulk, rst, conns, cycles,
// hold (open -n connections and keep them until stdin closes), answer
// (-n fresh connections, each one request: how many are answered).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	addr  = flag.String("addr", "127.0.0.1:18199", "the server")
	proto = flag.String("proto", "http", "echo, http or resp")
	n     = flag.Int("n", 100, "connections (conns, hold, answer, slowloris, flood) or cycles")
	dur   = flag.Duration("d", 3*time.Second, "how long a timed probe lasts")
)

func main() {
	flag.Parse()
	probes := map[string]func() string{
		"slowloris": slowloris, "headers": headers, "longline": longline, "flood": flood,
		"bulk": bulk, "rst": rst, "conns": conns, "cycles": cycles, "hold": hold, "answer": answer,
	}
	p, ok := probes[flag.Arg(0)]
	if !ok {
		fmt.Fprintln(os.Stderr, "probe: unknown probe", flag.Arg(0))
		os.Exit(2)
	}
	fmt.Println(flag.Arg(0) + ": " + p())
}

// request is one well-formed request of the protocol.
func request() string {
	switch *proto {
	case "resp":
		return "*1\r\n$4\r\nPING\r\n"
	case "echo":
		return "ping\n"
	}
	return "GET / HTTP/1.1\r\nHost: probe\r\n\r\n"
}

// fate says how a connection ended: the server closed it, reset it, or
// left it open until the deadline.
func fate(c net.Conn, d time.Duration) string {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	switch {
	case err == nil:
		return "closed"
	case errors.As(err, &ne) && ne.Timeout():
		return "open"
	case strings.Contains(err.Error(), "reset"):
		return "reset"
	}
	return err.Error()
}

// count tallies outcomes across goroutines.
type count struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *count) add(k string) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[k]++
	c.mu.Unlock()
}

func (c *count) String() string { return fmt.Sprint(c.m) }

// slowloris: -n connections each send a request's head a byte at a time,
// one byte every 100 ms, for -d.
func slowloris() string {
	var out count
	var wg sync.WaitGroup
	head := "GET / HTTP/1.1\r\n" + strings.Repeat("X-Slow: 1\r\n", 1000)
	for range *n {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			out.add("dial: " + err.Error())
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			end := time.Now().Add(*dur)
			for i := 0; time.Now().Before(end); i++ {
				if _, err := c.Write([]byte{head[i%len(head)]}); err != nil {
					out.add("closed by server")
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			out.add("still open")
		}()
	}
	wg.Wait()
	return out.String()
}

// headers: one connection sends header lines without end.
func headers() string {
	c, err := net.Dial("tcp", *addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	line := []byte("X-Endless: " + strings.Repeat("a", 100) + "\r\n")
	if *proto != "http" {
		line = []byte(strings.Repeat("a", 110) + "\r\n")
	} else {
		c.Write([]byte("GET / HTTP/1.1\r\n"))
	}
	sent := 0
	c.SetWriteDeadline(time.Now().Add(*dur))
	for sent < 64<<20 {
		k, err := c.Write(line)
		sent += k
		if err != nil {
			break
		}
	}
	return fmt.Sprintf("sent %d KiB, then %s", sent>>10, fate(c, time.Second))
}

// longline: a 1 MB request line.
func longline() string {
	c, err := net.Dial("tcp", *addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	c.SetWriteDeadline(time.Now().Add(*dur))
	_, werr := c.Write([]byte("GET /" + strings.Repeat("a", 1<<20) + " HTTP/1.1\r\n\r\n"))
	return fmt.Sprintf("write: %v; then %s", werr, fate(c, time.Second))
}

// flood: -n connections pipeline requests without reading for -d.
func flood() string {
	var sent atomic.Int64
	var wg sync.WaitGroup
	batch := []byte(strings.Repeat(request(), 512))
	for range *n {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			c.SetWriteDeadline(time.Now().Add(*dur))
			for {
				k, err := c.Write(batch)
				sent.Add(int64(k))
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return fmt.Sprintf("%d connections sent %d MiB without reading", *n, sent.Load()>>20)
}

// bulk: a RESP array whose bulk string claims a giant length.
func bulk() string {
	c, err := net.Dial("tcp", *addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	c.Write([]byte("*1\r\n$999999999999\r\nPING"))
	return fate(c, *dur)
}

// rst: -n connections send half a request and reset.
func rst() string {
	half := request()[:len(request())/2]
	ok := 0
	for range *n {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			continue
		}
		c.Write([]byte(half))
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
		ok++
	}
	return fmt.Sprintf("%d resets mid-request", ok)
}

// conns: -n connections at once, one request each, then all closed.
func conns() string {
	var cs []net.Conn
	var out count
	for range *n {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			out.add("dial failed")
			continue
		}
		cs = append(cs, c)
	}
	for _, c := range cs {
		out.add(ask(c))
		c.Close()
	}
	return out.String()
}

// cycles: -n connect/close cycles, one after another.
func cycles() string {
	fails := 0
	for range *n {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			fails++
			continue
		}
		c.Close()
	}
	return fmt.Sprintf("%d cycles, %d dials failed", *n, fails)
}

// hold opens -n connections and keeps them until stdin closes.
func hold() string {
	var cs []net.Conn
	for range *n {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			break
		}
		cs = append(cs, c)
	}
	fmt.Printf("hold: %d connections open\n", len(cs))
	io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	for _, c := range cs {
		c.Close()
	}
	return fmt.Sprintf("released %d", len(cs))
}

// answer: -n fresh connections, one request each.
func answer() string {
	var out count
	for range *n {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			out.add("dial failed")
			continue
		}
		out.add(ask(c))
		c.Close()
	}
	return out.String()
}

// ask sends one request and reports whether an answer came.
func ask(c net.Conn) string {
	if _, err := c.Write([]byte(request())); err != nil {
		return "write failed"
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 1)
	if _, err := c.Read(b); err != nil {
		if strings.Contains(err.Error(), "reset") {
			return "reset"
		}
		return "no answer"
	}
	return "answered"
}
