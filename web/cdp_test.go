package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands in on fd 3, replies out on fd
// 4, each a JSON message ended by a NUL byte).
type browser struct {
	t        testing.TB
	cmd      *exec.Cmd
	in       *os.File // our end of Chromium's fd 3
	out      *os.File // our end of Chromium's fd 4
	session  string   // the page's session
	readDone chan struct{}
	closing  sync.Once

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	console []string // console messages and exceptions, for failures
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// chromiumFlags are the flags a headless run in a container needs, with
// everything that would reach the network switched off.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
	"--remote-debugging-pipe",
}

// startBrowser starts headless Chromium with a page attached. A start
// that shows no page (on a loaded machine Chromium has been seen to close
// its pipe while starting) is logged, with Chromium's exit and stderr,
// and tried again: the tests are about the page, not Chromium's start.
func startBrowser(t testing.TB, exe string) *browser {
	t.Helper()
	for try := 1; ; try++ {
		b, failure := launch(t, exe)
		if b != nil {
			return b
		}
		if try == 3 {
			t.Fatalf("chromium shows no page, three starts in a row; the last:\n%s", failure)
		}
		t.Logf("chromium start %d showed no page; starting it again:\n%s", try, failure)
	}
}

// launch starts Chromium once and attaches to its page; it returns nil
// and what went wrong when no page appears in 30 s.
func launch(t testing.TB, exe string) (*browser, string) {
	t.Helper()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+t.TempDir(), "about:blank")
	cmd := exec.Command(exe, args...)
	cmd.ExtraFiles = []*os.File{cmdR, repW} // fd 3, fd 4
	stderr := new(lockedBuffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	repW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, out: repR, waiting: map[int]chan cdpReply{}, readDone: make(chan struct{})}
	go b.read()
	b.session = b.attachPage(30 * time.Second)
	if b.session == "" {
		b.close()
		return nil, fmt.Sprintf("%v; its stderr:\n%s", cmd.ProcessState, stderr)
	}
	t.Cleanup(func() {
		b.close()
		if t.Failed() {
			t.Logf("page console:\n%s", b.consoleText())
		}
	})
	b.do("Runtime.enable", nil)
	b.do("Page.enable", nil)
	return b, ""
}

// lockedBuffer is Chromium's stderr, written by exec's copier and read by
// a failing test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// attachPage attaches to the browser's page and returns its session, or ""
// if none appears in time. Chromium answers on its pipe before it has made
// the about:blank page, so the first list of targets may hold none.
func (b *browser) attachPage(timeout time.Duration) string {
	deadline := time.Now().Add(timeout)
	for {
		var targets struct {
			TargetInfos []struct {
				TargetID string `json:"targetId"`
				Type     string `json:"type"`
			} `json:"targetInfos"`
		}
		if err := b.call("", "Target.getTargets", nil, &targets); err != nil {
			b.t.Logf("chromium: %v", err)
			return ""
		}
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" {
				var att struct {
					SessionID string `json:"sessionId"`
				}
				if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}, &att); err != nil {
					b.t.Logf("chromium: %v", err)
				}
				return att.SessionID
			}
		}
		if time.Now().After(deadline) {
			return ""
		}
		time.Sleep(50 * time.Millisecond) // polling the browser, not proving an absence
	}
}

// read delivers replies to their callers and keeps the page's console.
func (b *browser) read() {
	defer close(b.readDone)
	r := bufio.NewReader(b.out)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.waiting[m.ID]; ok {
				ch <- m.cdpReply
				delete(b.waiting, m.ID)
			}
		} else if m.Method == "Runtime.consoleAPICalled" || m.Method == "Runtime.exceptionThrown" {
			b.console = append(b.console, string(m.Params))
		}
		b.mu.Unlock()
	}
}

func (b *browser) consoleText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var buf bytes.Buffer
	for _, c := range b.console {
		buf.WriteString(c)
		buf.WriteByte('\n')
	}
	return buf.String()
}

// call sends a command and decodes its result into res.
func (b *browser) call(session, method string, params any, res any) error {
	b.t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: chromium closed the pipe", method)
		}
		if rep.Error != nil {
			return fmt.Errorf("%s: %s", method, rep.Error.Message)
		}
		if res != nil {
			return json.Unmarshal(rep.Result, res)
		}
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no reply in 60s", method)
	}
}

// do is call on the page, failing the test on an error.
func (b *browser) do(method string, params any) json.RawMessage {
	b.t.Helper()
	var res json.RawMessage
	if err := b.call(b.session, method, params, &res); err != nil {
		b.t.Fatal(err)
	}
	return res
}

// eval evaluates a JavaScript expression in the page and decodes its
// value into v.
func (b *browser) eval(expr string, v any) {
	b.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		b.t.Fatal(err)
	}
	if res.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s", expr, res.ExceptionDetails.Text)
	}
	if v != nil {
		if err := json.Unmarshal(res.Result.Value, v); err != nil {
			b.t.Fatalf("%s: %v (%s)", expr, err, res.Result.Value)
		}
	}
}

// screenText is what the terminal shows, row by row.
func (b *browser) screenText() string {
	var s string
	b.eval(`(document.getElementById("terminal") || {}).textContent || ""`, &s)
	return s
}

// waitScreen waits until the terminal's text satisfies ok, and returns it.
func (b *browser) waitScreen(what string, timeout time.Duration, ok func(string) bool) string {
	b.t.Helper()
	return b.wait(what, timeout, b.screenText, ok)
}

// waitStatus waits until the page's status line satisfies ok, and returns
// it.
func (b *browser) waitStatus(what string, timeout time.Duration, ok func(string) bool) string {
	b.t.Helper()
	return b.wait(what, timeout, b.status, ok)
}

func (b *browser) wait(what string, timeout time.Duration, read func() string, ok func(string) bool) string {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := read()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("waited %v for %s; the screen shows:\n%s\nstatus: %s", timeout, what, b.screenText(), b.status())
		}
		time.Sleep(50 * time.Millisecond) // polling the page, not proving an absence
	}
}

func (b *browser) status() string {
	var s string
	b.eval(`(document.getElementById("status") || {}).textContent || ""`, &s)
	return s
}

// key presses and releases a key, as KeyboardEvent.key names it.
func (b *browser) key(key string) {
	b.t.Helper()
	down := map[string]any{"type": "keyDown", "key": key}
	if vk, ok := virtualKeys[key]; ok {
		down["type"] = "rawKeyDown"
		down["code"] = key
		down["windowsVirtualKeyCode"] = vk
	} else {
		down["text"] = key
	}
	b.do("Input.dispatchKeyEvent", down)
	b.do("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key})
}

var virtualKeys = map[string]int{"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40,
	"Escape": 27, "Enter": 13, "Tab": 9, "PageDown": 34, "PageUp": 33, "Home": 36, "End": 35}

// click presses and releases the left button at a point of the page.
func (b *browser) click(x, y float64) {
	b.t.Helper()
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		b.do("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1})
	}
}

// resize gives the page a window of w×h CSS pixels at 1×.
func (b *browser) resize(w, h int) {
	b.do("Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": h, "deviceScaleFactor": 1, "mobile": false})
}

// browserSite is the whole site, its program built, for a browser test.
func browserSite(tb testing.TB) *Site {
	tb.Helper()
	site, err := Open(testLog{tb})
	if err != nil {
		tb.Fatal(err)
	}
	return site
}

// openPage starts a fresh Chromium with a 1280×800 window on url.
func openPage(t testing.TB, exe, url string) *browser {
	t.Helper()
	b := startBrowser(t, exe)
	b.resize(1280, 800)
	b.do("Page.navigate", map[string]any{"url": url})
	return b
}

// pickFiles puts files in the page's file input #file, as a learner
// picking them does.
func (b *browser) pickFiles(paths ...string) {
	b.t.Helper()
	b.do("DOM.enable", nil)
	var doc struct {
		Root struct {
			NodeID int `json:"nodeId"`
		} `json:"root"`
	}
	if err := b.call(b.session, "DOM.getDocument", nil, &doc); err != nil {
		b.t.Fatal(err)
	}
	var q struct {
		NodeID int `json:"nodeId"`
	}
	if err := b.call(b.session, "DOM.querySelector", map[string]any{"nodeId": doc.Root.NodeID, "selector": "#file"}, &q); err != nil {
		b.t.Fatal(err)
	}
	b.do("DOM.setFileInputFiles", map[string]any{"files": paths, "nodeId": q.NodeID})
}

// shot saves the page as name in REACTORVIZ_SCREENSHOTS, if set, to keep,
// else in the test's temporary directory, and returns the file's path.
func (b *browser) shot(name string) string {
	b.t.Helper()
	dir := os.Getenv("REACTORVIZ_SCREENSHOTS")
	if dir == "" {
		dir = b.t.TempDir()
	}
	p := filepath.Join(dir, name)
	b.screenshot(p)
	return p
}

// screenshot saves the page as a PNG.
func (b *browser) screenshot(path string) {
	b.t.Helper()
	var res struct {
		Data []byte `json:"data"` // base64 in JSON, decoded by encoding/json
	}
	if err := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &res); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, res.Data, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// close asks Chromium to quit and waits for it, killing it if it hangs.
// The test's cleanup calls it too; the first call does it.
func (b *browser) close() { b.closing.Do(b.quit) }

func (b *browser) quit() {
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	b.call("", "Browser.close", nil, nil)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	b.in.Close()
	b.out.Close()
	<-b.readDone
}

var errNoChromium = errors.New("no chromium")

// needChromium returns Chromium's path for a browser test, which skips
// under -short or without Chromium, saying so, except under CI (CI=true),
// where a missing Chromium fails it: .ci/run installs it, and a CI that
// silently skipped the browser would pass untested.
func needChromium(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: the browser test starts Chromium")
	}
	exe, err := findChromium()
	switch {
	case err == nil:
		return exe
	case os.Getenv("CI") == "true":
		tb.Fatal("headless Chromium is not installed, and CI=true: .ci/run installs it (apt-get install -y chromium, or set CHROMIUM)")
	default:
		tb.Skip("headless Chromium is not installed (apt-get install chromium, or set CHROMIUM): the browser test needs it")
	}
	return ""
}

// findChromium returns Chromium's path: $CHROMIUM, or chromium or
// chromium-browser on PATH.
func findChromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errNoChromium
}
