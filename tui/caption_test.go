package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/model"
)

// A scenario may give several notes for one moment: the caption shows all
// of them, and moves on to the next moment's notes when the clock does.
func TestWatchAtJoinsTheNotesOfOneMoment(t *testing.T) {
	sc := &scenarios.Scenario{Watch: []scenarios.Caption{
		{Text: "a."}, {Text: "b."}, {At: 2 * time.Second, Text: "c."},
	}}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{{0, "a. b."}, {time.Second, "a. b."}, {2 * time.Second, "c."}} {
		if got, _ := watchAt(sc, nil, tc.at); got != tc.want {
			t.Errorf("watchAt(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

// The action line says every action of the latest moment and stays lit
// for flashFor of run time.
func TestCaptionAtTheLatestAction(t *testing.T) {
	at := scenarios.Step{At: time.Second}
	fired := []sim.Fired{
		{At: time.Second, Action: scenarios.Submit{Step: at, Loop: "worker-0", Count: 3, From: scenarios.FromExternal}},
		{At: time.Second, Action: scenarios.SetIORatio{Step: at, Loop: "worker-0", IORatio: 10}},
	}
	c := captionAt(nil, nil, fired, time.Second+flashFor/2)
	if want := "t=1.0s: 3 tasks"; !c.recent || !strings.HasPrefix(c.action, want) || !strings.HasSuffix(c.action, "; ioRatio set to 10 on worker-0") {
		t.Errorf("caption %+v", c)
	}
	if c := captionAt(nil, nil, fired, time.Second+flashFor); c.recent {
		t.Errorf("still lit after %v: %+v", flashFor, c)
	}
}

// A loop that stops at a breakpoint takes the focus, so its detail pane
// says why; its row is marked.
func TestLiveBreakpointMovesTheFocus(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 120, 40)
	f := lf.session(0)
	w1 := f.Loops()[2]
	const reason = "breakpoint: selector rebuilt"
	w1.Pause(reason)
	f.feed(trace.Event{Time: 2500e6, Loop: 2, Kind: trace.KindPause, A: int64(trace.PhaseIO), Str: reason})
	scr := hs.frame()
	if !strings.Contains(scr, "◆worker-1") {
		t.Errorf("worker-1's row is not marked:\n%s", scr)
	}
	if !strings.Contains(scr, "─ worker-1 · tid") {
		t.Errorf("the detail pane does not show worker-1:\n%s", scr)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// Options.Paused opens the run with every loop told to pause, and the
// header says how to go on.
func TestLiveOpensPausedAtTheStart(t *testing.T) {
	checkGoroutines(t)
	lf := &liveFixture{t: t}
	hs := newHarness(t, 100, 32, func(o Options) error {
		o.Paused = true
		return RunLive(lf.newRun, o)
	})
	for _, l := range lf.session(0).Loops() {
		if g := l.GateStatus(); !g.Paused || g.Reason != startPause {
			t.Errorf("%s gate %+v, want paused %q", l.Name(), g, startPause)
		}
	}
	golden(t, "live_paused_start", hs.frame())
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// The pages turn every pageFor while the screen moves, stand still while
// it does not, and w turns one by hand.
func TestCaptionPagesTurnOnlyWhileTheScreenMoves(t *testing.T) {
	now := time.Unix(100, 0)
	defer func(c func() time.Time) { captionClock = c }(captionClock)
	captionClock = func() time.Time { return now }
	var p captionPager
	p.moving = true
	if got := p.pick(3); got != 0 {
		t.Fatalf("first page %d", got)
	}
	now = now.Add(pageFor)
	if got := p.pick(3); got != 1 {
		t.Fatalf("after pageFor moving: page %d, want 1", got)
	}
	p.moving = false
	now = now.Add(10 * pageFor)
	if got := p.pick(3); got != 1 {
		t.Fatalf("standing still: page %d, want 1 still", got)
	}
	p.turn()
	if got := p.pick(3); got != 2 {
		t.Fatalf("after w: page %d, want 2", got)
	}
	p.turn()
	if got := p.pick(3); got != 0 {
		t.Fatalf("w past the last page: %d, want 0", got)
	}
}

// A note too long for its rows is shown a page at a time, each page
// marked, its lines cut only between words; a sentence longer than a page
// goes on on the next, which says so; together they hold every word.
func TestWatchPageWrapsAndPages(t *testing.T) {
	note := "worker-0 gets 50000 small tasks (10us each) and runs them all in one batch: no budget, no 64-task checks (0 clock reads), while its echo clients wait."
	var words []string
	for p := range 3 {
		lines, mark := watchPage(note, 40, 3, func(pages int) int { return p % pages })
		if mark != strconv.Itoa(p%2+1)+"/2 w" {
			t.Fatalf("page %d mark %q", p, mark)
		}
		if len(lines) < 2 || len(lines) > 3 {
			t.Errorf("page %d has %d lines: %q", p, len(lines), lines)
		}
		for i, l := range lines {
			if len([]rune(l)) > 40-len(" 9/9 w") || strings.Contains(strings.TrimPrefix(l, continued), "…") {
				t.Errorf("line %q is cut or too long", l)
			}
			if i == 0 && p%2 == 1 && !strings.HasPrefix(l, continued) {
				t.Errorf("page 2 goes on with the sentence unmarked: %q", l)
			}
			if p < 2 {
				words = append(words, strings.Fields(strings.TrimPrefix(l, continued))...)
			}
		}
	}
	if got := strings.Join(words, " "); got != note {
		t.Errorf("the pages hold\n%q\nnot\n%q", got, note)
	}
	if lines, mark := watchPage("short note", 40, 2, func(int) int { return 0 }); mark != "" || len(lines) != 1 {
		t.Errorf("a short note: %q %q", lines, mark)
	}
}

// The rows of the loops a caption's figures are of are marked watched:
// io-ratio's note at 1 s reads worker-0's, worker-1's and worker-2's
// counters, not boss-0's.
func TestCaptionMarksTheLoopsItTalksAbout(t *testing.T) {
	sc, err := scenarios.Load("io-ratio")
	if err != nil {
		t.Fatal(err)
	}
	f := &model.Frame{}
	for _, n := range []string{"boss-0", "worker-0", "worker-1", "worker-2"} {
		var r model.FrameLoop
		r.Name = n
		f.Rows = append(f.Rows, r)
	}
	c := captionAt(sc, f, nil, 1500*time.Millisecond)
	markWatched(f, c)
	var got []string
	for _, r := range f.Rows {
		if r.Watched {
			got = append(got, r.Name)
		}
	}
	if strings.Join(got, " ") != "worker-0 worker-1 worker-2" {
		t.Errorf("watched %q; caption %q", got, c.watch)
	}
}

// The log points at the events that count a caption's figures:
// wakeup-coalescing's note at 1 s states worker-0's eventfd writes and
// coalesced wakeups, so worker-0's wakeup lines are marked, written or
// not, and neither worker-1's nor another kind of worker-0's.
func TestCaptionPointsAtTheLinesItCounts(t *testing.T) {
	sc, err := scenarios.Load("wakeup-coalescing")
	if err != nil {
		t.Fatal(err)
	}
	f := &model.Frame{}
	for _, n := range []string{"boss-0", "worker-0", "worker-1"} {
		var r model.FrameLoop
		r.Name = n
		f.Rows = append(f.Rows, r)
	}
	mark := pointedLines(captionAt(sc, f, nil, 1500*time.Millisecond).points)
	if mark == nil {
		t.Fatal("no line marked")
	}
	line := func(loop string, k trace.Kind, written bool, from string) *model.LogLine {
		return &model.LogLine{Loop: loop, Event: trace.Event{Kind: k, Flag: written, Str: from}}
	}
	for _, tc := range []struct {
		l    *model.LogLine
		want bool
	}{
		{line("worker-0", trace.KindWakeup, true, "external"), true},
		{line("worker-0", trace.KindWakeup, false, "external"), true},
		{line("worker-1", trace.KindWakeup, true, "external"), false},
		{line("worker-0", trace.KindTaskSubmit, false, "task"), false},
	} {
		if got := mark(tc.l); got != tc.want {
			t.Errorf("%s %v written=%v: marked %v, want %v", tc.l.Loop, tc.l.Event.Kind, tc.l.Event.Flag, got, tc.want)
		}
	}
}

// The latest script action's tasks are what the detail pane points at: a
// submit of tasks to worker-0 marks worker-0's queued "task"s, a schedule
// its scheduled timers, and nothing of another loop.
func TestCaptionPointsAtWhatTheActionPut(t *testing.T) {
	submit := scenarios.Submit{Loop: "worker-0", Count: 3}
	sched := scenarios.Schedule{Loop: "worker-0", Count: 1, Mode: scenarios.ScheduleFixedRate}
	c := captionAt(nil, &model.Frame{}, []sim.Fired{{Action: submit, Loops: []int{1}}, {Action: sched, Loops: []int{1}}}, time.Second)
	for _, tc := range []struct {
		loop int
		heap bool
		name string
		want bool
	}{
		{1, false, "task", true},
		{1, true, "fixed-rate", true},
		{1, true, "task", false},
		{2, false, "task", false},
		{1, false, "register", false},
	} {
		if got := c.marked(tc.loop, tc.heap, tc.name); got != tc.want {
			t.Errorf("loop %d heap %v %q: marked %v, want %v", tc.loop, tc.heap, tc.name, got, tc.want)
		}
	}
}

// endsSentence reports whether a word ends a sentence: a full stop,
// question or exclamation mark, perhaps inside a closing bracket or quote.
func endsSentence(word string) bool {
	w := strings.TrimRight(word, ")\"'’”")
	return strings.HasSuffix(w, ".") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!")
}

// No page of any built-in's watch note opens mid-sentence: at the widths
// of an 80- and a 120-column terminal and the rows either gives a note,
// every page after the first starts a sentence, or goes on with one too
// long for a page and opens with the mark that says so.
func TestWatchPagesBreakAtSentences(t *testing.T) {
	for _, in := range scenarios.Builtin() {
		sc, err := scenarios.Load(in.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range sc.Watch {
			note, _ := watchAt(sc, nil, c.At)
			for _, cols := range []int{80, 120} {
				for rows := 2; rows <= lessonWatchRows; rows++ {
					w := cols - len(watchLabel)
					_, mark := watchPage(note, w, rows, func(int) int { return 0 })
					if mark == "" {
						continue
					}
					n, _ := strconv.Atoi(strings.TrimSuffix(mark[strings.Index(mark, "/")+1:], " w"))
					var prev []string
					for p := range n {
						lines, _ := watchPage(note, w, rows, func(int) int { return p })
						if len(lines) == 0 || len(lines) > rows {
							t.Fatalf("%s at %s, %d cols, %d rows: page %d has %d lines", in.Name, seconds(c.At), cols, rows, p+1, len(lines))
						}
						if p > 0 && !strings.HasPrefix(lines[0], continued) && !endsSentence(prev[len(prev)-1]) {
							t.Errorf("%s at %s, %d cols, %d rows: page %d opens mid-sentence: %q after %q",
								in.Name, seconds(c.At), cols, rows, p+1, lines[0], prev[len(prev)-1])
						}
						prev = strings.Fields(lines[len(lines)-1])
					}
				}
			}
		}
	}
}
