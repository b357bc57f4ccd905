package widgets

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tui/model"
)

// EventLog shows the latest events under a titled rule, newest at the
// bottom, one per row: time, loop, kind and fields.
type EventLog struct {
	*tview.Box
	th    *Theme
	title []Seg
	lines []model.LogLine
	empty string
	mark  func(*model.LogLine) bool
}

// NewEventLog returns an empty log pane.
func NewEventLog(th *Theme) *EventLog { return &EventLog{Box: tview.NewBox(), th: th} }

// Set replaces the lines; empty is shown when there are none.
func (g *EventLog) Set(title []Seg, lines []model.LogLine, empty string) {
	g.title, g.lines, g.empty = title, lines, empty
}

// SetMark sets which lines the caption talks about, nil for none: they
// are led by ▸ and their event underlined.
func (g *EventLog) SetMark(mark func(*model.LogLine) bool) { g.mark = mark }

// SetTitle replaces the title only.
func (g *EventLog) SetTitle(title []Seg) { g.title = title }

// Rows returns how many lines fit, for the caller's query.
func (g *EventLog) Rows() int {
	_, _, _, h := g.GetInnerRect()
	return max(h-1, 0)
}

// Draw implements tview.Primitive.
func (g *EventLog) Draw(scr tcell.Screen) {
	clearBox(g.Box, scr)
	x, y, w, h := g.GetInnerRect()
	if h <= 0 {
		return
	}
	Rule(scr, x, y, w, g.title, g.th)
	y, h = y+1, h-1
	if len(g.lines) == 0 && h > 0 {
		Put(scr, x+1, y, w-1, g.empty, g.th.Dim)
		return
	}
	nameW := 8
	for _, l := range g.lines {
		nameW = max(nameW, min(Width(l.Loop), 12))
	}
	// Each event takes the rows its text needs: what does not fit the
	// width goes on under its description, so no reason is cut. The
	// newest events fill the pane from the bottom; the oldest one shown
	// may lose its last rows to the top of the pane.
	var rows [][]Seg
	for i := len(g.lines) - 1; i >= 0 && len(rows) < h; i-- {
		r := g.eventRows(&g.lines[i], w, nameW)
		r = r[:min(len(r), h-len(rows))]
		rows = append(r, rows...)
	}
	for i, r := range rows {
		PutSegs(scr, x, y+i, w, r)
	}
}

// eventRows lays one event out in rows of w cells: the mark, the time
// and the loop, then its description, reason and repeat count, wrapped
// at words under the description's first column.
func (g *EventLog) eventRows(l *model.LogLine, w, nameW int) [][]Seg {
	e := l.Event
	lead, kind := S(" ", g.th.Dim), KindStyle(e.Kind, e.Flag, g.th)
	if g.mark != nil && g.mark(l) {
		lead, kind = S("▸", g.th.Accent), kind.Underline(true)
	}
	head := []Seg{lead, S(model.Clock(e.Time)+" ", g.th.Dim), S(Pad(l.Loop, nameW)+" ", g.th.Accent)}
	body := []Seg{S(model.Describe(&e), kind)}
	if l.Why != "" {
		// A reason reads back to its event (← a select's why); a
		// destination reads on from it (→ where a channel went).
		lead := "  ← "
		if strings.HasPrefix(l.Why, "→") {
			lead = "  "
		}
		body = append(body, S(lead+l.Why, g.th.Dim))
	}
	if l.Repeat > 0 {
		// A run of periodic events folded into its latest one.
		body = append(body, S("  ×"+model.Count(int64(l.Repeat+1))+" in a row, the latest shown", g.th.Dim))
	}
	indent := SegsWidth(head)
	if SegsWidth(head)+SegsWidth(body) <= w || w-indent < 20 {
		return [][]Seg{append(head, body...)}
	}
	var rows [][]Seg
	row, used := head, indent
	for _, sg := range body {
		gap := strings.Repeat(" ", len(sg.Text)-len(strings.TrimLeft(sg.Text, " ")))
		for j, word := range strings.Fields(sg.Text) {
			text := word
			switch {
			case j == 0 && gap != "":
				text = gap + word
			case j > 0:
				text = " " + word
			}
			if used+Width(text) > w && used > indent {
				rows = append(rows, row)
				row, used = []Seg{S(strings.Repeat(" ", indent), g.th.Base)}, indent
				text = word
			}
			row, used = append(row, S(text, sg.Style)), used+Width(text)
		}
	}
	return append(rows, row)
}

// KindStyle picks how an event kind stands out in the log: rebuilds and
// panics loudly, pauses and premature selects as warnings.
func KindStyle(k trace.Kind, flag bool, th *Theme) tcell.Style {
	switch k {
	case trace.KindRebuildBegin, trace.KindRebuildEnd, trace.KindTaskPanic, trace.KindException,
		trace.KindDrop, trace.KindTaskReject, trace.KindInject:
		return th.Bad
	case trace.KindPause, trace.KindResume:
		return th.Warn
	case trace.KindSelectEnd, trace.KindDeadlineCheck, trace.KindTasksEnd:
		if flag {
			return th.Warn
		}
	case trace.KindWakeup:
		return th.Accent
	case trace.KindState:
		return th.Good
	}
	return th.Base
}

// Bar is a one-row strip: segments on the left, segments on the right.
type Bar struct {
	*tview.Box
	th          *Theme
	style       tcell.Style
	left, right []Seg
	// shorter are what to draw instead, alone, when left does not fit
	// beside right: a screen's shorter wordings, longest first, so no
	// word is cut while one fits.
	shorter [][]Seg
}

// NewBar returns an empty bar drawn in style.
func NewBar(th *Theme, style tcell.Style) *Bar {
	return &Bar{Box: tview.NewBox(), th: th, style: style}
}

// Set replaces the bar's content.
func (b *Bar) Set(left, right []Seg) { b.left, b.right, b.shorter = left, right, nil }

// SetShorter gives the bar shorter wordings, longest first, drawn without
// the right part when Set's left part would be cut: the first that fits,
// or the last.
func (b *Bar) SetShorter(alts ...[]Seg) { b.shorter = alts }

// Draw implements tview.Primitive. The right part is kept whole while the
// left one keeps at least half the row; the left one is cut to fit.
func (b *Bar) Draw(scr tcell.Screen) {
	clearBox(b.Box, scr)
	x, y, w, h := b.GetInnerRect()
	if h <= 0 {
		return
	}
	Fill(scr, x, y, w, ' ', b.style)
	left, right := b.left, b.right
	if SegsWidth(left) > leftWidth(w, SegsWidth(right)) {
		for _, alt := range b.shorter {
			left, right = alt, nil
			if SegsWidth(alt) <= w {
				break
			}
		}
	}
	rw := SegsWidth(right)
	lw := leftWidth(w, rw)
	if lw < w {
		PutSegs(scr, x+w-rw, y, rw, right)
	}
	PutSegs(scr, x, y, lw, left)
}

// leftWidth is the room a bar w wide leaves its left part beside a right
// part rw wide, which is drawn only while it takes at most half the row.
func leftWidth(w, rw int) int {
	if rw > 0 && rw+1 <= w/2 {
		return w - rw - 1
	}
	return w
}

// Hint is a key and what it does, for the footer.
type Hint struct {
	Key  string
	Desc string
}

// moreKeys ends a footer too narrow for every hint: the help lists them all.
const moreKeys = " …? all keys"

// HintSegs lays out as many hints as fit in w cells, in order. The caller
// lists the most useful first. When some do not fit, the row ends with a
// pointer to the help, so every key stays reachable.
func HintSegs(hints []Hint, w int, th *Theme) []Seg {
	width := func(h Hint) int { return Width(h.Key) + 1 + Width(h.Desc) + 2 }
	total := 0
	for _, h := range hints {
		total += width(h)
	}
	room := w
	if total > w {
		room = w - Width(moreKeys)
	}
	var segs []Seg
	used := 0
	for _, h := range hints {
		n := width(h)
		if used+n > room {
			segs = append(segs, S(moreKeys, th.Key))
			break
		}
		segs = append(segs, S(" "+h.Key, th.Key), S(" "+h.Desc+" ", th.Dim))
		used += n
	}
	return segs
}

// MenuItem is one line of a CheckMenu: a toggle, or a number when Numeric.
type MenuItem struct {
	Key     int // what the item stands for, for its owner to read it back
	Label   string
	On      bool
	Numeric bool
	Value   int // Numeric: 0 is off
}

// CheckMenu is a small modal checklist (the breakpoint menu). It draws
// itself as a framed box centred in its rectangle.
type CheckMenu struct {
	*tview.Box
	th     *Theme
	title  string
	help   string
	items  []MenuItem
	cursor int
}

// NewCheckMenu returns a menu of items.
func NewCheckMenu(th *Theme, title, help string, items []MenuItem) *CheckMenu {
	return &CheckMenu{Box: tview.NewBox(), th: th, title: title, help: help, items: items}
}

// Items returns the items as edited.
func (m *CheckMenu) Items() []MenuItem { return append([]MenuItem(nil), m.items...) }

// SetItems replaces the items, keeping the cursor in range.
func (m *CheckMenu) SetItems(items []MenuItem) {
	m.items = items
	m.cursor = min(m.cursor, max(len(items)-1, 0))
}

// numericSteps are the values a numeric item cycles through with +/-.
var numericSteps = []int{0, 1, 4, 16, 64, 256, 1024, 4096, 16384}

// HandleKey edits the menu. It reports whether an item changed.
func (m *CheckMenu) HandleKey(ev *tcell.EventKey) bool {
	if len(m.items) == 0 {
		return false
	}
	it := &m.items[m.cursor]
	switch ev.Key() {
	case tcell.KeyUp:
		m.cursor = (m.cursor + len(m.items) - 1) % len(m.items)
	case tcell.KeyDown, tcell.KeyTab:
		m.cursor = (m.cursor + 1) % len(m.items)
	case tcell.KeyEnter:
		return m.toggle(it)
	case tcell.KeyLeft:
		return m.step(it, -1)
	case tcell.KeyRight:
		return m.step(it, +1)
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if it.Numeric {
			it.Value /= 10
			return true
		}
	case tcell.KeyRune:
		r := ev.Rune()
		switch {
		case r == 'k':
			m.cursor = (m.cursor + len(m.items) - 1) % len(m.items)
		case r == 'j':
			m.cursor = (m.cursor + 1) % len(m.items)
		case r == ' ' || r == 'x':
			return m.toggle(it)
		case r == '-':
			return m.step(it, -1)
		case r == '+' || r == '=':
			return m.step(it, +1)
		case it.Numeric && r >= '0' && r <= '9':
			if it.Value < 1_000_000 {
				it.Value = it.Value*10 + int(r-'0')
			}
			return true
		}
	}
	return false
}

func (m *CheckMenu) toggle(it *MenuItem) bool {
	if it.Numeric {
		if it.Value > 0 {
			it.Value = 0
		} else {
			it.Value = 64
		}
		return true
	}
	it.On = !it.On
	return true
}

func (m *CheckMenu) step(it *MenuItem, dir int) bool {
	if !it.Numeric {
		return false
	}
	i := 0
	for i < len(numericSteps) && numericSteps[i] < it.Value {
		i++
	}
	switch {
	case dir > 0 && i < len(numericSteps) && numericSteps[i] == it.Value:
		i++
	case dir < 0:
		i--
	}
	it.Value = numericSteps[min(max(i, 0), len(numericSteps)-1)]
	return true
}

// Draw implements tview.Primitive.
func (m *CheckMenu) Draw(scr tcell.Screen) {
	x, y, w, h := m.GetRect()
	bw := min(w, 52)
	bh := min(h, len(m.items)+4)
	bx, by := x+(w-bw)/2, y+(h-bh)/2
	DrawFrame(scr, bx, by, bw, bh, m.title, m.th)
	for i, it := range m.items {
		if 1+i >= bh-2 {
			break
		}
		box := "[ ] "
		if it.On {
			box = "[x] "
		}
		label := it.Label
		if it.Numeric {
			box = "[ ] "
			if it.Value > 0 {
				box = "[x] "
			}
			label += " " + strconv.Itoa(it.Value)
			if it.Value == 0 {
				label = it.Label + " (off)"
			}
		}
		st := m.th.Base
		marker := "  "
		if i == m.cursor {
			st, marker = m.th.Lit, "▶ "
		}
		Put(scr, bx+2, by+1+i, bw-4, marker+box+label, st)
	}
	Put(scr, bx+2, by+bh-2, bw-4, m.help, m.th.Dim)
}
