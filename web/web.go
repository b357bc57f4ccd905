// Package web is reactorviz in the browser: the replay TUI compiled to
// WebAssembly (./web/app), drawn by tcell's web screen, in a page that
// picks a recording and fits the terminal to the window; and, for run
// --web, the live screen of a run of this process, over a WebSocket
// (ws.go, github.com/coder/websocket) served beside the page by net/http's
// server (server.go), with a bound on the connections it holds (limit.go).
//
// The site is the page (page/, kept in git), the generated files (site/,
// made by go generate ./web and embedded), and the built-in recordings,
// served from package recordings as they are embedded there. A binary
// built without the generated files builds them on first use with the
// local Go toolchain, from the source tree it was built from.
package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/web/internal/sitebuild"
)

//go:generate go run ./internal/gensite

//go:embed page site
var embedded embed.FS

// Site is the browser build: every file the page loads, by its path.
type Site struct {
	files map[string][]byte
	// Embedded is false when the generated files were built on first use.
	Embedded bool
}

// WasmGzipSize is the size of the compressed program, what a browser
// downloads besides the recording it opens.
func (s *Site) WasmGzipSize() int { return len(s.files["main.wasm.gz"]) }

// Open returns the site: the generated files embedded in this binary, or,
// when it has none, built into the user's cache directory (log says so).
func Open(log io.Writer) (*Site, error) {
	s := &Site{files: map[string][]byte{}, Embedded: true}
	if err := s.addPage(); err != nil {
		return nil, err
	}
	gen, err := fs.Sub(embedded, "site")
	if err != nil {
		return nil, err
	}
	if _, err := fs.Stat(gen, sitebuild.WasmName); err != nil {
		s.Embedded = false
		if gen, err = buildOnDemand(log); err != nil {
			return nil, err
		}
	}
	for _, name := range sitebuild.Generated() {
		data, err := fs.ReadFile(gen, name)
		if err != nil {
			return nil, fmt.Errorf("browser build: %w", err)
		}
		s.files[name] = data
	}
	return s, s.addRecordings()
}

func (s *Site) addPage() error {
	return fs.WalkDir(embedded, "page", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := embedded.ReadFile(p)
		s.files[strings.TrimPrefix(p, "page/")] = data
		return err
	})
}

// indexEntry is a recording as the page's picker lists it.
type indexEntry struct {
	Name     string `json:"name"`
	Scenario string `json:"scenario"`
	Model    string `json:"model"`
	Duration string `json:"duration"`
	Events   uint64 `json:"events"`
	Group    string `json:"group"`
	// Banner is what the replay's header says the recording is, and Note,
	// for a compare workload's, what the page's status line adds: that
	// its lanes and figures are a quiet machine's, not the learner's.
	Banner string `json:"banner"`
	Note   string `json:"note,omitempty"`
}

// recordingLabels label a built-in recording. The compare workloads are
// what the terminal's compare screen offers (key R) when this machine was
// too busy to rank the models; the page plays them one at a time, so each
// says what the terminal's lockstep of them says. The header's banner is
// short: the header names the scenario and model already.
func recordingLabels(e recordings.Entry) (banner, note string) {
	if e.Name != e.Scenario {
		return "built-in recording, made on a quiet machine: not this machine's runs",
			"built-in recording of " + e.Scenario + " under " + e.Model + ", made on a quiet machine: these lanes and figures are the recording's, not this machine's runs"
	}
	return e.Banner(), ""
}

// addRecordings adds every built-in recording, gzipped as embedded, and
// recordings/index.json, the picker's list: the scenarios, then the
// compare workloads under each model.
func (s *Site) addRecordings() error {
	var index []indexEntry
	for _, e := range recordings.List() {
		f, err := recordings.OpenCompressed(e.Name)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return err
		}
		s.files["recordings/"+e.Name+".jsonl.gz"] = data
		group := "scenarios"
		if e.Name != e.Scenario {
			group = "compare · " + e.Scenario
		}
		banner, note := recordingLabels(e)
		index = append(index, indexEntry{e.Name, e.Scenario, e.Model, e.Duration.String(), e.Events, group, banner, note})
	}
	data, err := json.Marshal(index)
	s.files["recordings/index.json"] = data
	return err
}

// Names lists the site's files, sorted.
func (s *Site) Names() []string {
	out := make([]string, 0, len(s.files))
	for n := range s.files {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// WriteTo writes the site as static files under dir: the program both
// gzipped (for servers that send precompressed files, such as nginx's
// gzip_static) and as main.wasm, which any server can send. dir is made if
// it is not there; inside it, no file or directory is written through a
// symbolic link, which could point anywhere: one in the way is an error.
func (s *Site) WriteTo(dir string) error {
	if dir == "" {
		return errors.New("no directory to write the site into")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, name := range s.Names() {
		if err := writeFile(root, dir, name, s.files[name]); err != nil {
			return err
		}
	}
	wasm, err := gunzip(s.files[sitebuild.WasmName])
	if err != nil {
		return err
	}
	return writeFile(root, dir, "main.wasm", wasm)
}

// writeFile writes data to name (slash-separated) under root, making its
// directories, and refuses a symbolic link in the way: an os.Root alone
// would follow one that stays inside dir.
func writeFile(root *os.Root, dir, name string, data []byte) error {
	parts := strings.Split(name, "/")
	for i := range parts {
		p := path.Join(parts[:i+1]...)
		fi, err := root.Lstat(p)
		last := i == len(parts)-1
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !last {
				if err := root.Mkdir(p, 0o755); err != nil {
					return err
				}
			}
			continue
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link: the site is not written through one", filepath.Join(dir, filepath.FromSlash(p)))
		case !last && !fi.IsDir():
			return fmt.Errorf("%s is not a directory", filepath.Join(dir, filepath.FromSlash(p)))
		case last && !fi.Mode().IsRegular():
			return fmt.Errorf("%s is not a regular file", filepath.Join(dir, filepath.FromSlash(p)))
		}
	}
	// O_NOFOLLOW: a link made between the check and the open is refused
	// too.
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// buildOnDemand builds the generated files into the cache directory with
// the Go toolchain, from the source tree this package was compiled from
// (go run, go build in a clone) or the one around the working directory.
func buildOnDemand(log io.Writer) (fs.FS, error) {
	src, err := sourceTree()
	if err != nil {
		return nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "reactorviz", "web")
	fmt.Fprintf(log, "this binary has no browser build embedded (go generate ./web embeds one); building it into %s\n", out)
	if err := sitebuild.Build(src, out, log); err != nil {
		return nil, err
	}
	return os.DirFS(out), nil
}

const modulePath = "github.com/reactorviz/reactorviz"

// errNoSource says why a binary without an embedded site cannot build one.
var errNoSource = errors.New("this binary has no browser build embedded and no reactorviz source tree is at hand to build one: " +
	"in a clone, run go generate ./web and build again, or run reactorviz web from inside the clone")

func sourceTree() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if dir := filepath.Dir(filepath.Dir(file)); isModuleRoot(dir) {
			return dir, nil
		}
	}
	dir, err := os.Getwd()
	for err == nil {
		if isModuleRoot(dir) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return "", errNoSource
}

func isModuleRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(first) == "module "+modulePath
}

// contentType is what the server sends for a file of the site.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".json":
		return "application/json"
	case ".wasm":
		return "application/wasm"
	case ".wav":
		return "audio/wav"
	}
	return "application/octet-stream"
}
