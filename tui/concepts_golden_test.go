package tui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/recordings"
)

// conceptShot is where a concept is on screen: a built-in recording, the
// keys that bring the replay to a moment that shows it, and the rows of
// the element, from the first row that contains from. docs/concepts.md
// ("Where each concept is on screen") names the same element.
type conceptShot struct {
	id, rec string
	w, h    int
	keys    string // typed into the replay: \t is tab, \b shift-tab, \n enter, the rest runes
	from    string
	rows    int
}

var conceptShots = []conceptShot{
	{"C1", "multi-reactor", 120, 40, "g0.5s\n", "─ boss ·", 6},
	{"C2", "single-reactor", 120, 40, "g0.5s\n", "─ reactor ·", 3},
	{"C3", "boss-idle", 120, 40, "g2s\n", "─ boss ·", 6},
	{"C4", "chooser", 120, 40, "g2.9s\n/kind:accept\n", "─ events", 6},
	{"C5", "lazy-start", 80, 34, "g2.9s\n", "C5 workers", 4},
	{"C6", "multi-reactor", 120, 40, "g0.5s\n", "╭▶", 2},
	{"C7", "scheduled-timers", 120, 40, "g0.35s\n", "C7 select timeout", 1},
	{"C8", "spurious-wakeup", 120, 40, "g1s\n/kind:select_end\n", "─ events", 6},
	{"C9", "spurious-wakeup", 120, 40, "g1300\n", "  max ", 1},
	{"C10", "spurious-wakeup", 120, 40, "g3s\n/kind:rebuild_end\n", "─ events", 3},
	{"C11", "wakeup-coalescing", 120, 40, "g1.09s\n/kind:wakeup\n", "─ events", 6},
	{"C12", "lazy-start", 120, 40, "g2.9s\n", "─ worker ·", 5},
	{"C13", "tour", 120, 40, "g12.05s\n\t\t\t", "task queue", 6},
	{"C14", "scheduled-timers", 120, 40, "g0.35s\n", "heap", 5},
	{"C15", "task-deadline-64", 120, 40, "g1.5s\n", "64-task checks", 1},
	{"C16", "io-ratio", 120, 40, "g1.5s\n", "C16 budget", 1},
	{"C17", "scheduled-timers", 120, 40, "g1s\n\t\t", "─ wheel · HashedWheelTimer", 9},
	{"C18", "multi-reactor", 120, 40, "g0.9s\n", "─ worker ·", 4},
	{"C19", "blocking-handler", 120, 40, "g1.5s\n", "─ timeline", 6},
	{"C20", "multi-reactor", 120, 40, "g0.5s\n", "C20 keys", 1},
	{"C21", "client-bootstrap", 120, 40, "g165\n\t\t", "C21 connected", 1},
	{"C22", "edge-vs-level", 120, 40, "g1s\n", "C22 trigger", 1},
	{"C23", "graceful-shutdown", 120, 40, "g1.3s\n", "quiet left", 1},
	{"C24", "client-bootstrap", 120, 40, "g1s\n", "─ client ·", 4},
	{"C25", "task-deadline-64", 120, 40, "g1.5s\n/kind:tail_tasks\n", "─ events", 3},
	{"C26", "multi-reactor", 120, 40, "g27\n/accept task_submit register\n", "─ events", 5},
}

// smallShots is where each concept is on the 80×24 screen, the lesson
// layout, at the moment of its shot: the rows from the first holding from.
var smallShots = map[string]struct {
	from string
	rows int
}{
	"C1": {"─ loops ·", 4}, "C2": {"─ loops ·", 2}, "C3": {"─ loops ·", 7}, "C4": {"─ events", 3},
	"C5": {"C5 workers", 1}, "C6": {"C6 iterations", 1}, "C7": {"C7 select timeout", 1}, "C8": {"─ events", 4},
	"C9": {"C9 selectCnt", 1}, "C10": {"─ events", 3}, "C11": {"─ events", 3}, "C12": {"─ loops ·", 6},
	"C13": {"C13 task queue", 1}, "C14": {"C14 heap", 1}, "C15": {"C15 64-task checks", 1}, "C16": {"C16 ioRatio", 1},
	"C17": {"C17 wheel tick", 1}, "C18": {"C18 channels", 1}, "C19": {"─ loops ·", 4}, "C20": {"C20 keys", 1},
	"C21": {"C21 connected", 2}, "C22": {"C22 trigger", 1}, "C23": {"C23 quiet left", 1}, "C24": {"─ loops ·", 6},
	"C25": {"─ events", 3}, "C26": {"─ events", 3},
}

// At 80×24 each concept's element is on screen at the same moment, in the
// lesson layout, against testdata/concepts/ID_80x24.golden.
func TestConceptElementsAt80x24(t *testing.T) {
	for _, s := range conceptShots {
		t.Run(s.id, func(t *testing.T) {
			small, ok := smallShots[s.id]
			if !ok {
				t.Fatalf("no 80×24 element for %s", s.id)
			}
			rc, err := recordings.Open(s.rec)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			hs := newHarness(t, 80, 24, func(o Options) error { return replayFrom(rc, s.rec, "recording", o) })
			hs.press(keysOf(s.keys)...)
			scr := hs.frame()
			got := region(scr, small.from, small.rows)
			if err := hs.quit(); err != nil {
				t.Fatal(err)
			}
			if got == "" {
				t.Fatalf("no row with %q on the 80×24 screen:\n%s", small.from, scr)
			}
			golden(t, "concepts/"+s.id+"_80x24", got)
		})
	}
}

// Each concept's screen element, drawn from its recording, against
// testdata/concepts/ID.golden (go test ./tui -run TestConceptElements
// -update rewrites them after a change to the screen or the recordings).
func TestConceptElements(t *testing.T) {
	for _, s := range conceptShots {
		t.Run(s.id, func(t *testing.T) {
			rc, err := recordings.Open(s.rec)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			hs := newHarness(t, s.w, s.h, func(o Options) error { return replayFrom(rc, s.rec, "recording", o) })
			hs.press(keysOf(s.keys)...)
			got := region(hs.frame(), s.from, s.rows)
			if err := hs.quit(); err != nil {
				t.Fatal(err)
			}
			if got == "" {
				t.Fatalf("no row with %q on screen", s.from)
			}
			golden(t, "concepts/"+s.id, got)
		})
	}
}

// keysOf turns a key string into key events.
func keysOf(s string) []*tcell.EventKey {
	var out []*tcell.EventKey
	for _, r := range s {
		switch r {
		case '\t':
			out = append(out, keyEv(tcell.KeyTab))
		case '\n':
			out = append(out, keyEv(tcell.KeyEnter))
		case '\b':
			out = append(out, keyEv(tcell.KeyBacktab))
		default:
			out = append(out, runeEv(r))
		}
	}
	return out
}

// region is n rows of screen from the first that contains from.
func region(screen, from string, n int) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.Contains(l, from) {
			return strings.Join(lines[i:min(i+n, len(lines))], "\n") + "\n"
		}
	}
	return ""
}

// docs/concepts.md names the same element for each concept, from the same
// recording, and covers C1–C26.
func TestConceptElementsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "concepts.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "### Where each concept is on screen")
	if !ok {
		t.Fatal("docs/concepts.md has no section on where each concept is on screen")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	if len(conceptShots) != 26 {
		t.Errorf("%d concept shots, want C1–C26", len(conceptShots))
	}
	for i, s := range conceptShots {
		if want := "C" + strconv.Itoa(i+1); s.id != want {
			t.Errorf("shot %d is %s, want %s", i, s.id, want)
		}
		row := "| " + s.id + " |"
		_, rest, ok := strings.Cut(section, row)
		line, _, _ := strings.Cut(rest, "\n")
		if !ok || !strings.Contains(line, "`"+s.rec+"`") {
			t.Errorf("docs/concepts.md: no row for %s naming the recording %s", s.id, s.rec)
		}
	}
}
