package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/web"
)

func TestWebBadPort(t *testing.T) {
	code, _, stderr := runCLI(t, "web", "--port", "70000")
	if code != exitUsage || !strings.Contains(stderr, "--port 70000") {
		t.Fatalf("web --port 70000: exit %d, %q", code, stderr)
	}
}

// web --out writes a static site: the page, the program both unzipped and
// gzipped, and the recordings with their index.
func TestWebOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	code, stdout, stderr := runCLI(t, "web", "--out", dir)
	if code != exitOK {
		t.Fatalf("web --out: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote the site to "+dir) {
		t.Errorf("stdout: %q", stdout)
	}
	for _, f := range []string{"index.html", "reactorviz.js", "tcell.js", "wasm_exec.js", "main.wasm", "main.wasm.gz",
		"recordings/index.json", "recordings/tour.jsonl.gz", "recordings/compare-single.jsonl.gz"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// web serves on loopback by default, prints its URL, and stops when told.
func TestWebServesAndStops(t *testing.T) {
	leaktest.Check(t)
	site, err := web.Open(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serveSite(ctx, &env{stdout: pw, stderr: io.Discard}, site, "127.0.0.1:0")
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.Fields(strings.TrimPrefix(line, "reactorviz in the browser: "))[0]
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on loopback", url)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serveSite: %v", err)
	}
}

// web --out "" is refused, not taken for "serve".
func TestWebOutEmpty(t *testing.T) {
	code, _, stderr := runCLI(t, "web", "--out", "")
	if code != exitUsage || !strings.Contains(stderr, "--out") {
		t.Fatalf("web --out \"\": exit %d, %q", code, stderr)
	}
}

// web --out writes nothing through a symbolic link already in the
// directory: a file or a directory of the site that is a link elsewhere
// is an error, and what it points to is left as it was.
func TestWebOutRefusesSymlinks(t *testing.T) {
	for _, link := range []string{"index.html", "recordings"} {
		t.Run(link, func(t *testing.T) {
			dir, elsewhere := t.TempDir(), t.TempDir()
			target := filepath.Join(elsewhere, "target")
			if link == "recordings" {
				if err := os.Mkdir(target, 0o755); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(target, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Skip(err)
			}
			code, _, stderr := runCLI(t, "web", "--out", dir)
			if code == exitOK || !strings.Contains(stderr, "symbolic link") {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if link == "recordings" {
				if ents, _ := os.ReadDir(target); len(ents) != 0 {
					t.Errorf("%d files written through the link", len(ents))
				}
			} else if data, _ := os.ReadFile(target); string(data) != "mine" {
				t.Errorf("the link's target was written: %q", data)
			}
		})
	}
}
