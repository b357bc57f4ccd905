package web

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/remote"
	"github.com/reactorviz/reactorviz/tui"
)

// A compare workload's recording says, in the replay's header and the
// page's status line, that its lanes and figures are a quiet machine's,
// as the terminal's compare screen does when it offers them (key R).
func TestBrowserCompareRecordingIsAQuietMachines(t *testing.T) {
	exe := needChromium(t)
	site := browserSite(t)
	b := openPage(t, exe, serve(t, site)+"/#cpu-bound-multi")
	b.waitScreen("the recording's header", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "RECORDING") && strings.Contains(s, "quiet machine: not this machine")
	})
	st := b.waitStatus("the quiet machine's label", 60*time.Second, func(s string) bool { return strings.HasPrefix(s, "cpu-bound-multi · ") })
	if !strings.Contains(st, "made on a quiet machine: these lanes and figures are the recording's, not this machine's runs") {
		t.Errorf("the status line of a compare recording reads %q", st)
	}
	b.shot("web-compare-quiet.png")
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
	site := browserSite(t)
	sc, err := scenarios.Load("spurious-wakeup")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "1s"); err != nil {
		t.Fatal(err)
	}
	host := remote.NewHost(func(w io.Writer) (*sim.Run, error) { return tui.LiveRun(sc, sim.Options{TraceTo: w}) })
	addr := serveLiveOn(t, site, func(ctx context.Context, c *WSConn) error { return host.Serve(ctx, c) })
	b := openPage(t, exe, "http://"+addr+"/#live,paused")
	st := b.waitStatus("the run's warnings", 60*time.Second, func(s string) bool { return strings.Contains(s, "LIVE") && strings.Contains(s, "⚠ warning: ") })
	if !strings.Contains(st, "never happens") {
		t.Errorf("the status line of the live page reads %q", st)
	}
	b.waitScreen("the live screen", 60*time.Second, func(s string) bool { return strings.Contains(s, "spurious-wakeup") })
	b.shot("web-live-warnings.png")
}
