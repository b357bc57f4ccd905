package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/learn"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

func openBuiltinRecording(name string) (*jsonl.Trace, error) {
	rc, err := recordings.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return jsonl.ReadAll(rc, name)
}

// waitFrame draws frames until one contains want; the run plays on the
// wall clock from the held moment to the question's.
func waitFrame(t *testing.T, hs *harness, want string) string {
	t.Helper()
	var f string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if f = hs.frame(); strings.Contains(f, want) {
			return f
		}
	}
	t.Fatalf("no %q on screen:\n%s", want, f)
	return f
}

func typeLine(hs *harness, s string) {
	for _, r := range s {
		hs.press(runeEv(r))
	}
	hs.press(keyEv(tcell.KeyEnter))
}

// TestLearnAsksThenShows: the chooser lesson holds the run before its
// moment with the question on screen; a right answer plays on to the
// moment and says so with the figure, and Enter saves the outcome and
// opens the next lesson, whose wrong answer brings the second question.
func TestLearnAsksThenShows(t *testing.T) {
	start := 2 // chooser
	if learn.Path[start].Name != "chooser" {
		t.Fatalf("lesson %d is %s", start, learn.Path[start].Name)
	}
	progress := learn.NewProgress()
	saved := 0
	cfg := LearnConfig{Start: start, Progress: progress, Save: func() error { saved++; return nil }, Open: openBuiltinRecording}
	hs := newHarness(t, 120, 40, func(o Options) error { return RunLearn(cfg, o) })
	f := waitFrame(t, hs, "How many channels will worker-2 have registered")
	if !strings.Contains(f, "lesson 3 of") || !strings.Contains(f, "your answer (type a number") {
		t.Errorf("the lesson's header or prompt is missing:\n%s", f)
	}
	typeLine(hs, "3")
	f = waitFrame(t, hs, "Right.")
	if !strings.Contains(f, "worker-2.registered = 3") {
		t.Errorf("the verdict lacks the run's figure:\n%s", f)
	}
	typeLine(hs, "")
	waitFrame(t, hs, "lesson 4 of")
	if saved != 1 || !progress.Lessons["chooser"].First {
		t.Errorf("progress after the lesson: saved %d times, %+v", saved, progress.Lessons)
	}
	typeLine(hs, "99")
	waitFrame(t, hs, "Wrong.")
	typeLine(hs, "")
	waitFrame(t, hs, "Second question.")
	hs.press(keyEv(tcell.KeyEscape))
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// A question about a scripted action holds the run before the action, not
// Lead before the moment it asks about: the wakeups lesson asks how many
// eventfd writes the 1s flood makes by 1.5s, so the screen stops before
// 1s, with the flood's writes still to come; its second question, about
// the flood at 2s, stops before 2s, though the first was read at 1.5s.
func TestLearnHoldsBeforeTheAction(t *testing.T) {
	cfg := LearnConfig{Start: learn.Index("wakeups"), Progress: learn.NewProgress(), Open: openBuiltinRecording}
	hs := newHarness(t, 120, 40, func(o Options) error { return RunLearn(cfg, o) })
	f := waitFrame(t, hs, "How many eventfd writes will worker-0")
	// The replay's clock reads its last event: the loops sleep from the
	// start until the flood.
	if !strings.Contains(f, "  00:00.") || !strings.Contains(f, "wakeups written 0") {
		t.Errorf("the first question is not held before the 1s flood:\n%s", f)
	}
	typeLine(hs, "999999")
	waitFrame(t, hs, "Wrong.")
	typeLine(hs, "")
	f = waitFrame(t, hs, "Second question.")
	if !strings.Contains(f, "  00:01.") {
		t.Errorf("the second question is not held before the 2s flood:\n%s", f)
	}
	hs.press(keyEv(tcell.KeyEscape))
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}
