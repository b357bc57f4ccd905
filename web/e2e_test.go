package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/recordings"
)

// testLog writes the site build's progress to the test log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// eventRE reads the replay's status bar: event N/M and the trace clock.
var eventRE = regexp.MustCompile(`event (\d+)/(\d+)\s+(\d\d:\d\d\.\d\d\d)/`)

func position(screen string) (event, clock string) {
	m := eventRE.FindStringSubmatch(screen)
	if m == nil {
		return "", ""
	}
	return m[1], m[3]
}

// TestBrowser loads the page in headless Chromium and drives the replay
// with the learner's keys, reading the terminal's text back: the tour
// opens, steps, plays, zooms, shows its help, resizes with the window,
// takes a click, and the picker, a link and the file picker open other
// recordings. A screenshot of the tour is left in the test's output
// directory (REACTORVIZ_SCREENSHOTS, if set, names one to keep).
func TestBrowser(t *testing.T) {
	exe := needChromium(t)
	leaktest.Check(t)
	site := browserSite(t)
	b, tour := openTour(t, exe, serve(t, site)+"/")
	for _, want := range []string{"tour · multi", "boss-0", "worker-3", "events"} {
		if !strings.Contains(tour, want) {
			t.Errorf("the tour's screen lacks %q:\n%s", want, tour)
		}
	}
	if ev, _ := position(tour); ev != "0" {
		t.Fatalf("the tour opens at event %q, want 0:\n%s", ev, tour)
	}

	// The screen fills the window: 1280×800 holds far more than 80×24.
	var rows, cols int
	b.eval(`document.getElementById("terminal").textContent.split("\n").filter(l => l.length).length`, &rows)
	b.eval(`Math.max(...document.getElementById("terminal").textContent.split("\n").map(l => l.length))`, &cols)
	if rows < 40 || cols < 140 {
		t.Errorf("the terminal is %d×%d in a 1280×800 window", cols, rows)
	}

	// n steps a live loop only; → steps the replay one event. The keys
	// are taken in order, so event 1 means n went by and → arrived.
	b.key("n")
	b.key("ArrowRight")
	b.waitScreen("→ to step to event 1", 10*time.Second, func(s string) bool { ev, _ := position(s); return ev == "1" })
	b.key("PageDown")
	b.waitScreen("PgDn to go 1000 events on", 10*time.Second, func(s string) bool { ev, _ := position(s); return ev == "1001" })

	// space plays, and the clock moves; space again stops, at once even
	// at 8× (the page stays responsive while the replay plays).
	b.key(" ")
	_, clock := position(b.waitScreen("space to play", 10*time.Second, func(s string) bool { return strings.Contains(s, "▶ playing") }))
	b.waitScreen("the clock to move while playing", 10*time.Second, func(s string) bool { _, c := position(s); return c != "" && c != clock })
	for range 3 {
		b.key("+")
	}
	// At 8× the tour plays out in under 3 s: on a loaded machine it may
	// end, stopped at 8×, before the page is read.
	if s := b.waitScreen("+ to speed up to 8×", 10*time.Second, func(s string) bool { return strings.Contains(s, " 8×") }); strings.Contains(s, "▶ playing 8×") {
		stopAt := time.Now()
		b.key(" ")
		b.waitScreen("space to stop", 10*time.Second, func(s string) bool { return strings.Contains(s, "■ stopped") })
		t.Logf("space stopped an 8× replay on screen %v after the key", time.Since(stopAt).Round(time.Millisecond))
	} else {
		t.Log("the 8× replay reached its end before the page was read; the stop was not timed")
	}
	for range 3 {
		b.key("-")
	}

	// z zooms the timeline in from its 1s window.
	b.key("z")
	b.waitScreen("z to zoom the timeline in", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "timeline · ") && !strings.Contains(s, "timeline · 1s window")
	})

	// ? opens the help, and closes it.
	b.key("?")
	b.waitScreen("? to open the help", 10*time.Second, func(s string) bool { return strings.Contains(s, "help · replay") })
	b.key("?")
	b.waitScreen("? to close the help", 10*time.Second, func(s string) bool { return !strings.Contains(s, "help · replay") })
	b.key("Home")
	b.waitScreen("Home", 10*time.Second, func(s string) bool { ev, _ := position(s); return ev == "0" })

	// A link to a moment of the recording on screen seeks it there.
	b.eval(`(() => { location.hash = "#tour@16.2s"; return true; })()`, nil)
	at := b.waitScreen("#tour@16.2s to seek the tour", 10*time.Second, func(s string) bool {
		_, c := position(s)
		return strings.HasPrefix(c, "00:16.")
	})
	if ev, _ := position(at); ev == "0" {
		t.Errorf("tour@16.2s is at event 0:\n%s", at)
	}
	t.Logf("screenshot: %s", b.shot("web-tour.png"))

	// "link to this moment" names the recording and the time on screen.
	_, clock = position(at)
	want := "#tour@" + strings.TrimLeft(strings.TrimPrefix(clock, "00:"), "0") + "s"
	b.eval(`(() => { document.getElementById("link").click(); return true; })()`, nil)
	b.waitScreen("the link to this moment, "+want, 10*time.Second, func(string) bool {
		var hash string
		b.eval(`location.hash`, &hash)
		return hash == want
	})

	// A click on a loop's row focuses it: the detail pane names it.
	var y float64
	b.eval(`(() => { const t = document.getElementById("terminal"); const r = t.getBoundingClientRect();
		const rows = t.textContent.split("\n"); const i = rows.findIndex(l => /^.worker-2 /.test(l));
		return r.top + (i + 0.5) * fontheight; })()`, &y)
	b.click(60, y)
	b.waitScreen("a click to focus worker-2", 10*time.Second, func(s string) bool { return strings.Contains(s, "─ worker-2 · ") })

	// The window shrinks: the screen follows.
	b.resize(1000, 600)
	b.waitScreen("the screen to follow a smaller window", 10*time.Second, func(s string) bool {
		n := 0
		for _, l := range strings.Split(s, "\n") {
			n = max(n, len([]rune(l)))
		}
		return n < cols && strings.Contains(s, "RECORDING")
	})

	// A window too small for 80×24 cells at the usual font gets a smaller
	// font rather than the replay's "terminal too small".
	b.resize(640, 420)
	b.waitScreen("an 80-odd column screen in a 640×420 window", 10*time.Second, func(s string) bool {
		n := 0
		for _, l := range strings.Split(s, "\n") {
			n = max(n, len([]rune(l)))
		}
		return n >= 80 && n < 100 && strings.Contains(s, "RECORDING") && !strings.Contains(s, "too small")
	})
	b.resize(1280, 800)

	// The picker opens a compare recording; a link opens a recording at
	// a moment.
	b.eval(`(() => { const p = document.getElementById("pick"); p.value = "compare-single"; p.dispatchEvent(new Event("change")); return true; })()`, nil)
	b.waitScreen("the picker to open compare-single", 30*time.Second, func(s string) bool {
		return strings.Contains(s, "master-slave · single") && strings.Contains(s, "compare-single")
	})
	b.eval(`(() => { location.hash = "#spurious-wakeup@1.5s"; return true; })()`, nil)
	sw := b.waitScreen("the link to open spurious-wakeup at 1.5s", 30*time.Second, func(s string) bool {
		_, c := position(s)
		return strings.Contains(s, "spurious-wakeup · multi") && strings.HasPrefix(c, "00:01.")
	})
	if ev, _ := position(sw); ev == "0" {
		t.Errorf("spurious-wakeup@1.5s is at event 0:\n%s", sw)
	}

	// The file picker replays a trace the learner recorded, plain or
	// gzipped: here the scheduled-timers recording, unzipped.
	plain := filepath.Join(t.TempDir(), "timers.jsonl")
	writeRecording(t, "scheduled-timers", plain)
	// A file that is not a trace is refused, saying why.
	bad := filepath.Join(t.TempDir(), "notes.jsonl")
	if err := os.WriteFile(bad, []byte("my notes on the tour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.pickFiles(bad)
	b.waitStatus("the bad file to be refused", 30*time.Second, func(st string) bool { return strings.Contains(st, "notes.jsonl:") })
	t.Logf("a file that is not a trace: %s", b.status())

	b.pickFiles(plain)
	b.waitScreen("the file picker to open timers.jsonl", 30*time.Second, func(s string) bool {
		return strings.Contains(s, "REPLAY") && strings.Contains(s, "timers.jsonl") && strings.Contains(s, "scheduled-timers")
	})

	// q closes the replay; Enter reopens it.
	b.key("q")
	b.waitStatus("q to close the replay", 10*time.Second, func(st string) bool { return strings.Contains(st, "closed") })
	b.key("Enter")
	b.waitScreen("Enter to reopen the file", 10*time.Second, func(s string) bool {
		return !strings.Contains(b.status(), "closed") && strings.Contains(s, "timers.jsonl")
	})
	b.key("ArrowRight")
	b.waitScreen("the reopened replay to take keys", 10*time.Second, func(s string) bool { ev, _ := position(s); return ev == "1" })
}

// openTour opens the page in a fresh Chromium, 1280×800, and waits for
// the tour's first screen.
func openTour(t testing.TB, exe, url string) (*browser, string) {
	t.Helper()
	b := startBrowser(t, exe)
	b.resize(1280, 800)
	start := time.Now()
	b.do("Page.navigate", map[string]any{"url": url})
	tour := b.waitScreen("the tour's first screen", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "RECORDING") && strings.Contains(s, "timeline") && strings.Contains(s, "watch:")
	})
	t.Logf("the tour drew %v after navigating, from a cold cache", time.Since(start).Round(time.Millisecond))
	return b, tour
}

// BenchmarkBrowserTourLoad is the time from navigating a fresh Chromium
// (cold cache) to the page to the tour's first screen: the program's
// download and compilation, the tour's fetch and fold, the first draw.
func BenchmarkBrowserTourLoad(b *testing.B) {
	exe := needChromium(b)
	site := browserSite(b)
	url := serve(b, site) + "/"
	for b.Loop() {
		b.StopTimer()
		br := startBrowser(b, exe)
		br.resize(1280, 800)
		b.StartTimer()
		br.do("Page.navigate", map[string]any{"url": url})
		br.waitScreen("the tour's first screen", 60*time.Second, func(s string) bool {
			return strings.Contains(s, "RECORDING") && strings.Contains(s, "watch:")
		})
		b.StopTimer()
		br.close()
		b.StartTimer()
	}
}

// TestBrowserStaticSite writes the site as reactorviz web --out does and
// serves it with a plain static file server: no Content-Encoding, the
// program as main.wasm. The tour opens there too, and so does a link to a
// recording at a moment.
func TestBrowserStaticSite(t *testing.T) {
	exe := needChromium(t)
	leaktest.Check(t)
	site := browserSite(t)
	dir := t.TempDir()
	if err := site.WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	b, _ := openTour(t, exe, srv.URL+"/")
	start := time.Now()
	b.eval(`(() => { location.hash = "#io-ratio@2.5s"; return true; })()`, nil)
	b.waitScreen("#io-ratio@2.5s", 30*time.Second, func(s string) bool {
		_, c := position(s)
		return strings.Contains(s, "io-ratio · multi") && strings.HasPrefix(c, "00:02.")
	})
	t.Logf("io-ratio, the largest recording, drew at 2.5s %v after its link", time.Since(start).Round(time.Millisecond))
}

// writeRecording writes a built-in recording, unzipped, as a file.
func writeRecording(t *testing.T, name, path string) {
	t.Helper()
	f, err := recordings.OpenCompressed(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
}
