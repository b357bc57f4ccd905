package widgets

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
	"github.com/reactorviz/reactorviz/tui/model"
)

func TestSparkline(t *testing.T) {
	tests := []struct {
		vals  []int64
		width int
		want  string
	}{
		{vals: nil, width: 4, want: "    "},
		{vals: []int64{0, 1, 2, 4, 8}, width: 5, want: " ▁▂▄█"},
		{vals: []int64{8, 8, 8}, width: 2, want: "██"},
		{vals: []int64{1, 2, 1}, width: 3, want: "▁▂▁"}, // below the floor: one block a unit
		{vals: []int64{0, 50, 100}, width: 3, want: " ▄█"},
		{vals: []int64{3}, width: 0, want: ""},
	}
	for _, tc := range tests {
		if got := Sparkline(tc.vals, tc.width); got != tc.want {
			t.Errorf("Sparkline(%v, %d) = %q, want %q", tc.vals, tc.width, got, tc.want)
		}
	}
}

func TestTextHelpers(t *testing.T) {
	if got := Cut("processSelectedKeys", 8); got != "process…" {
		t.Errorf("Cut = %q", got)
	}
	if got := Pad("ab", 4); got != "ab  " {
		t.Errorf("Pad = %q", got)
	}
	if got := PadLeft("ab", 4); got != "  ab" {
		t.Errorf("PadLeft = %q", got)
	}
	if got := Width("µs·"); got != 3 {
		t.Errorf("Width = %d", got)
	}
	lines := Wrap("select returns on ready keys, a wakeup, pending tasks", 16)
	for _, l := range lines {
		if Width(l) > 16 {
			t.Errorf("wrapped line %q is wider than 16", l)
		}
	}
	if strings.Join(lines, " ") != "select returns on ready keys, a wakeup, pending tasks" {
		t.Errorf("Wrap lost words: %q", lines)
	}
	if got := Wrap("abcdefghij", 1); len(got) == 0 {
		t.Error("Wrap of a long word at width 1 returned nothing")
	}
}

// TestPutNeverPrintsControls checks that text from a trace cannot move the
// cursor or spill past its width.
func TestPutNeverPrintsControls(t *testing.T) {
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(10, 1)
	n := Put(scr, 0, 0, 6, "a\x1b[2J\tb界c", tcell.StyleDefault)
	scr.Show()
	cells, _, _ := scr.GetContents()
	var got strings.Builder
	for _, c := range cells {
		if len(c.Runes) > 0 {
			got.WriteString(string(c.Runes))
		}
	}
	if n != 6 || !strings.HasPrefix(got.String(), "a?[2J?") {
		t.Errorf("Put used %d cells and drew %q", n, got.String())
	}
}

func TestPhaseSegsMarkTheLitPhase(t *testing.T) {
	th := NewTheme(true)
	text := func(p trace.Phase) string {
		var b strings.Builder
		for _, s := range PhaseSegs(p, false, th) {
			b.WriteString(s.Text)
		}
		return b.String()
	}
	for p, want := range map[trace.Phase]string{
		trace.PhaseSelect: "SEL›io›tsk", trace.PhaseIO: "sel›IO›tsk",
		trace.PhaseTasks: "sel›io›TSK", trace.PhaseNone: "sel›io›tsk",
	} {
		if got := text(p); got != want {
			t.Errorf("phase %v: %q, want %q", p, got, want)
		}
	}
}

func TestRingCellsGoRound(t *testing.T) {
	cells := ringCells(6, 4)
	if len(cells) != 2*(6+4)-4 {
		t.Fatalf("%d cells on a 6×4 ring", len(cells))
	}
	seen := map[[2]int]bool{}
	for _, c := range cells {
		if seen[c] {
			t.Errorf("cell %v twice", c)
		}
		seen[c] = true
		if c[0] != 0 && c[0] != 5 && c[1] != 0 && c[1] != 3 {
			t.Errorf("cell %v is not on the border", c)
		}
	}
}

func TestCheckMenu(t *testing.T) {
	m := NewCheckMenu(NewTheme(true), "t", "", []MenuItem{{Label: "a"}, {Label: "n", Numeric: true}})
	press := func(k tcell.Key, r rune) { m.HandleKey(tcell.NewEventKey(k, r, tcell.ModNone)) }
	press(tcell.KeyRune, ' ')
	press(tcell.KeyDown, 0)
	press(tcell.KeyRune, '1')
	press(tcell.KeyRune, '2')
	press(tcell.KeyRight, 0)
	items := m.Items()
	if !items[0].On || items[1].Value != 16 {
		t.Errorf("items = %+v", items)
	}
	press(tcell.KeyLeft, 0)
	press(tcell.KeyLeft, 0)
	press(tcell.KeyBackspace2, 0)
	if got := m.Items()[1].Value; got != 0 {
		t.Errorf("value after left, left, backspace = %d", got)
	}
}

func TestHintSegsFit(t *testing.T) {
	hints := []Hint{{"?", "help"}, {"q", "quit"}, {"space", "pause/run"}}
	text := func(w int) string {
		var b strings.Builder
		for _, s := range HintSegs(hints, w, NewTheme(true)) {
			b.WriteString(s.Text)
		}
		return b.String()
	}
	if got := text(28); got != " ? help  q quit  …? all keys" {
		t.Errorf("hints in 28 cells: %q", got)
	}
	if got := text(33); got != " ? help  q quit  space pause/run " {
		t.Errorf("hints in 33 cells: %q", got)
	}
}

// TestIterationRingLightsOnePhase checks that only the current phase's marker
// and name take the lit style: the ring once lit every phase's marker cell.
func TestIterationRingLightsOnePhase(t *testing.T) {
	th := NewTheme(false)
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(70, 2)
	r := NewIterationRing(th)
	r.SetRect(0, 0, 70, 2)
	r.SetBorder(false)
	r.Set(trace.PhaseIO, false)
	r.Draw(scr)
	scr.Show()
	cells, w, _ := scr.GetContents()
	var lit strings.Builder
	for _, c := range cells[:w] {
		if c.Style == th.Lit {
			lit.WriteString(string(c.Runes))
		}
	}
	if got := lit.String(); got != "●processSelectedKeys" {
		t.Errorf("lit cells read %q, want only the current phase", got)
	}
}

// TestFocusedRowKeepsTheLitPhase checks that the focused row's background
// does not wash out a style that has its own (the lit phase).
func TestFocusedRowKeepsTheLitPhase(t *testing.T) {
	th := NewTheme(false)
	if got := th.Row(th.Lit, true); got != th.Lit {
		t.Errorf("Row(Lit, focused) = %v, want the lit style unchanged", got)
	}
	_, sel, _ := th.Selected.Decompose()
	if _, bg, _ := th.Row(th.Base, true).Decompose(); bg != sel {
		t.Errorf("Row(Base, focused) background %v, want %v", bg, sel)
	}
}

// The time bar stacks tasks, I/O and select in the timeline's glyphs.
func TestSplitBar(t *testing.T) {
	var text string
	for _, sg := range splitBar(model.TimeSplit{Known: true, Select: 50, IO: 17, Tasks: 33}, 6, NewTheme(true)) {
		text += sg.Text
	}
	if text != "██▒···" {
		t.Errorf("bar %q, want %q", text, "██▒···")
	}
}

// A lane says when its loop dropped events, and marks read without
// colour: each mark and phase is its own glyph.
func TestTimelineLaneGlyphs(t *testing.T) {
	scr := tcell.NewSimulationScreen("")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(40, 3)
	tl := NewTimeline(NewTheme(true))
	cells := []model.Cell{
		{Known: true, Select: 9}, {Known: true, IO: 9}, {Known: true, Tasks: 9},
		{Known: true, Tasks: 9, Marks: phases.MarkCut}, {Known: true, Marks: phases.MarkWakeup | phases.MarkPanic},
	}
	// How busy a column was, of its width: 26 % of tasks is a quarter
	// high, 82 % not full; 26 % of I/O a light shade; 3 % reads idle. A
	// rare mark wins over a common one; parked is its own glyph.
	cells = append(cells,
		model.Cell{Known: true, Width: 100, Tasks: 26, Select: 74},
		model.Cell{Known: true, Width: 100, Tasks: 82, Select: 18},
		model.Cell{Known: true, Width: 100, IO: 26, Select: 74},
		model.Cell{Known: true, Width: 100, IO: 3, Select: 97},
		model.Cell{Known: true, Width: 100, Tasks: 90, Marks: phases.MarkCut | phases.MarkWakeup},
		model.Cell{Known: true, Width: 100, Select: 10, Parked: 90},
		model.Cell{Known: true, Width: 100})
	tl.Set([]Seg{S("timeline", tcell.StyleDefault)}, []TimelineLane{
		{Name: "worker-0", Focus: true, Lane: model.Lane{Cells: cells}},
		{Name: "worker-1", Lane: model.Lane{Cells: cells, Drops: true}},
	})
	tl.SetRect(0, 0, 40, 3)
	tl.Draw(scr)
	scr.Show()
	shown, w, _ := scr.GetContents()
	row := func(y int) string {
		var b strings.Builder
		for _, c := range shown[y*w : (y+1)*w] {
			b.WriteString(string(c.Runes))
		}
		return b.String()
	}
	if got := row(1); !strings.HasPrefix(got, "▶worker-0") || !strings.HasSuffix(got, "·▓█C!▂▇░·w‖ ") {
		t.Errorf("lane %q", got)
	}
	if got := row(2); !strings.Contains(got, "drops›") {
		t.Errorf("lane with drops %q", got)
	}
}

// Only what is wrong takes the alarm colour: a panic, a rebuild, a
// premature return, a drop; a wakeup, a cut, an over-budget task and a
// loop's end are the loop working as designed.
func TestOnlyWrongMarksTakeTheAlarmColour(t *testing.T) {
	th := NewTheme(false)
	tl := &Timeline{th: th}
	for _, g := range markGlyphs {
		r, st := tl.glyph(model.Cell{Known: true, Width: 10, Marks: g.m})
		wrong := g.m&(phases.MarkPanic|phases.MarkRebuild|phases.MarkPremature|phases.MarkDrop) != 0
		if r != g.r || (st == th.Bad) != wrong {
			t.Errorf("%s: glyph %q, alarm colour %v; want %q, %v", g.name, r, st == th.Bad, g.r, wrong)
		}
	}
}

// A bar whose left part would be cut draws its short content instead,
// and keeps the full one while it fits.
func TestBarDrawsItsShortContentRatherThanCut(t *testing.T) {
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	row := func(w int) string {
		scr.SetSize(w, 1)
		b := NewBar(NewTheme(true), tcell.StyleDefault)
		b.Set([]Seg{S("lesson 9: The epoll bug and the selector rebuild", tcell.StyleDefault)}, []Seg{S("name", tcell.StyleDefault)})
		b.SetShorter([]Seg{S("lesson 9: The epoll bug and the", tcell.StyleDefault)}, []Seg{S("lesson 9: The epoll bug", tcell.StyleDefault)})
		b.SetRect(0, 0, w, 1)
		scr.Clear()
		b.Draw(scr)
		scr.Show()
		cells, cw, _ := scr.GetContents()
		var sb strings.Builder
		for _, c := range cells[:cw] {
			sb.WriteString(string(c.Runes))
		}
		return strings.TrimRight(sb.String(), " ")
	}
	if got := row(100); !strings.HasPrefix(got, "lesson 9: The epoll bug and the selector rebuild") || !strings.HasSuffix(got, "name") {
		t.Errorf("wide: %q", got)
	}
	if got := row(40); got != "lesson 9: The epoll bug and the" {
		t.Errorf("narrow: %q", got)
	}
	if got := row(25); got != "lesson 9: The epoll bug" {
		t.Errorf("narrower: %q", got)
	}
}
