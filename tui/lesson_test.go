package tui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// startBuiltin starts the live screen on a fake session playing the tour's
// events under a built-in scenario, its clock at, so the caption is the
// scenario's note for that moment and the concept block its concepts'.
func startBuiltin(t *testing.T, name string, at time.Duration, w, h int) *harness {
	t.Helper()
	sc, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	newRun := func(sink trace.Sink) (Session, error) {
		f := newFakeSession(t, name, sc.Model, sink)
		f.sc, f.elapsed = sc, at
		f.onStart = func(f *fakeSession) { f.feed(tourEvents(f)...) }
		return f, nil
	}
	return newHarness(t, w, h, func(o Options) error { return RunLive(newRun, o) })
}

// watchMark is the page mark a paged note ends with.
var watchMark = regexp.MustCompile(` \d+/\d+ w$`)

// captionOnScreen returns the words of the watch note the screen shows,
// its rows from "watch:" on, and the number of pages it has (1 when not
// paged).
func captionOnScreen(screen string) (words []string, pages int) {
	lines := strings.Split(screen, "\n")
	pages = 1
	for i, l := range lines {
		if !strings.HasPrefix(l, watchLabel) {
			continue
		}
		rows := []string{strings.TrimPrefix(l, watchLabel)}
		for _, next := range lines[i+1:] {
			if !strings.HasPrefix(next, strings.Repeat(" ", len(watchLabel))) || strings.TrimSpace(next) == "" {
				break
			}
			rows = append(rows, next)
		}
		last := rows[len(rows)-1]
		if m := watchMark.FindString(last); m != "" {
			rows[len(rows)-1] = strings.TrimSuffix(last, m)
			_, n, _ := strings.Cut(strings.TrimSuffix(strings.TrimSpace(m), " w"), "/")
			pages, _ = strconv.Atoi(n)
		}
		for _, r := range rows {
			words = append(words, strings.Fields(r)...)
		}
		return words, pages
	}
	return nil, 0
}

// checkCaptionWhole reads the watch note off the screen, turning its pages
// with w, and checks that its words are the note's, in order, none cut.
func checkCaptionWhole(t *testing.T, hs *harness, where string) {
	t.Helper()
	var note string
	scr := hs.frame()
	hs.sh.app.QueueUpdate(func() { note = hs.sh.v.(*liveView).caption.watch })
	if note == "" {
		return
	}
	got, pages := captionOnScreen(scr)
	if pages == 0 {
		t.Fatalf("%s: no caption on screen:\n%s", where, scr)
	}
	w, _ := hs.scr.Size()
	if lines := len(widgets.Wrap(note, w-len(watchLabel))); pages > 1 && lines <= lessonWatchRows {
		t.Errorf("%s: a note of %d lines is paged:\n%s", where, lines, scr)
	}
	for range pages - 1 {
		hs.press(runeEv('w'))
		more, _ := captionOnScreen(hs.frame())
		if len(more) > 0 && more[0] == strings.TrimSpace(continued) {
			more = more[1:] // the page goes on with a sentence, and says so
		} else if len(got) > 0 && !endsSentence(got[len(got)-1]) {
			t.Errorf("%s: a page opens mid-sentence with %q:\n%s", where, strings.Join(more, " "), hs.frame())
		}
		got = append(got, more...)
	}
	if want := strings.Fields(note); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s: the caption on screen (%d pages) is not the note whole:\n got: %s\nwant: %s\n%s",
			where, pages, strings.Join(got, " "), strings.Join(want, " "), scr)
	}
}

// checkConcepts checks that every counter of every concept the scenario
// lists is on screen with its value, in the concept block or the detail
// pane.
func checkConcepts(t *testing.T, hs *harness, sc *scenarios.Scenario, where string) {
	t.Helper()
	scr := hs.frame()
	var want []counter
	hs.sh.app.QueueUpdate(func() {
		lc := hs.sh.v.(*liveView).body.lessonCtx()
		for _, id := range sc.Concepts {
			want = append(want, lessonConcepts[id].items(lc)...)
		}
	})
	for _, id := range sc.Concepts {
		if _, ok := lessonConcepts[id]; !ok {
			t.Errorf("%s: concept %s has no counters in lessonConcepts", where, id)
		}
	}
	for _, it := range want {
		// A mechanism's drawing gives way in a crowded block;
		// TestConceptElements checks where it is drawn.
		if lessonRowLabels[it.label] && strings.Contains(scr, " · concepts ") {
			// The lesson layout's loops block shows these: the groups on
			// its rule, the focused loop's state in its row.
			if !strings.Contains(scr, "loops · "+it.value) && !strings.Contains(scr, " "+it.value+" ") {
				t.Errorf("%s: %q is not in the loops block:\n%s", where, it.label+" "+it.value, scr)
			}
			continue
		}
		if !mechanismView[it.label] && !strings.Contains(scr, it.label+" "+it.value) {
			t.Errorf("%s: %q is not on screen:\n%s", where, it.label+" "+it.value, scr)
		}
	}
}

// Every built-in, at every caption of its script, at 80×24 (the lesson
// layout) and 120×40: the caption is on screen whole, its words uncut, and
// the counters of every concept the scenario lists are visible.
func TestLessonEveryBuiltinFollowable(t *testing.T) {
	for _, in := range scenarios.Builtin() {
		sc, err := scenarios.Load(in.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			for _, c := range sc.Watch {
				where := in.Name + " at " + seconds(c.At) + " " + strconv.Itoa(size[0]) + "×" + strconv.Itoa(size[1])
				hs := startBuiltin(t, in.Name, c.At+time.Millisecond, size[0], size[1])
				if size[0] == 80 && !strings.Contains(hs.frame(), " · concepts ") {
					t.Errorf("%s: not the lesson layout:\n%s", where, hs.frame())
				}
				checkConcepts(t, hs, sc, where)
				checkCaptionWhole(t, hs, where)
				if err := hs.quit(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// The lesson layout at 80×24, as a learner sees it: the note whole, the
// focused row under the column header, the concepts' counters with the
// ioRatio budget's formula filled in, and the latest events.
func TestLessonGolden(t *testing.T) {
	for _, name := range []string{"io-ratio", "wakeup-coalescing", "tour"} {
		t.Run(name, func(t *testing.T) {
			checkGoroutines(t)
			hs := startBuiltin(t, name, 2*time.Second, 80, 24)
			golden(t, "lesson_"+name+"_80x24", hs.frame())
			if err := hs.quit(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Paused and stepped, the lesson layout keeps its picture; its rule says
// where the focused loop waits.
func TestLessonPausedStep(t *testing.T) {
	checkGoroutines(t)
	hs := startBuiltin(t, "task-deadline-64", 2*time.Second, 80, 24)
	hs.frame()
	hs.press(runeEv(' '), runeEv('n'))
	var f *fakeSession
	hs.sh.app.QueueUpdate(func() { run, _, _, _ := hs.sh.v.(*liveView).r.current(); f = run.(*fakeSession) })
	f.feed(trace.Event{Time: 2500e6, Loop: 1, Kind: trace.KindPause, A: int64(trace.PhaseIO), Str: "step"})
	got := hs.frame()
	for _, want := range []string{"PAUSED · step", "worker-0 · concepts C13 C15 C16 C25 · ⏸ before io",
		"budget = ioTime 40µs × (100−50)/50 = 40µs", "64-task checks 0", "tail 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("the paused lesson layout lacks %q:\n%s", want, got)
		}
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// The budget line follows the loop design: the formula from the latest
// I/O time under an ioRatio, no budget at 100, the quantum under 4.2, and
// 4.1.44+'s runAllTasks(0) after a select that found nothing.
func TestLessonBudgetItems(t *testing.T) {
	loop := func(ioTime, keys int64) model.Loop {
		l := model.Loop{IOTime: ioTime, IOKeys: keys, Budget: 100e6}
		l.Iterations = 3
		return l
	}
	for _, tc := range []struct {
		in   detailInfo
		want string
	}{
		{detailInfo{loop: loop(67_000, 1), ioRatio: 50}, "ioRatio 50 budget = ioTime 67µs × (100−50)/50 = 67µs"},
		{detailInfo{loop: loop(30_000, 1), ioRatio: 10}, "ioRatio 10 budget = ioTime 30µs × (100−10)/10 = 270µs"},
		{detailInfo{loop: loop(30_000, 1), ioRatio: 100}, "ioRatio 100 budget none: runAllTasks() runs every task"},
		{detailInfo{loop: loop(30_000, 1), ioRatio: 50, netty: "4.2"}, "ioRatio none (4.2) budget = task quantum 100ms"},
		{detailInfo{loop: loop(30_000, 0), ioRatio: 50, netty: "4.1"}, "ioRatio 50 budget = 0: no keys, runAllTasks(0) stops at 64 tasks"},
		{detailInfo{loop: loop(30_000, 2), ioRatio: 50, netty: "4.1"}, "ioRatio 50 budget = ioTime 30µs × (100−50)/50 = 30µs"},
	} {
		var parts []string
		for _, it := range budgetItems(&lessonCtx{info: tc.in}) {
			parts = append(parts, it.label+" "+it.value)
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The layout follows the terminal until t picks one: the lesson layout
// below 100 columns or 30 rows, the timeline layout above; t from the
// lesson layout goes to the timeline, and the choice then holds.
func TestLessonLayoutFollowsTheSize(t *testing.T) {
	checkGoroutines(t)
	hs := startBuiltin(t, "io-ratio", 2*time.Second, 80, 24)
	isLesson := func(s string) bool {
		return strings.Contains(s, " · concepts ") && strings.Contains(s, "─ loops · ")
	}
	if got := hs.frame(); !isLesson(got) {
		t.Fatalf("80×24 is not the lesson layout:\n%s", got)
	}
	for _, size := range [][2]int{{99, 40}, {120, 29}} {
		hs.resize(size[0], size[1])
		if got := hs.frame(); !isLesson(got) {
			t.Errorf("%v is not the lesson layout:\n%s", size, got)
		}
	}
	hs.resize(100, 30)
	if got := hs.frame(); isLesson(got) {
		t.Errorf("100×30 is the lesson layout:\n%s", got)
	}
	hs.resize(80, 24)
	hs.frame()
	hs.press(runeEv('t'))
	if got := hs.frame(); !strings.Contains(got, "─ timeline") || isLesson(got) {
		t.Errorf("t from the lesson layout shows no timeline:\n%s", got)
	}
	hs.resize(80, 25)
	if got := hs.frame(); !strings.Contains(got, "─ timeline") || isLesson(got) {
		t.Errorf("a resize undid the layout picked with t:\n%s", got)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// C5 says how a default worker group got its size: workers: 0 made it
// 2 × the CPUs the process could use, here 2 × 3 = 6.
func TestLessonDefaultGroupSizeSaysHow(t *testing.T) {
	sc, err := scenarios.Load("lazy-start")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Workers != 0 {
		t.Fatalf("lazy-start has workers: %d, want the default 0", sc.Workers)
	}
	f := &model.Frame{}
	for i := range 6 {
		var r model.FrameLoop
		r.Name, r.Group = "worker-"+strconv.Itoa(i), scenarios.GroupWorker
		f.Rows = append(f.Rows, r)
	}
	got := lessonConcepts["C5"].words(&lessonCtx{f: f, sc: sc})
	if !strings.HasPrefix(got, "workers: 0, the default: 2 × 3 CPUs the process may use = 6 loops") {
		t.Errorf("C5 says %q", got)
	}
}

// The queue column names who fed the queue in whole parts, most first,
// and counts the producers that do not fit.
func TestProducersFitWholeParts(t *testing.T) {
	p := model.Producers{Outside: 2000, Self: 3, Loops: []model.ProducerCount{{Name: "boss-0", N: 32}}}
	for _, tc := range []struct {
		w    int
		want string
	}{
		{60, "outside 2000 · boss-0 32 · self 3"},
		{27, "outside 2000 · boss-0 32 +1"}, {26, "outside 2000 +2"},
		{17, "outside 2000 +2"},
		{5, "outside 2000 +2"},
	} {
		if got := producersFit(p, tc.w); got != tc.want {
			t.Errorf("in %d cells: %q, want %q", tc.w, got, tc.want)
		}
	}
}
