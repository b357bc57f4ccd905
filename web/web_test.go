package web

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/recordings"
)

// testSite is a site with the page and recordings of this build and a
// stand-in for the generated files, so the server is tested without
// compiling the program.
func testSite(t *testing.T) (*Site, []byte) {
	t.Helper()
	s := &Site{files: map[string][]byte{}}
	if err := s.addPage(); err != nil {
		t.Fatal(err)
	}
	wasm := []byte("\x00asm\x01\x00\x00\x00 a stand-in program")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(wasm)
	zw.Close()
	s.files["main.wasm.gz"] = gz.Bytes()
	s.files["tcell.js"] = []byte("// tcell")
	if err := s.addRecordings(); err != nil {
		t.Fatal(err)
	}
	return s, wasm
}

// get asks the server for a path, with the Accept-Encoding given and no
// other (the client's own gzip is switched off).
func get(t *testing.T, base, method, path, acceptEncoding string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestServerServesThePage(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	base := serve(t, s)
	r := get(t, base, "GET", "/", "")
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	if !bytes.Contains(body(t, r), []byte(`<pre id="terminal">`)) {
		t.Error("GET / is not the page with the terminal")
	}
	for path, code := range map[string]int{"/reactorviz.js": 200, "/tcell.js": 200, "/reactorviz.js?v=2": 200, "/./page/../tcell.js": 200,
		"/%2e%2e/web.go": 404, "/nope": 404, "/main.wasm.gz": 404, "/recordings/nope.jsonl.gz": 404} {
		if r := get(t, base, "GET", path, ""); r.StatusCode != code {
			t.Errorf("GET %s: %d, want %d", path, r.StatusCode, code)
		}
	}
	if r := get(t, base, "POST", "/", ""); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", r.StatusCode)
	}
}

// The program goes out gzipped to a browser that takes gzip, and unzipped
// to one that does not.
func TestServerCompressesTheProgram(t *testing.T) {
	leaktest.Check(t)
	s, wasm := testSite(t)
	base := serve(t, s)
	r := get(t, base, "GET", "/main.wasm", "br, gzip;q=0.8")
	if r.Header.Get("Content-Encoding") != "gzip" || r.Header.Get("Content-Type") != "application/wasm" {
		t.Fatalf("gzip accepted: Content-Encoding %q, Content-Type %q", r.Header.Get("Content-Encoding"), r.Header.Get("Content-Type"))
	}
	if got := body(t, r); !bytes.Equal(got, s.files["main.wasm.gz"]) {
		t.Error("gzip accepted: the body is not the gzipped program")
	}
	for _, ae := range []string{"", "identity", "gzip;q=0"} {
		r := get(t, base, "GET", "/main.wasm", ae)
		if r.Header.Get("Content-Encoding") != "" || !bytes.Equal(body(t, r), wasm) {
			t.Errorf("Accept-Encoding %q: want the program unzipped", ae)
		}
	}
	if r := get(t, base, "HEAD", "/main.wasm", "gzip"); r.ContentLength != int64(len(s.files["main.wasm.gz"])) || len(body(t, r)) != 0 {
		t.Errorf("HEAD /main.wasm: length %d, body %d bytes", r.ContentLength, len(body(t, r)))
	}
}

// The picker lists every built-in recording, and each is served as it is
// embedded.
func TestServerListsEveryRecording(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	base := serve(t, s)
	var index []indexEntry
	if err := json.Unmarshal(body(t, get(t, base, "GET", "/recordings/index.json", "")), &index); err != nil {
		t.Fatal(err)
	}
	all := recordings.List()
	if len(index) != len(all) || len(all) == 0 {
		t.Fatalf("index lists %d recordings, the binary has %d", len(index), len(all))
	}
	groups := map[string]int{}
	for i, e := range all {
		if index[i].Name != e.Name || index[i].Model != e.Model {
			t.Errorf("index[%d] = %+v, want %s (%s)", i, index[i], e.Name, e.Model)
		}
		groups[index[i].Group]++
	}
	if groups["scenarios"] == 0 || groups["compare · "+recordings.CompareWorkload] != 3 {
		t.Errorf("groups: %v", groups)
	}
	r := get(t, base, "GET", "/recordings/tour.jsonl.gz", "gzip")
	if r.Header.Get("Content-Type") != "application/gzip" || r.Header.Get("Content-Encoding") != "" {
		t.Errorf("tour: Content-Type %q, Content-Encoding %q", r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body(t, r)))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := recordings.Open("tour")
	defer want.Close()
	a, _ := io.ReadAll(zr)
	b, _ := io.ReadAll(want)
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Error("the tour served is not the tour embedded")
	}
}

// WriteTo writes every file the server serves, and the program unzipped.
func TestWriteTo(t *testing.T) {
	s, wasm := testSite(t)
	dir := t.TempDir()
	if err := s.WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range s.Names() {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, s.files[name]) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "main.wasm")); err != nil || !bytes.Equal(got, wasm) {
		t.Errorf("main.wasm: %v", err)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{"gzip": true, "gzip, deflate, br": true, "br;q=1, gzip;q=0.5": true,
		"": false, "br": false, "gzip;q=0": false, "gzip; q=0.0": false, "xgzip": false} {
		if got := acceptsGzip(h); got != want {
			t.Errorf("acceptsGzip(%q) = %v", h, got)
		}
	}
}

// serve serves the site on a loopback port until the test ends, and
// returns its URL.
func serve(t testing.TB, s *Site) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// roundTrip writes raw requests on one connection and reads a response to
// each.
func roundTrip(t *testing.T, base string, raw ...string) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	var out []*http.Response
	for _, r := range raw {
		if _, err := io.WriteString(c, r); err != nil {
			t.Fatal(err)
		}
		method, _, _ := strings.Cut(r, " ")
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("%.60q: %v", r, err)
		}
		// A server that refuses a request it did not read to its end
		// closes with bytes unread, which may reset the connection under
		// the error's body: the status and headers are what count.
		if _, err := io.ReadAll(resp.Body); err != nil && !(resp.StatusCode >= 400 && resp.Close) {
			t.Fatal(err)
		}
		out = append(out, resp)
	}
	return out
}

// A connection serves request after request until the client or an error
// closes it; bad requests get a 400 and the connection closed.
func TestServerConnections(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	base := serve(t, s)
	rs := roundTrip(t, base, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "HEAD /tcell.js HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if rs[0].StatusCode != 200 || rs[0].Close || rs[1].StatusCode != 200 || rs[1].ContentLength != int64(len(s.files["tcell.js"])) {
		t.Errorf("keep-alive: %d close=%v, %d length %d", rs[0].StatusCode, rs[0].Close, rs[1].StatusCode, rs[1].ContentLength)
	}
	if rs[2].StatusCode != 404 || !rs[2].Close {
		t.Errorf("Connection: close: %d close=%v", rs[2].StatusCode, rs[2].Close)
	}
	for raw, code := range map[string]int{
		"BREW / HTTP/1.1\r\nHost: x\r\n\r\n":                        405,
		"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc": 400,
		"GET /\r\n\r\n": 400,
		"GET / HTTP/1.1\r\nHost: x\r\nX: " + strings.Repeat("y", 40<<10): 431,
		"GET / HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n":                  400,
		"GET relative HTTP/1.1\r\nHost: x\r\n\r\n":                       400,
		// RFC 9112: one Host, no space before a header's colon, no
		// obs-fold; the live run's loopback check reads the Host.
		"GET / HTTP/1.1\r\n\r\n": 400,
		"GET / HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1\r\n\r\n": 400,
		"GET / HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n":                      400,
		"GET / HTTP/1.1\r\nHost: x\r\n folded: x\r\n\r\n":                 400,
	} {
		r := roundTrip(t, base, raw)[0]
		if r.StatusCode != code || (code >= 400 && code != 405 && !r.Close) {
			t.Errorf("%.60q: %d close=%v, want %d", raw, r.StatusCode, r.Close, code)
		}
	}
	if r := roundTrip(t, base, "GET / HTTP/1.0\r\n\r\n")[0]; r.StatusCode != 200 || !r.Close {
		t.Errorf("HTTP/1.0: %d close=%v", r.StatusCode, r.Close)
	}
}

// The program is gunzipped once, for the first client that does not take
// gzip, and that one copy serves every such client; a HEAD gunzips nothing
// and still gives the unzipped length.
func TestServerGunzipsTheProgramOnce(t *testing.T) {
	leaktest.Check(t)
	s, wasm := testSite(t)
	h := newSiteHandler(s.fsys())
	srv := httptest.NewServer(h)
	defer srv.Close()
	if r := get(t, srv.URL, "HEAD", "/main.wasm", ""); r.ContentLength != int64(len(wasm)) || r.Header.Get("Content-Encoding") != "" {
		t.Errorf("HEAD without gzip: length %d, encoding %q", r.ContentLength, r.Header.Get("Content-Encoding"))
	}
	if h.wasm != nil {
		t.Fatal("a HEAD gunzipped the program")
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", srv.URL+"/main.wasm", nil)
			resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if got, _ := io.ReadAll(resp.Body); !bytes.Equal(got, wasm) {
				t.Error("a client without gzip did not get the program unzipped")
			}
		}()
	}
	wg.Wait()
	first := &h.wasm[0]
	get(t, srv.URL, "GET", "/main.wasm", "")
	if &h.wasm[0] != first {
		t.Error("the program was gunzipped again")
	}
}

// Idle connections past the cap do not hold a goroutine each, nor keep a
// new client out: the longest idle are let go to make room.
func TestServerBoundsIdleConnections(t *testing.T) {
	leaktest.Check(t)
	s, _ := testSite(t)
	base := serve(t, s)
	before := runtime.NumGoroutine()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 3 * MaxConns {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// The server accepts them all in turn, letting the oldest go.
	leaktest.WaitFor(t, "the oldest idle connections let go", func() bool {
		conns[0].SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := conns[0].Read(make([]byte, 1))
		return errors.Is(err, io.EOF)
	})
	if n := runtime.NumGoroutine() - before; n > MaxConns+10 {
		t.Errorf("%d goroutines more for %d idle connections; the cap is %d", n, len(conns), MaxConns)
	}
	r := get(t, base, "GET", "/", "")
	if r.StatusCode != 200 {
		t.Errorf("a new client among %d idle connections: %d", len(conns), r.StatusCode)
	}
}

// The compare workloads' recordings are what the terminal's compare
// screen offers when the machine was too busy to rank the models: the
// picker's index labels each as a quiet machine's, not this machine's
// runs, and a scenario's recording as a recording only.
func TestCompareRecordingsAreLabelledAsAQuietMachines(t *testing.T) {
	s, _ := testSite(t)
	var index []indexEntry
	if err := json.Unmarshal(s.files["recordings/index.json"], &index); err != nil {
		t.Fatal(err)
	}
	compares := 0
	for _, e := range index {
		quiet := func(s string) bool {
			return strings.Contains(s, "made on a quiet machine") && strings.Contains(s, "not this machine's runs")
		}
		if e.Group == "scenarios" {
			if quiet(e.Banner) || e.Note != "" || !strings.HasPrefix(e.Banner, "recording of "+e.Scenario) {
				t.Errorf("%s: banner %q, note %q", e.Name, e.Banner, e.Note)
			}
			continue
		}
		compares++
		if !quiet(e.Banner) || !quiet(e.Note) || !strings.Contains(e.Note, "lanes and figures") ||
			!strings.Contains(e.Note, e.Scenario+" under "+e.Model) {
			t.Errorf("%s (compare): banner %q, note %q", e.Name, e.Banner, e.Note)
		}
	}
	if compares == 0 {
		t.Error("no compare recordings in the index")
	}
}
