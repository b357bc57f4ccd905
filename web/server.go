package web

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/reactorviz/reactorviz/web/internal/sitebuild"
)

// The site is served by net/http's server: it parses what a browser, or
// anyone who can reach the port, sends, with the standard library's
// conformance (RFC 9112: one Host, no space before a colon, no obs-fold)
// and its fixes as Go's releases bring them. What is bounded here is the
// work a client can make the server do: the request's size and time, the
// connections held (limit.go), the memory one response takes.
const (
	readHeaderTimeout = 10 * time.Second // the request line and headers
	readTimeout       = 15 * time.Second // the whole request: the site takes no body
	writeTimeout      = 60 * time.Second // one response, the program included
	idleTimeout       = 30 * time.Second // a kept-alive connection between requests
	maxHeaderBytes    = 16 << 10         // the request line and headers
	// MaxConns bounds the connections served at once, and with them the
	// server's goroutines; past it the longest idle connection is let go
	// (limit.go).
	MaxConns = 256
)

// Serve serves the site on ln until ctx ends, then closes ln and every
// connection and returns nil; an error of the listener that is not
// temporary ends it early. Temporary ones, such as the process's fd limit,
// are waited out.
func (s *Site) Serve(ctx context.Context, ln net.Listener) error { return s.ServeLive(ctx, ln, nil) }

// ServeLive is Serve with a live run: a page's WebSocket at LivePath goes
// to live, which may be nil for none.
func (s *Site) ServeLive(ctx context.Context, ln net.Listener, live LiveHandler) error {
	lim := newConnLimiter(ln, MaxConns)
	lh := &liveServer{handler: live}
	mux := http.NewServeMux()
	mux.Handle(LivePath, lh)
	mux.Handle("/", newSiteHandler(s.fsys()))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ConnState:         lim.track,
		// A live run's WebSocket ends with ctx, through the request's
		// context.
		BaseContext: func(net.Listener) context.Context { return ctx },
		// What a client gets wrong is its own business: the terminal
		// the server runs in is not told.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	err := srv.Serve(lim)
	srv.Close()
	lh.wait()
	if errors.Is(err, http.ErrServerClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

// fsys is the site as a file system: the page, the generated files and
// the recordings, by their paths.
func (s *Site) fsys() fs.FS {
	m := make(fstest.MapFS, len(s.files))
	for name, data := range s.files {
		m[name] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return m
}

// siteHandler serves the files of a site. The program, stored gzipped,
// goes out as it is with Content-Encoding: gzip to a client that takes it
// (every current browser does); for one that does not, it is gunzipped
// once, the first time it is asked for, and the one copy serves them all.
// The recordings go out as the gzip files they are, which the page unzips.
type siteHandler struct {
	fsys fs.FS

	gz       []byte // the program as stored
	size     int    // its unzipped size, from the gzip trailer
	once     sync.Once
	wasm     []byte // gunzipped, once
	wasmErr  error
	noWasmGz error // why the program cannot be served, if it cannot
}

// newSiteHandler serves the files of fsys (a site: index.html,
// main.wasm.gz, ...) for GET and HEAD; "/" is index.html and /main.wasm
// the program.
func newSiteHandler(fsys fs.FS) *siteHandler {
	h := &siteHandler{fsys: fsys}
	h.gz, h.noWasmGz = fs.ReadFile(fsys, sitebuild.WasmName)
	if h.noWasmGz == nil && len(h.gz) >= 18 {
		// ISIZE, the trailer's last four bytes: the unzipped size modulo
		// 2^32, exact for a program this size. A HEAD needs no more.
		h.size = int(binary.LittleEndian.Uint32(h.gz[len(h.gz)-4:]))
	}
	return h
}

func (h *siteHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	// The site changes whenever the binary does: no stale program.
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		// After a body it did not read, the connection is not trusted
		// with another request.
		hd.Set("Connection", "close")
		http.Error(w, "a GET has no body", http.StatusBadRequest)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	if name == "main.wasm" {
		h.serveWasm(w, r)
		return
	}
	if name == sitebuild.WasmName {
		http.NotFound(w, r)
		return
	}
	f, err := h.fsys.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	rs, ok := f.(io.ReadSeeker)
	if err != nil || st.IsDir() || !ok {
		http.NotFound(w, r)
		return
	}
	ct := contentType(name)
	if strings.HasSuffix(name, ".gz") {
		ct = "application/gzip"
	}
	hd.Set("Content-Type", ct)
	// ServeContent answers HEAD without reading the file, and ranges.
	http.ServeContent(w, r, name, time.Time{}, rs)
}

// serveWasm sends the program: gzipped to a client that takes gzip, else
// the one gunzipped copy; a HEAD costs neither.
func (h *siteHandler) serveWasm(w http.ResponseWriter, r *http.Request) {
	if h.noWasmGz != nil {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/wasm")
	hd.Set("Vary", "Accept-Encoding")
	gzipped := acceptsGzip(strings.Join(r.Header.Values("Accept-Encoding"), ","))
	size := h.size
	if gzipped {
		hd.Set("Content-Encoding", "gzip")
		size = len(h.gz)
	}
	if r.Method == http.MethodHead {
		hd.Set("Content-Length", strconv.Itoa(size))
		return
	}
	body := h.gz
	if !gzipped {
		if r.Context().Err() != nil {
			return // the client left while its request waited
		}
		h.once.Do(func() { h.wasm, h.wasmErr = gunzip(h.gz) })
		if h.wasmErr != nil {
			hd.Del("Vary")
			http.Error(w, h.wasmErr.Error(), http.StatusInternalServerError)
			return
		}
		body = h.wasm
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	// A client that does not read is let go at the write timeout; the
	// body is shared, so what it holds meanwhile is the socket's buffer.
	_, _ = io.Copy(w, bytes.NewReader(body))
}

// acceptsGzip reads an Accept-Encoding header: gzip listed, and not with
// q=0.
func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
