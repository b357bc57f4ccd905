package tui

import (
	"os"
	"strings"
	"testing"
)

// A built-in recording opens in the replay view with RECORDING and its
// banner in the header, so nobody takes it for a run of this machine.
func TestRecordingBanner(t *testing.T) {
	checkGoroutines(t)
	f, err := os.Open(writeTrace(t, replayScript()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hs := newHarness(t, 140, 34, func(o Options) error {
		return replayFrom(f, "tour", "recording of tour (multi) made on the Linux engine", o)
	})
	got := hs.frame()
	if !strings.Contains(got, "RECORDING") || !strings.Contains(got, "recording of tour (multi) made on the Linux engine") ||
		strings.Contains(got, "REPLAY") {
		t.Errorf("header does not say it is a recording:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}
