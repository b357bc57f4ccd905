package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/web/internal/sitebuild"
)

// The site is a handful of static files, so it is served by the small
// HTTP/1.1 server below rather than net/http's, whose server (with its
// HTTP/2 and TLS) would add 4.3 MiB to the binary, more than the site
// itself. It answers GET and HEAD, keeps connections alive, and closes one
// that idles or sends anything else.
const (
	idleTimeout  = 30 * time.Second // a connection between requests, or a slow request
	writeTimeout = 60 * time.Second // one response, the program included
	maxHeader    = 16 << 10         // the request line and headers
)

// Serve serves the site on ln until ctx ends, then closes ln and every
// connection and returns nil; an accept error ends it early.
func (s *Site) Serve(ctx context.Context, ln net.Listener) error { return s.ServeLive(ctx, ln, nil) }

// ServeLive is Serve with a live run: a page's WebSocket at LivePath goes
// to live, which may be nil for none.
func (s *Site) ServeLive(ctx context.Context, ln net.Listener, live LiveHandler) error {
	var (
		mu     sync.Mutex
		conns  = map[net.Conn]struct{}{}
		wg     sync.WaitGroup
		closed bool
	)
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		closed = true
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		ln.Close()
	})
	defer func() {
		stop()
		wg.Wait()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			ln.Close()
			return err
		}
		mu.Lock()
		if closed {
			mu.Unlock()
			c.Close()
			return nil
		}
		conns[c] = struct{}{}
		wg.Add(1)
		mu.Unlock()
		go func() {
			defer wg.Done()
			s.serveConn(ctx, c, live)
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		}()
	}
}

// request is what the server reads of a request.
type request struct {
	method, target string
	close          bool // HTTP/1.0, or Connection: close
	gzip           bool // Accept-Encoding takes gzip
	body           bool // a body was announced

	// A WebSocket's handshake (ws.go).
	upgrade      string // Upgrade
	connUpgrade  bool   // Connection lists upgrade
	wsKey        string
	wsVersion    string
	origin, host string
}

func (s *Site) serveConn(ctx context.Context, c net.Conn, live LiveHandler) {
	defer c.Close()
	br := bufio.NewReader(c)
	bw := bufio.NewWriter(c)
	for {
		c.SetReadDeadline(time.Now().Add(idleTimeout))
		req, err := readRequest(br)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.SetWriteDeadline(time.Now().Add(writeTimeout))
				writeResponse(bw, response{status: 400, text: "bad request: " + err.Error()}, false, true)
			}
			return
		}
		if p, _ := sitePath(req.target); p == strings.TrimPrefix(LivePath, "/") || req.upgrade != "" {
			if live == nil || p != strings.TrimPrefix(LivePath, "/") {
				c.SetWriteDeadline(time.Now().Add(writeTimeout))
				writeResponse(bw, response{status: 404, text: "no live run here: reactorviz run NAME --web serves one"}, false, true)
				return
			}
			serveLive(ctx, c, br, bw, req, live)
			return
		}
		resp := s.respond(req)
		// After a request it could not make sense of, or one with a body
		// it did not read, the connection is not trusted with another.
		closeAfter := req.close || req.body || resp.status == 400 || resp.status == 405
		c.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := writeResponse(bw, resp, req.method == "HEAD", closeAfter); err != nil || closeAfter {
			return
		}
	}
}

// readRequest reads a request line and headers; a GET or HEAD has no
// body, and one that announces a body is answered and the connection
// closed.
func readRequest(br *bufio.Reader) (request, error) {
	var req request
	budget := maxHeader
	line, err := readLine(br, &budget)
	if err != nil {
		return req, err
	}
	parts := strings.Fields(line)
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") {
		return req, fmt.Errorf("request line %q", line)
	}
	req.method, req.target, req.close = parts[0], parts[1], parts[2] == "HTTP/1.0"
	for {
		line, err := readLine(br, &budget)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return req, err
		}
		if line == "" {
			return req, nil
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return req, fmt.Errorf("header line %q", line)
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "connection":
			for _, tok := range strings.Split(value, ",") {
				tok = strings.TrimSpace(tok)
				req.close = req.close || strings.EqualFold(tok, "close")
				req.connUpgrade = req.connUpgrade || strings.EqualFold(tok, "upgrade")
			}
		case "upgrade":
			req.upgrade = value
		case "sec-websocket-key":
			req.wsKey = value
		case "sec-websocket-version":
			req.wsVersion = value
		case "origin":
			req.origin = value
		case "host":
			req.host = value
		case "accept-encoding":
			req.gzip = acceptsGzip(value)
		case "content-length":
			req.body = req.body || value != "0"
		case "transfer-encoding":
			req.body = true
		}
	}
}

// readLine reads a CRLF- (or LF-) ended line within what is left of the
// header budget.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		*budget -= len(chunk)
		if *budget < 0 {
			return "", errors.New("request header too large")
		}
		b = append(b, chunk...)
		if err == nil {
			return strings.TrimRight(string(b), "\r\n"), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(b) > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
	}
}

// response is a response before it is written.
type response struct {
	status      int
	contentType string
	encoding    string // Content-Encoding, if any
	vary        bool   // the body depends on Accept-Encoding
	body        []byte
	text        string // the body of an error, as text
}

// respond picks the file a request names. main.wasm goes out gzipped with
// Content-Encoding when the browser takes it (every current one does),
// else unzipped; the recordings go out as the gzip files they are, which
// the page unzips.
func (s *Site) respond(req request) response {
	if req.method != "GET" && req.method != "HEAD" {
		return response{status: 405, text: "method not allowed"}
	}
	if req.body {
		return response{status: 400, text: "a GET has no body"}
	}
	name, ok := sitePath(req.target)
	if !ok {
		return response{status: 400, text: "bad path"}
	}
	if name == "main.wasm" {
		gz := s.files[sitebuild.WasmName]
		if req.gzip {
			return response{status: 200, contentType: "application/wasm", encoding: "gzip", vary: true, body: gz}
		}
		data, err := gunzip(gz)
		if err != nil {
			return response{status: 500, text: err.Error()}
		}
		return response{status: 200, contentType: "application/wasm", vary: true, body: data}
	}
	data, ok := s.files[name]
	if !ok || name == sitebuild.WasmName {
		return response{status: 404, text: "not found"}
	}
	ct := contentType(name)
	if strings.HasSuffix(name, ".gz") {
		ct = "application/gzip"
	}
	return response{status: 200, contentType: ct, body: data}
}

// sitePath turns a request target into a file name of the site: the query
// dropped, escapes undone, dot segments resolved, "/" the page.
func sitePath(target string) (string, bool) {
	if !strings.HasPrefix(target, "/") {
		return "", false
	}
	p, _, _ := strings.Cut(target, "?")
	p, err := url.PathUnescape(p)
	if err != nil {
		return "", false
	}
	p = strings.TrimPrefix(path.Clean(p), "/")
	if p == "" {
		p = "index.html"
	}
	return p, true
}

var statusText = map[int]string{200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error"}

func writeResponse(bw *bufio.Writer, r response, head, closeAfter bool) error {
	if r.status != 200 {
		r.contentType, r.body = "text/plain; charset=utf-8", []byte(r.text+"\n")
	}
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", r.status, statusText[r.status])
	fmt.Fprintf(bw, "Content-Type: %s\r\nContent-Length: %d\r\n", r.contentType, len(r.body))
	// The site changes whenever the binary does: no stale program.
	bw.WriteString("Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\n")
	if r.encoding != "" {
		fmt.Fprintf(bw, "Content-Encoding: %s\r\n", r.encoding)
	}
	if r.vary {
		bw.WriteString("Vary: Accept-Encoding\r\n")
	}
	if r.status == 405 {
		bw.WriteString("Allow: GET, HEAD\r\n")
	}
	if closeAfter {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
	if !head {
		bw.Write(r.body)
	}
	return bw.Flush()
}

// acceptsGzip reads an Accept-Encoding header: gzip listed, and not with
// q=0.
func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) != "gzip" {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
