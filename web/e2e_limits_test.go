package web

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/recordings"
)

// writeBigTrace writes a gzipped trace of about mib MiB of valid events:
// the tour's header, then task submissions.
func writeBigTrace(t *testing.T, path string, mib int) (events int) {
	t.Helper()
	rc, err := recordings.Open("tour")
	if err != nil {
		t.Fatal(err)
	}
	header, err := bufio.NewReader(rc).ReadString('\n')
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	w := bufio.NewWriterSize(zw, 1<<20)
	w.WriteString(header)
	written := len(header)
	var line []byte
	for n := 1; written < mib<<20; n++ {
		line = append(line[:0], `{"seq":`...)
		line = strconv.AppendInt(line, int64(n), 10)
		line = append(line, `,"t":`...)
		line = strconv.AppendInt(line, int64(1000+n), 10)
		line = append(line, `,"loop":"boss-0","kind":"task_submit","id":`...)
		line = strconv.AppendInt(line, int64(n), 10)
		line = append(line, `,"queued":1,"producer":0,"external":true,"name":"bind"}`+"\n"...)
		w.Write(line)
		written += len(line)
		events = n
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return events
}

// rendererRSS is the largest resident size, in MB, of the browser's
// renderer processes (the tab's).
func rendererRSS(browserPID int) int {
	max := 0
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "--type=renderer") {
			continue
		}
		status, err := os.ReadFile(filepath.Join(p, "status"))
		if err != nil || !strings.Contains(string(status), "\nPPid:") {
			continue
		}
		if !descends(p, browserPID) {
			continue
		}
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				if kb, err := strconv.Atoi(f[1]); err == nil && kb/1024 > max {
					max = kb / 1024
				}
			}
		}
	}
	return max
}

// descends reports whether the process at /proc/PID is browserPID's.
func descends(proc string, browserPID int) bool {
	for range 10 {
		status, err := os.ReadFile(filepath.Join(proc, "status"))
		if err != nil {
			return false
		}
		ppid := 0
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "PPid:"); ok {
				ppid, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if ppid == browserPID {
			return true
		}
		if ppid <= 1 {
			return false
		}
		proc = fmt.Sprintf("/proc/%d", ppid)
	}
	return false
}

// The page's file picker refuses a trace bigger than the replay holds, with
// the terminal's message (tui.ReadReplay), and the tab stays small: a
// gzip of valid events past the million-event cap, by default just past it;
// REACTORVIZ_BIG_TRACE_MIB=300 makes it 300 MiB unzipped.
func TestBrowserRefusesAnOversizedTrace(t *testing.T) {
	exe := needChromium(t)
	leaktest.Check(t)
	mib := 140
	if v, err := strconv.Atoi(os.Getenv("REACTORVIZ_BIG_TRACE_MIB")); err == nil && v > 0 {
		mib = v
	}
	path := filepath.Join(t.TempDir(), "big.jsonl.gz")
	events := writeBigTrace(t, path, mib)
	st, _ := os.Stat(path)
	t.Logf("%s: %d events, %d MiB unzipped, %.1f MiB gzipped", filepath.Base(path), events, mib, float64(st.Size())/(1<<20))

	site := browserSite(t)
	b, _ := openTour(t, exe, serve(t, site)+"/")
	before := rendererRSS(b.cmd.Process.Pid)
	b.pickFiles(path)
	// The page reads the trace on its one thread, so it answers nothing
	// until it is done: the tab's memory is sampled beside it.
	var peak atomic.Int64
	peak.Store(int64(before))
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(rendererRSS(b.cmd.Process.Pid)); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	want := "big.jsonl.gz:1000002: the trace is larger than the TUI replay holds in memory (1000000 events, 64 MiB of strings); 'reactorviz replay --headless big.jsonl.gz' reads a trace of any size"
	deadline := time.Now().Add(10 * time.Minute)
	status := ""
	for !strings.Contains(status, want) {
		if time.Now().After(deadline) {
			close(stop)
			t.Fatalf("no refusal; the status line: %q", status)
		}
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		// A call the busy page does not answer in time is asked again.
		if b.call(b.session, "Runtime.evaluate", map[string]any{"expression": `document.getElementById("status").textContent`, "returnByValue": true}, &res) == nil {
			status = res.Result.Value
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	<-sampled
	t.Logf("refused: %q; the tab: %d MB before, %d MB at its peak", status, before, peak.Load())
	if peak.Load() >= 500 {
		t.Errorf("the tab reached %d MB", peak.Load())
	}
}
