package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
)

// The end-to-end tests run the real reactorviz binary in tmux, press keys
// and read the pane. Without tmux they skip and say so, except under CI,
// where they fail: .ci/run installs tmux, and a CI that silently skipped
// them would pass without ever opening a screen.

var tmuxSeq atomic.Int64

// tmuxSocket is the tests' own tmux server: nothing else on the machine
// (a user's tmux, another test binary's kill-server) can end its panes.
var tmuxSocket = "reactorviz-e2e-" + strconv.Itoa(os.Getpid())

// buildCLI builds cmd/reactorviz once per test, or skips.
func buildCLI(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: not in -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("end-to-end: Linux only")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("end-to-end: tmux is not installed, and CI=true: .ci/run installs it (apt-get install -y tmux)")
		}
		t.Skip("END-TO-END TESTS SKIPPED: tmux is not installed (apt-get install -y tmux runs them)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "reactorviz")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/reactorviz")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// tmuxPane is one detached tmux session running a command.
type tmuxPane struct {
	t    *testing.T
	name string
}

func newPane(t *testing.T, w, h int, command string) *tmuxPane {
	t.Helper()
	p := &tmuxPane{t: t, name: "reactorviz-e2e-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(tmuxSeq.Add(1), 10)}
	// The shell prints the exit status once the program is gone, so a
	// test can tell a clean quit (and a restored terminal) from a hang.
	script := command + "; echo EXIT=$?; sleep 60"
	p.tmux("new-session", "-d", "-s", p.name, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tmuxSocket, "kill-session", "-t", p.name).Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tmuxSocket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *tmuxPane) capture() string { return p.tmux("capture-pane", "-p", "-t", p.name) }

func (p *tmuxPane) keys(keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", p.name}, keys...)...)
}

// waitFor polls the pane until it shows want.
func (p *tmuxPane) waitFor(want string) string {
	p.t.Helper()
	return p.waitForWithin(want, 20*time.Second)
}

// waitForWithin polls the pane until it shows want, for at most d.
func (p *tmuxPane) waitForWithin(want string, d time.Duration) string {
	p.t.Helper()
	return p.poll(strconv.Quote(want), d, func(s string) bool { return strings.Contains(s, want) })
}

// waitUntil polls the pane until ok accepts what it shows, and returns it.
func (p *tmuxPane) waitUntil(what string, ok func(string) bool) string {
	p.t.Helper()
	return p.poll(what, 20*time.Second, ok)
}

// poll captures the pane every 100 ms, for at most d, until ok accepts a
// frame drawn whole, and returns it.
func (p *tmuxPane) poll(what string, d time.Duration, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		out := p.capture()
		if ok(out) {
			return p.settle(out, ok)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waited in vain for %s; the pane shows:\n%s", what, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// settle returns the pane once its frame is drawn whole: tmux can be read
// while the program is still writing a frame, its lower rows not yet
// drawn. A capture ok accepts is taken when the one before it, 100 ms
// earlier, had as many rows drawn: a paused screen is then the same, a
// running one has moved on in the same layout. After two seconds the
// latest capture ok accepts is taken.
func (p *tmuxPane) settle(out string, ok func(string) bool) string {
	for range 20 {
		time.Sleep(100 * time.Millisecond)
		next := p.capture()
		if !ok(next) {
			continue
		}
		if drawnRows(next) == drawnRows(out) {
			return next
		}
		out = next
	}
	return out
}

// drawnRows counts a capture's rows that are not blank.
func drawnRows(screen string) int {
	n := 0
	for _, line := range strings.Split(screen, "\n") {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n
}

func TestE2ELive(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 120, 40, bin+" run tour --duration 60s")
	p.waitFor("▶ RUNNING")
	p.waitFor("worker-0")
	p.keys("?")
	// The help opens on what the scenario is for, its notes from the file.
	p.waitFor("This scenario: tour")
	p.waitFor("notes")
	// Escape alone: a key right after it would read as Alt+key.
	p.keys("Escape")
	p.waitFor("─ events")
	p.keys("Space")
	p.waitFor("PAUSED")
	p.keys("n")
	// The focused loop's pause reason turns from the user's (which the
	// header leaves out) to the step's; "step" alone is in the footer.
	p.waitFor("PAUSED · step")
	p.keys("q")
	out := p.waitFor("EXIT=0")
	if strings.Contains(out, "RUNNING") || strings.Contains(out, "PAUSED") {
		t.Errorf("the terminal was not restored after quit:\n%s", out)
	}
}

func TestE2ETooSmallThenResized(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 70, 20, bin+" run tour --duration 60s")
	p.waitFor("terminal too small")
	p.tmux("resize-window", "-t", p.name, "-x", "100", "-y", "30")
	p.waitFor("worker-0")
	p.keys("q")
	p.waitFor("EXIT=0")
}

func TestE2EReplay(t *testing.T) {
	bin := buildCLI(t)
	trace := filepath.Join(t.TempDir(), "spurious-wakeup.jsonl")
	rec := exec.Command(bin, "run", "spurious-wakeup", "--headless", "--trace", trace)
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("recording a trace: %v\n%s", err, out)
	}
	p := newPane(t, 120, 40, bin+" replay "+trace)
	out := p.waitFor("REPLAY")
	// The header reads "event POS/N"; the trace length N comes from it.
	m := regexp.MustCompile(`event (\d+)/(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no event position in the header:\n%s", out)
	}
	n, _ := strconv.Atoi(m[2])
	// End and ← ← must land on positions the first frame does not show.
	if pos, _ := strconv.Atoi(m[1]); pos >= n-2 {
		t.Fatalf("the replay opens at event %d of %d, too near the end to test End and ←", pos, n)
	}
	p.keys("End")
	p.waitFor("event " + m[2] + "/" + m[2])
	p.keys("Left", "Left")
	p.waitFor("event " + strconv.Itoa(n-2) + "/" + m[2])
	p.keys("q")
	p.waitFor("EXIT=0")
}

// --paused opens the run with its clock held at the start and the
// scenario's caption on screen; space runs it, and the timeline's first
// action shows up in the caption line as it happens.
func TestE2EPausedStartAndCaptions(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 120, 40, bin+" run task-deadline-64 --paused")
	out := p.waitFor("at the start")
	if !strings.Contains(out, "watch:") || !strings.Contains(out, "00:00.0/00:03.0") {
		t.Errorf("the paused start shows no caption or a moving clock:\n%s", out)
	}
	p.keys("Space")
	p.waitFor("t=1.0s: 50 000 tasks")
	p.keys("q")
	p.waitFor("EXIT=0")
}

// timelineRows returns the pane's timeline lanes: the rows between its
// rule and the next one.
func timelineRows(screen string) string { return rowsUnder(screen, "─ timeline") }

// lessonLanes returns the lesson layout's loops block: the rows between
// its rule and the next one, each a loop's compact row and its lane.
func lessonLanes(screen string) string { return rowsUnder(screen, "─ loops · ") }

// rowsUnder returns the rows between the rule that starts with rule and
// the next rule.
func rowsUnder(screen, rule string) string {
	var rows []string
	in := false
	for _, line := range strings.Split(screen, "\n") {
		switch {
		case strings.HasPrefix(line, rule):
			in = true
		case in && strings.HasPrefix(line, "─"):
			return strings.Join(rows, "\n")
		case in:
			rows = append(rows, line)
		}
	}
	return strings.Join(rows, "\n")
}

// The timeline is on screen at 80×24: in the lesson layout its lanes are
// beside the loops' rows, and they move; t goes on to the timeline
// layout, whose lanes, zoomed in as out, are named.
func TestE2ETimelineMoves(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 80, 24, bin+" run tour --duration 60s")
	first := lessonLanes(p.waitFor(" · concepts "))
	if !strings.Contains(first, "worker-0") || !strings.Contains(first, "boss-0") {
		t.Fatalf("no boss-0 and worker-0 rows at 80×24:\n%s", p.capture())
	}
	p.waitUntil("the lanes beside the rows to move", func(s string) bool { return lessonLanes(s) != first })
	p.keys("t")
	p.waitUntil("the timeline layout", func(s string) bool { return strings.Contains(timelineRows(s), "worker-0") })
	p.keys("z", "z", "z")
	p.waitFor("─ timeline · 100ms window")
	p.keys("q")
	p.waitFor("EXIT=0")
}

// A replay draws the same timeline from the trace: zoomed out over the
// whole run of spurious-wakeup, worker-0's lane shows the rebuild.
func TestE2EReplayTimeline(t *testing.T) {
	bin := buildCLI(t)
	trace := filepath.Join(t.TempDir(), "spurious-wakeup.jsonl")
	rec := exec.Command(bin, "run", "spurious-wakeup", "--headless", "--trace", trace)
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("recording a trace: %v\n%s", err, out)
	}
	p := newPane(t, 100, 32, bin+" replay "+trace)
	p.waitFor("─ timeline · 1s window")
	p.keys("End", "Z", "Z")
	p.waitUntil("the rebuild on worker-0's lane", func(s string) bool {
		for _, line := range strings.Split(timelineRows(s), "\n") {
			if strings.Contains(line, "worker-0") && strings.Contains(line, "R") {
				return true
			}
		}
		return false
	})
	p.keys("q")
	p.waitFor("EXIT=0")
}

// TestE2EFloodsKeepEveryEvent runs the built-ins whose floods are the
// lesson to their end on the screen, at both sizes, and reads that the UI
// kept every event: no drop in the header, no drop note over the log. The
// rings the UI asks for hold a flood's burst between two drains.
func TestE2EFloodsKeepEveryEvent(t *testing.T) {
	bin := buildCLI(t)
	for _, sc := range []string{"task-deadline-64", "io-ratio", "tour"} {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			p := newPane(t, size[0], size[1], bin+" run "+sc)
			out := p.waitForWithin("FINISHED", 60*time.Second)
			if strings.Contains(out, "dropped") || strings.Contains(out, "· drop ") {
				t.Errorf("%s at %dx%d dropped events:\n%s", sc, size[0], size[1], out)
			}
			p.keys("q")
			p.waitFor("EXIT=")
		}
	}
}

// TestE2ELessonEveryBuiltin opens every built-in paused at its start in
// tmux, at 80×24 (the lesson layout) and 120×40: the caption is on screen
// whole, its pages turned with w, no word cut; and the label of every
// counter of every concept the scenario lists is on screen.
func TestE2ELessonEveryBuiltin(t *testing.T) {
	bin := buildCLI(t)
	for _, in := range scenarios.Builtin() {
		sc, err := scenarios.Load(in.Name)
		if err != nil {
			t.Fatal(err)
		}
		watch, _ := watchAt(sc, nil, 0)
		note := noteRegexp(watch)
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			where := in.Name + " at " + strconv.Itoa(size[0]) + "×" + strconv.Itoa(size[1])
			p := newPane(t, size[0], size[1], bin+" run "+in.Name+" --paused")
			out := p.waitFor("at the start")
			if size[0] == 80 && !strings.Contains(out, " · concepts ") {
				t.Errorf("%s: not the lesson layout:\n%s", where, out)
			}
			words, pages := captionOnScreen(out)
			for range pages - 1 {
				p.keys("w")
				prev := strings.Join(words, " ")
				scr := p.waitUntil("the next page", func(s string) bool {
					more, _ := captionOnScreen(s)
					return strings.Join(more, " ") != "" && !strings.HasSuffix(prev, strings.Join(more, " "))
				})
				more, _ := captionOnScreen(scr)
				words = append(words, more...)
			}
			if got := strings.Join(words, " "); !note.MatchString(got) {
				t.Errorf("%s: the caption on screen is not the note whole:\n got: %s\nwant: %s\n%s", where, got, note, out)
			}
			for _, id := range sc.Concepts {
				for _, it := range lessonConcepts[id].items(&lessonCtx{f: &model.Frame{Snapshot: &model.Snapshot{}}, sc: sc}) {
					// A mechanism's drawing gives way in a crowded block;
					// TestConceptElements checks where it is drawn.
					if lessonRowLabels[it.label] && size[0] == 80 {
						// The loops block shows them: the groups on its
						// rule, each loop's state in its row.
						if !strings.Contains(out, "─ loops · ") {
							t.Errorf("%s: no loops block for %s's %q:\n%s", where, id, it.label, out)
						}
						continue
					}
					if !mechanismView[it.label] && !strings.Contains(out, it.label+" ") {
						t.Errorf("%s: %s's %q is not on screen:\n%s", where, id, it.label, out)
					}
				}
			}
			p.keys("q")
			p.waitFor("EXIT=0")
		}
	}
}

// noteRegexp matches a note's words as the screen shows them: any run of
// spaces for one, any figure for a placeholder the note shows as "?".
func noteRegexp(note string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i, w := range strings.Fields(note) {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(strings.ReplaceAll(regexp.QuoteMeta(w), `\?`, `.*?`))
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// busyMachine keeps every CPU busy for the rest of the test with
// processes of its own, as other work on a learner's laptop would.
func busyMachine(t *testing.T) {
	t.Helper()
	for range runtime.NumCPU() {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatalf("busy loop: %v", err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
}

// On a machine whose CPUs other work holds, the compare screen still
// teaches: each loop's CPU per request and the capacity with a core per
// loop are beside what the clients saw, and the verdict offers the
// built-in recording made on a quiet machine, which R opens, labelled.
func TestE2ECompareOnABusyMachine(t *testing.T) {
	bin := buildCLI(t)
	busyMachine(t)
	p := newPane(t, 120, 45, bin+" compare cpu-bound --duration 2s")
	p.waitForWithin("all models done", 90*time.Second)
	out := p.waitFor("R: the same comparison recorded on a quiet machine")
	// The verdict wraps: read it with its lines joined.
	out = strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"/req", "a core a loop", "one loop runs every handler", "2 workers share the handlers",
		"the machine was busy", "ranked instead on each loop's own CPU per request"} {
		if !strings.Contains(out, want) {
			t.Errorf("the compare screen has no %q:\n%s", want, out)
		}
	}
	p.keys("R")
	p.waitFor("built-in recordings, made on a quiet machine")
	p.keys("q")
	p.waitForWithin("EXIT=0", 30*time.Second)
}

// io-ratio's lesson on screen: worker-2 (ioRatio 100) drains its flood in
// one go while its clients wait, which its row's worst 250 ms window shows
// above worker-0's (ioRatio 10), whose batches are cut. Read at the end of
// the built-in recording, made on a quiet machine, as the replay reads a
// trace (its samples carry the worst windows): a live run on a machine
// busy with other work starves every loop, and ranks them by chance.
func TestE2EIORatioRowsShowTheStall(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 120, 40, bin+" replay io-ratio")
	m := regexp.MustCompile(`event (\d+)/(\d+)`).FindStringSubmatch(p.waitFor("RECORDING"))
	if m == nil {
		t.Fatalf("no event position in the header:\n%s", p.capture())
	}
	p.keys("End")
	out := p.waitFor("event " + m[2] + "/" + m[2])
	worst := func(loop string) time.Duration {
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) > 2 && strings.TrimLeft(f[0], "▶◆◇ ") == loop {
				d, err := time.ParseDuration(strings.Replace(f[len(f)-1], "µ", "u", 1))
				if err != nil {
					t.Fatalf("%s's worst cell %q: %v\n%s", loop, f[len(f)-1], err, out)
				}
				return d
			}
		}
		t.Fatalf("no %s row:\n%s", loop, out)
		return 0
	}
	if w0, w2 := worst("worker-0"), worst("worker-2"); w2 <= w0 {
		t.Errorf("worker-2's worst window %v is not above worker-0's %v:\n%s", w2, w0, out)
	}
}
