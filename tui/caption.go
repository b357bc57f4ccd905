package tui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// flashFor is how long, on the run clock, a loop's row flashes after a
// script action reached it, and how long the action's line stays lit.
const flashFor = 1500 * time.Millisecond

// captionView is what the caption lines say at one moment: the latest
// script action played, and the scenario's "watch" note for the time.
type captionView struct {
	action string // "t=1.0s: 50 000 tasks … submitted to worker-0 from outside; …"
	recent bool   // the action happened within flashFor
	watch  string
	points []scenarios.Point // the watch note's figures: a loop and the counter each reads
	// put is what the latest script actions put in loops' queues and
	// heaps, for the detail pane to point at.
	put []putMark
	// at is the run time the caption is for: the help fills the notes up
	// to it with the frame's figures, and leaves later ones unfilled.
	at time.Duration
}

// putMark names the tasks a script action put on a loop: queued tasks
// (heap false) or scheduled ones, by the name the engine gives them.
type putMark struct {
	loop int
	heap bool
	name string
}

// putBy is what one action put, by task name: sim's submitTasks and
// scheduleTasks name them so, and injected slow and panicking tasks too.
func putBy(a scenarios.Action) (name string, heap, ok bool) {
	switch a := a.(type) {
	case scenarios.Submit:
		return "task", false, !a.Tail
	case scenarios.Schedule:
		return scheduleName(a.Mode), true, true
	}
	return "", false, false
}

func scheduleName(m scenarios.ScheduleMode) string {
	switch m {
	case scenarios.ScheduleFixedRate:
		return "fixed-rate"
	case scenarios.ScheduleFixedDelay:
		return "fixed-delay"
	}
	return "timer"
}

// putMarks lists what the latest moment's actions put on loops.
func putMarks(fired []sim.Fired) []putMark {
	if len(fired) == 0 {
		return nil
	}
	var out []putMark
	for _, f := range fired[len(fired)-sameMoment(fired):] {
		name, heap, ok := putBy(f.Action)
		if !ok {
			continue
		}
		for _, li := range f.Loops {
			out = append(out, putMark{loop: li, heap: heap, name: name})
		}
	}
	return out
}

// marked reports whether the task named name on loop is one the latest
// action put there.
func (c captionView) marked(loop int, heap bool, name string) bool {
	for _, m := range c.put {
		if m.loop == loop && m.heap == heap && m.name == name {
			return true
		}
	}
	return false
}

// captionAt builds the caption of a scenario at run time now from the
// actions fired so far; the watch note's placeholders are filled from f,
// the frame on screen, so the caption says what the table shows.
func captionAt(sc *scenarios.Scenario, f *model.Frame, fired []sim.Fired, now time.Duration) captionView {
	c := captionView{at: now}
	if sc != nil {
		c.watch, c.points = watchAt(sc, frameValues(f), now)
	}
	if n := len(fired); n > 0 {
		// Every action of the latest moment, at the scenario's time for
		// it: the clock may have moved on while a big one was applied.
		last := fired[n-1]
		var what []string
		for _, f := range fired[n-sameMoment(fired):] {
			what = append(what, scenarios.Describe(f.Action))
		}
		c.action = "t=" + seconds(last.Action.Time()) + ": " + strings.Join(what, "; ")
		c.recent = now-last.At < flashFor
		c.put = putMarks(fired)
	}
	return c
}

// sameMoment counts the latest actions that fired at the same scenario
// time as the last one: a timeline often does two things at once.
func sameMoment(fired []sim.Fired) int {
	at := fired[len(fired)-1].Action.Time()
	k := 0
	for i := len(fired) - 1; i >= 0 && fired[i].Action.Time() == at; i-- {
		k++
	}
	return k
}

// watchAt is the scenario's note for run time t: every caption that shares
// the latest start time not after t, in order, since a scenario may give
// several notes for the same moment, each filled from r.
func watchAt(sc *scenarios.Scenario, r scenarios.Resolver, t time.Duration) (string, []scenarios.Point) {
	var parts []string
	var talks []scenarios.Point
	var names []string
	if r != nil {
		names = r.Loops()
	}
	var at time.Duration
	for _, c := range sc.Watch {
		if c.At > t {
			break
		}
		if len(parts) > 0 && c.At != at {
			parts, talks = parts[:0], talks[:0]
		}
		at = c.At
		parts = append(parts, c.Render(r, sc))
		talks = append(talks, c.Points(names)...)
	}
	return strings.Join(parts, " "), talks
}

// markWatched marks the rows of the loops the caption talks about: those
// its figures are of.
func markWatched(f *model.Frame, c captionView) {
	for i := range f.Rows {
		f.Rows[i].Watched = slices.ContainsFunc(c.points, func(p scenarios.Point) bool { return p.Loop == f.Rows[i].Name })
	}
}

// frameValues reads a frame's figures by their expectation paths, for a
// caption's placeholders: each loop's counters, state and thread id (the
// same fold, or the same live counters, the table shows), and each group's
// size and chooser. Nil without a frame.
func frameValues(f *model.Frame) scenarios.Resolver {
	if f == nil {
		return nil
	}
	return frameResolver{f}
}

type frameResolver struct{ f *model.Frame }

// Loops implements scenarios.Resolver.
func (r frameResolver) Loops() []string {
	out := make([]string, 0, len(r.f.Rows))
	for _, l := range r.f.Rows {
		out = append(out, l.Name)
	}
	return out
}

// Lookup implements scenarios.Resolver.
func (r frameResolver) Lookup(path string) (scenarios.Value, bool) {
	if rest, ok := strings.CutPrefix(path, "groups."); ok {
		return r.group(rest)
	}
	name, key, ok := strings.Cut(path, ".")
	if !ok {
		return scenarios.Value{}, false
	}
	for i := range r.f.Rows {
		l := &r.f.Rows[i]
		if l.Name != name {
			continue
		}
		switch key {
		case "name":
			return scenarios.StringValue(l.Name), true
		case "group":
			return scenarios.StringValue(l.Group), true
		case "tid":
			return scenarios.IntValue(l.TID), true
		case "state":
			return scenarios.StringValue(l.State.String()), true
		}
		c, ok := counters.Lookup(key)
		if !ok {
			return scenarios.Value{}, false
		}
		return scenarios.IntValue(c.Get(&l.Stats)), true
	}
	return scenarios.Value{}, false
}

// group answers groups.NAME.size and groups.NAME.chooser from the rows:
// a group of a power-of-two size gets Netty's bit-mask chooser.
func (r frameResolver) group(rest string) (scenarios.Value, bool) {
	g, key, _ := strings.Cut(rest, ".")
	n := groupSize(r.f, g)
	if n == 0 {
		return scenarios.Value{}, false
	}
	switch key {
	case "size":
		return scenarios.IntValue(int64(n)), true
	case "chooser":
		if n&(n-1) == 0 {
			return scenarios.StringValue(scenarios.ChooserPowerOfTwo), true
		}
		return scenarios.StringValue(scenarios.ChooserGeneric), true
	}
	return scenarios.Value{}, false
}

// seconds formats a run-clock time as "12.3s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// flashLoops marks the rows of the loops a script action reached within
// flashFor of now. A breakpoint's row is marked by the frame itself.
func flashLoops(f *model.Frame, fired []sim.Fired, now time.Duration) {
	for i := len(fired) - 1; i >= 0 && now-fired[i].At < flashFor; i-- {
		for _, li := range fired[i].Loops {
			for ri := range f.Rows {
				if f.Rows[ri].Index == li {
					f.Rows[ri].Flash = true
				}
			}
		}
	}
}

// captionFit is how a caption uses its rows: whether the action line is
// shown, and the rows of the watch note.
type captionFit struct {
	action bool
	watch  int
	// actionRows is the rows of the action line, wrapped: an action that
	// names many tasks or a long fault reads whole.
	actionRows int
}

func (f captionFit) rows() int {
	if f.action {
		return max(f.actionRows, 1) + f.watch
	}
	return f.watch
}

// maxActionRows bounds the action's lines; they hold every action of a
// script seen so far.
const maxActionRows = 3

// actionLines wraps the action after its mark.
func actionLines(action string, w int) []string {
	lines := widgets.Wrap(action, max(w-2, 1))
	return lines[:min(len(lines), maxActionRows)]
}

// lessonWatchRows is the most rows the lesson layout gives the watch note
// before it pages.
const lessonWatchRows = 4

// fitCaption lays out a caption on a screen w × h. Normally it takes what
// its text needs, up to two rows on a small terminal, three on a middling
// and four on a tall one, none when there is nothing to say; on two rows
// or fewer an old action gives its row to the note. The lesson layout
// (lesson ≥ 0) gives the note first claim: four rows of its own, more when
// the body leaves lesson rows spare, the action a row above it only while
// it is recent.
func fitCaption(c captionView, w, h, lesson int) captionFit {
	fit := fitCaptionRows(c, w, h, lesson)
	if fit.action {
		fit.actionRows = len(actionLines(c.action, w))
	}
	return fit
}

func fitCaptionRows(c captionView, w, h, lesson int) captionFit {
	lines := 0
	if c.watch != "" {
		lines = len(widgets.Wrap(c.watch, max(w-len(watchLabel), 1)))
	}
	if lesson >= 0 {
		fit := captionFit{action: c.action != "" && (c.recent || c.watch == "")}
		spare := lesson
		if fit.action {
			spare--
		}
		fit.watch = min(lines, max(lessonWatchRows, spare))
		return fit
	}
	need := lines
	if c.action != "" {
		need++
	}
	limit := 4
	switch {
	case h < 30:
		limit = 2
	case h < 38:
		limit = 3
	}
	rows := min(need, limit)
	fit := captionFit{action: c.action != "" && (rows > 2 || c.recent || c.watch == "")}
	if fit.action && rows > 0 {
		rows--
	} else {
		fit.action = false
	}
	if c.watch != "" {
		fit.watch = rows
	}
	return fit
}

// watchLabel leads the watch note.
const watchLabel = "watch: "

// pageFor is how long each page of a caption too long for its rows stays
// on screen before the next one: long enough to read a line or two.
const pageFor = 4 * time.Second

// captionClock is the wall clock the pages of a long caption turn by;
// tests pin it.
var captionClock = time.Now

// captionPager turns the pages of a watch note too long for its rows:
// every pageFor of wall time while the screen moves, never on its own
// while it stands still (a paused run, a finished one, a stopped replay),
// so a stopped picture stays as it was; w turns a page by hand.
type captionPager struct {
	page   int
	since  time.Time
	moving bool // set by the screen before each draw
}

// pick returns the page of pages to show now.
func (p *captionPager) pick(pages int) int {
	now := captionClock()
	if p.since.IsZero() {
		p.since = now
	}
	if p.moving && now.Sub(p.since) >= pageFor {
		p.page, p.since = p.page+1, now
	}
	return p.page % pages
}

// turn shows the next page, for pageFor before the pages turn on their own.
func (p *captionPager) turn() { p.page, p.since = p.page+1, captionClock() }

// drawCaption draws the caption as fit lays it out at (x, y): the latest
// action first, lit while recent, then the watch note wrapped into its
// rows. A note is wrapped at word boundaries, never cut: one longer than
// its rows is shown a page at a time, each page marked with its number.
func drawCaption(scr tcell.Screen, th *widgets.Theme, c captionView, fit captionFit, pg *captionPager, x, y, w int) {
	rows := fit.rows()
	widgets.Clear(scr, x, y, w, rows, th.Base)
	if rows <= 0 {
		return
	}
	actSt := th.Dim
	if c.recent {
		actSt = th.Warn
	}
	line := 0
	if fit.action {
		for i, l := range actionLines(c.action, w)[:max(fit.actionRows, 1)] {
			lead := widgets.S("  ", th.Base)
			if i == 0 {
				lead = widgets.S("▸ ", th.Accent)
			}
			widgets.PutSegs(scr, x, y+line, w, []widgets.Seg{lead, widgets.S(l, actSt)})
			line++
		}
	}
	if c.watch == "" || fit.watch <= 0 {
		return
	}
	lines, mark := watchPage(c.watch, w-len(watchLabel), fit.watch, pg.pick)
	for i, text := range lines {
		lead := widgets.S(strings.Repeat(" ", len(watchLabel)), th.Base)
		if i == 0 {
			lead = widgets.S(watchLabel, th.Title)
		}
		segs := []widgets.Seg{lead, widgets.S(text, th.Base)}
		if i == len(lines)-1 && mark != "" {
			segs = append(segs, widgets.S(" "+mark, th.Dim))
		}
		widgets.PutSegs(scr, x, y+line+i, w, segs)
	}
}

// watchPage wraps a note into lines of width w and returns the page of
// rows lines that pick chooses, with its mark ("1/3 w": w turns it) when
// the note takes more than one page. A paged note is wrapped narrower, so
// the mark fits after the last line of a page, and its pages break
// between sentences: each holds the sentences that fit whole. A sentence
// longer than a page is the only one split, and a page that goes on with
// it opens with "…", so no page starts mid-sentence unmarked.
func watchPage(note string, w, rows int, pick func(pages int) int) ([]string, string) {
	lines := widgets.Wrap(note, max(w, 1))
	if len(lines) <= rows {
		return lines, ""
	}
	pages := notePages(note, max(w-len(" 9/9 w"), 1), rows)
	page := pick(len(pages))
	return pages[page], strconv.Itoa(page+1) + "/" + strconv.Itoa(len(pages)) + " w"
}

// continued leads a page that goes on with the previous page's sentence.
const continued = "… "

// notePages packs a note's sentences into pages of rows lines of w cells.
func notePages(note string, w, rows int) [][]string {
	rows = max(rows, 1)
	var pages [][]string
	var page []string // the sentences of the page being filled
	flush := func() {
		if len(page) > 0 {
			pages = append(pages, widgets.Wrap(strings.Join(page, " "), w))
			page = nil
		}
	}
	for _, s := range sentences(note) {
		if len(widgets.Wrap(strings.Join(append(page, s), " "), w)) <= rows {
			page = append(page, s)
			continue
		}
		flush()
		if len(widgets.Wrap(s, w)) <= rows {
			page = append(page, s)
			continue
		}
		// A sentence longer than a page: a page of its lines at a time,
		// each page after the first marked as going on.
		text := s
		for {
			lines := widgets.Wrap(text, w)
			if len(lines) <= rows {
				page = []string{text}
				break
			}
			pages = append(pages, lines[:rows])
			text = continued + strings.Join(strings.Fields(strings.Join(lines[rows:], " ")), " ")
		}
	}
	flush()
	return pages
}

// sentences splits a note after each full stop, question or exclamation
// mark (a closing bracket or quote may follow it) that ends a word, not
// an abbreviation or a number such as 4.1.43.
func sentences(note string) []string {
	words := strings.Fields(note)
	var out []string
	start := 0
	for i, wd := range words {
		end := strings.TrimRight(wd, ")\"'’”")
		if i == len(words)-1 || !strings.HasSuffix(end, ".") && !strings.HasSuffix(end, "?") && !strings.HasSuffix(end, "!") {
			continue
		}
		switch strings.ToLower(end) {
		case "e.g.", "i.e.", "vs.", "etc.", "cf.":
			continue
		}
		out = append(out, strings.Join(words[start:i+1], " "))
		start = i + 1
	}
	if start < len(words) {
		out = append(out, strings.Join(words[start:], " "))
	}
	return out
}

// recordedScenario is the built-in scenario a trace header names, for a
// replay's captions, configured as the header says the run was (its model,
// group sizes and loop settings), so the captions pick the claims of the
// run recorded; nil when the trace names none or one not built in (a file
// of the same name may have changed since, or be elsewhere).
func recordedScenario(hdr jsonl.Header) *scenarios.Scenario {
	if _, ok := scenarios.BuiltinSource(hdr.Scenario); !ok {
		return nil
	}
	sc, err := scenarios.Load(hdr.Scenario)
	if err != nil {
		return nil
	}
	// The expectations say what the file's own configuration does; a
	// replay checks none, and they would refuse another model.
	if err := sc.Set("expect", "[]"); err != nil {
		return sc
	}
	for _, kv := range recordedSets(hdr) {
		if kv[0] == "workers" && sc.Workers == 0 {
			continue // 2 × CPU cores, on the machine that recorded it
		}
		_ = sc.Set(kv[0], kv[1]) // a setting this build refuses keeps the file's
	}
	return sc
}

// headerKeys maps the words of a trace header's Config to --set keys.
var headerKeys = map[string]string{
	"io_ratio": "loop.io_ratio", "rebuild_threshold": "loop.rebuild_threshold",
	"selector": "loop.selector", "trigger": "loop.trigger", "netty": "netty",
	"reuseport": "server.reuseport",
}

// recordedSets are the overrides that make a built-in what a header says
// was run: its model, the size of each group from the loop table, and the
// loop settings of its Config.
func recordedSets(hdr jsonl.Header) [][2]string {
	var out [][2]string
	if hdr.Model != "" {
		out = append(out, [2]string{"model", hdr.Model})
	}
	sizes := map[string]int{}
	for _, l := range hdr.Loops {
		sizes[l.Group]++
	}
	for _, g := range []struct{ group, key string }{{scenarios.GroupBoss, "bosses"}, {scenarios.GroupWorker, "workers"}} {
		if n := sizes[g.group]; n > 0 {
			out = append(out, [2]string{g.key, strconv.Itoa(n)})
		}
	}
	for _, w := range strings.Fields(hdr.Config) {
		if k, v, ok := strings.Cut(w, "="); ok && headerKeys[k] != "" {
			out = append(out, [2]string{headerKeys[k], v})
		}
	}
	return out
}
