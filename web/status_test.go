package web

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui"
	"github.com/reactorviz/reactorviz/tui/remote"
)

// waitStatus waits for the page's status line to satisfy ok.
func waitStatus(t *testing.T, b *browser, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := b.status()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 60s for %s; the status line reads %q", what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shot keeps a screenshot of the page when REACTORVIZ_SCREENSHOTS names a
// directory.
func shot(b *browser, name string) {
	if dir := os.Getenv("REACTORVIZ_SCREENSHOTS"); dir != "" {
		b.screenshot(filepath.Join(dir, name))
	}
}

// A compare workload's recording says, in the replay's header and the
// page's status line, that its lanes and figures are a quiet machine's,
// as the terminal's compare screen does when it offers them (key R).
func TestBrowserCompareRecordingIsAQuietMachines(t *testing.T) {
	exe := needChromium(t)
	site, err := Open(testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t, exe)
	b.do("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false})
	b.do("Page.navigate", map[string]any{"url": serve(t, site) + "/#cpu-bound-multi"})
	b.waitScreen("the recording's header", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "RECORDING") && strings.Contains(s, "quiet machine: not this machine")
	})
	st := waitStatus(t, b, "the quiet machine's label", func(s string) bool { return strings.HasPrefix(s, "cpu-bound-multi · ") })
	if !strings.Contains(st, "made on a quiet machine: these lanes and figures are the recording's, not this machine's runs") {
		t.Errorf("the status line of a compare recording reads %q", st)
	}
	shot(b, "web-compare-quiet.png")
}

// A live run's scenario warnings (here a --set duration that its
// timeline's actions never reach) are in the page's status line, beside
// what it says of the run.
func TestBrowserLiveWarnings(t *testing.T) {
	exe := needChromium(t)
	if !reactor.Live {
		t.Skip("live runs need the Linux engine")
	}
	leaktest.Check(t)
	site, err := Open(testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load("spurious-wakeup")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "1s"); err != nil {
		t.Fatal(err)
	}
	host := remote.NewHost(func(w io.Writer) (*sim.Run, error) { return tui.LiveRun(sc, sim.Options{TraceTo: w}) })
	addr := serveLiveOn(t, site, func(ctx context.Context, c *WSConn) error { return host.Serve(ctx, c) })
	b := startBrowser(t, exe)
	b.do("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false})
	b.do("Page.navigate", map[string]any{"url": "http://" + addr + "/#live,paused"})
	st := waitStatus(t, b, "the run's warnings", func(s string) bool { return strings.Contains(s, "LIVE") && strings.Contains(s, "⚠ warning: ") })
	if !strings.Contains(st, "never happens") {
		t.Errorf("the status line of the live page reads %q", st)
	}
	b.waitScreen("the live screen", 60*time.Second, func(s string) bool { return strings.Contains(s, "spurious-wakeup") })
	shot(b, "web-live-warnings.png")
}
