// Package sitebuild makes the browser build's generated files: tcell's web
// page script and style from the module cache, Go's wasm_exec.js from
// GOROOT, and the replay program compiled to WebAssembly and gzipped. The
// go generate step in package web and `reactorviz web`, when its binary
// has no site embedded, both call Build.
package sitebuild

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// TcellFiles are the files taken from tcell's webfiles directory.
var TcellFiles = []string{"tcell.js", "termstyle.css", "beep.wav"}

// WasmName is the compressed program; tcell.js loads main.wasm, which the
// server answers with this file and Content-Encoding: gzip.
const WasmName = "main.wasm.gz"

// Generated lists every file Build writes.
func Generated() []string {
	return append(append([]string{}, TcellFiles...), "wasm_exec.js", WasmName)
}

// Build writes the generated files into out, running the Go toolchain in
// moduleDir (the reactorviz source tree). log gets one line per step.
func Build(moduleDir, out string, log io.Writer) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tcellDir, err := moduleCacheDir(moduleDir, "github.com/gdamore/tcell/v2")
	if err != nil {
		return err
	}
	for _, f := range TcellFiles {
		if err := copyFile(filepath.Join(tcellDir, "webfiles", f), filepath.Join(out, f)); err != nil {
			return err
		}
	}
	goroot, err := goOutput(moduleDir, nil, "env", "GOROOT")
	if err != nil {
		return err
	}
	if err := copyFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"), filepath.Join(out, "wasm_exec.js")); err != nil {
		return err
	}
	fmt.Fprintln(log, "building the browser program (GOOS=js GOARCH=wasm go build ./web/app)")
	tmp, err := os.MkdirTemp(out, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	wasm := filepath.Join(tmp, "main.wasm")
	if _, err := goOutput(moduleDir, []string{"GOOS=js", "GOARCH=wasm"},
		"build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "./web/app"); err != nil {
		return err
	}
	return gzipFile(wasm, filepath.Join(out, WasmName))
}

// moduleCacheDir finds a module's directory in the module cache, at the
// version go.mod requires, downloading it if it is not there yet.
func moduleCacheDir(moduleDir, mod string) (string, error) {
	out, err := goOutput(moduleDir, nil, "mod", "download", "-json", mod)
	if err != nil {
		return "", err
	}
	var m struct{ Dir string }
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no module directory", mod)
	}
	return m.Dir, nil
}

func goOutput(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %v: %v\n%s", args, err, stderr.String())
	}
	return string(bytes.TrimSpace(out)), nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return writeAtomic(to, data)
}

// writeAtomic writes through a temporary file and a rename, so that two
// builds into one directory (two test binaries, say) never leave a torn
// file.
func writeAtomic(to string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(to), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), to)
}

// gzipFile compresses at the best level: the file is compressed once and
// sent many times.
func gzipFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return writeAtomic(to, b.Bytes())
}
