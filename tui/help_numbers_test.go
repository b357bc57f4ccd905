package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
)

// The help fills the notes the run has reached with its figures so far,
// and leaves a later note's figures unfilled: at 1.4 s the tour's note
// for 12 s says nothing of clock reads it has not made.
func TestHelpLeavesLaterNotesUnfilled(t *testing.T) {
	hs := startBuiltin(t, "tour", 1400*time.Millisecond, 120, 40)
	hs.frame()
	var entries []string
	hs.sh.app.QueueUpdate(func() {
		v := hs.sh.v
		r, now := viewShown(v)
		for _, e := range scenarioEntries(v.scenario(), r, now) {
			entries = append(entries, e.Term+": "+e.Text)
		}
	})
	hs.frame()
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
	var at1, at12 string
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e, "watch at 1.0s: "):
			at1 = e
		case strings.HasPrefix(e, "watch at 12.0s: "):
			at12 = e
		}
	}
	if at1 == "" || at12 == "" {
		t.Fatalf("no notes for 1 s and 12 s in the help: %q", entries)
	}
	if strings.Contains(at1, "?") || !strings.Contains(at1, "so far") {
		t.Errorf("the note the run has reached is not filled: %q", at1)
	}
	if !strings.Contains(at12, "(? clock reads, ? batches cut so far)") {
		t.Errorf("a later note is filled with today's figures: %q", at12)
	}
	sc, err := scenarios.Load("tour")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(scenarioEntries(sc, nil, 0)); n < len(sc.Watch) {
		t.Errorf("%d help entries for %d notes", n, len(sc.Watch))
	}
}
