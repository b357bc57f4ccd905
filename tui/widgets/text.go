package widgets

import (
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"
)

// Seg is a run of text in one style. Widgets build rows from segments and
// draw them cell by cell: text from a trace is never parsed for tview's
// style tags, so a task named "[red]" prints as written.
type Seg struct {
	Text  string
	Style tcell.Style
}

// S is shorthand for a segment.
func S(text string, st tcell.Style) Seg { return Seg{Text: text, Style: st} }

// Put draws s at (x, y), clipped to w cells, and returns the cells used.
// Control characters print as '?' so nothing can move the cursor.
func Put(scr tcell.Screen, x, y, w int, s string, st tcell.Style) int {
	used := 0
	state := -1
	for len(s) > 0 && used < w {
		if n := printableASCII(s, w-used); n > 0 {
			// ASCII fast path: one byte, one cell, the whole run under one
			// lock of the screen and with no string made per cell (the
			// cells keep substrings of s). SetContent per cell allocates
			// a string and takes the lock each time, and a frame puts
			// thousands of cells.
			putRun(scr, x+used, y, s[:n], st)
			used += n
			s = s[n:]
			state = -1
			continue
		}
		if c := s[0]; c < 0x80 {
			// A control character prints as '?' so nothing can move the
			// cursor.
			scr.SetContent(x+used, y, '?', nil, st)
			used++
			s = s[1:]
			state = -1
			continue
		}
		var cluster string
		var width int
		cluster, s, width, state = uniseg.FirstGraphemeClusterInString(s, state)
		if width <= 0 {
			continue
		}
		if used+width > w {
			break
		}
		runes := []rune(cluster)
		if runes[0] < 0xa0 {
			runes = []rune{'?'}
		}
		// Fill the trailing cells first so a wide rune is not cut by them.
		for i := width - 1; i > 0; i-- {
			scr.SetContent(x+used+i, y, ' ', nil, st)
		}
		scr.SetContent(x+used, y, runes[0], runes[1:], st)
		used += width
	}
	return used
}

// PutSegs draws segments one after the other and returns the cells used.
func PutSegs(scr tcell.Screen, x, y, w int, segs []Seg) int {
	used := 0
	for _, sg := range segs {
		if used >= w {
			break
		}
		used += Put(scr, x+used, y, w-used, sg.Text, sg.Style)
	}
	return used
}

// Width returns the cells s takes.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return n + uniseg.StringWidth(s[i:])
		}
		n++
	}
	return n
}

// SegsWidth returns the cells the segments take.
func SegsWidth(segs []Seg) int {
	n := 0
	for _, sg := range segs {
		n += Width(sg.Text)
	}
	return n
}

// Fill paints w cells of row y with r.
func Fill(scr tcell.Screen, x, y, w int, r rune, st tcell.Style) {
	if x < 0 {
		w, x = w+x, 0
	}
	if w <= 0 {
		return
	}
	run := fillRun(r)
	if run == "" {
		for i := range w {
			scr.SetContent(x+i, y, r, nil, st)
		}
		return
	}
	// As Put's fast path: a row in one call, each cell a substring of the
	// rune's run. Past the run's length, in pieces.
	size := utf8.RuneLen(r)
	for w > 0 {
		n := min(w, len(run)/size)
		putRun(scr, x, y, run[:n*size], st)
		x, w = x+n, w-n
	}
}

// fillRuns are the runs Fill paints from: the blank and the rules' lines,
// made once. A rune not here is painted cell by cell. A run is one cell a
// rune, so a rune the terminal draws two cells wide has none: the rules'
// lines are East Asian ambiguous, two cells under RUNEWIDTH_EASTASIAN,
// which tcell reads into uniseg before this package's variables are made.
var fillRuns = func() map[rune]string {
	runs := map[rune]string{}
	for _, r := range []rune{' ', '─', '━', '·'} {
		if uniseg.StringWidth(string(r)) == 1 {
			runs[r] = strings.Repeat(string(r), fillRunCells)
		}
	}
	return runs
}()

const fillRunCells = 512

func fillRun(r rune) string { return fillRuns[r] }

// putRun writes s, one cell per rune, all of it single-width and printable,
// from (x, y) to the screen's edge.
func putRun(scr tcell.Screen, x, y int, s string, st tcell.Style) {
	if x < 0 || y < 0 {
		// The screen draws nothing of a run that starts off it; the cells
		// on it are drawn one by one, as SetContent clips.
		for i, r := range []rune(s) {
			scr.SetContent(x+i, y, r, nil, st)
		}
		return
	}
	scr.PutStrStyled(x, y, s, st)
}

// printableASCII is how many of s's first bytes, at most max, are
// printable ASCII: one cell each, each drawn as its own grapheme cluster
// (a combining mark after the last is not part of the run and is dropped
// on its own, as it always was).
func printableASCII(s string, max int) int {
	n := 0
	for n < len(s) && n < max && s[n] >= 0x20 && s[n] < 0x7f {
		n++
	}
	return n
}

// Clear blanks a rectangle; the whole screen in one fill.
func Clear(scr tcell.Screen, x, y, w, h int, st tcell.Style) {
	if sw, sh := scr.Size(); x == 0 && y == 0 && w == sw && h == sh {
		scr.Fill(' ', st)
		return
	}
	for row := range max(h, 0) {
		Fill(scr, x, y+row, w, ' ', st)
	}
}

// Rule draws a section rule: "─ title ──────" across w cells.
func Rule(scr tcell.Screen, x, y, w int, title []Seg, th *Theme) {
	Fill(scr, x, y, w, '─', th.Rule)
	if len(title) == 0 || w < 4 {
		return
	}
	Put(scr, x+1, y, 1, " ", th.Base)
	n := PutSegs(scr, x+2, y, w-4, title)
	Put(scr, x+2+n, y, 1, " ", th.Base)
}

// Pad returns s cut or padded with spaces to exactly w cells.
func Pad(s string, w int) string {
	sw := Width(s)
	switch {
	case sw == w:
		return s
	case sw < w:
		return s + strings.Repeat(" ", w-sw)
	}
	return Cut(s, w)
}

// PadLeft right-aligns s in w cells, cutting it if needed.
func PadLeft(s string, w int) string {
	sw := Width(s)
	if sw >= w {
		return Cut(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// Cut shortens s to at most w cells, ending with "…" when it cut.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	var b strings.Builder
	n := 0
	state := -1
	for len(s) > 0 {
		var cluster string
		var cw int
		cluster, s, cw, state = uniseg.FirstGraphemeClusterInString(s, state)
		if n+cw > w-1 {
			break
		}
		b.WriteString(cluster)
		n += cw
	}
	b.WriteString("…")
	return b.String()
}

// DrawFrame draws a bordered box with a title and clears its inside, for
// overlays drawn over the screen.
func DrawFrame(scr tcell.Screen, x, y, w, h int, title string, th *Theme) {
	if w < 2 || h < 2 {
		return
	}
	Clear(scr, x, y, w, h, th.Base)
	for i := 1; i < w-1; i++ {
		scr.SetContent(x+i, y, '─', nil, th.Rule)
		scr.SetContent(x+i, y+h-1, '─', nil, th.Rule)
	}
	for j := 1; j < h-1; j++ {
		scr.SetContent(x, y+j, '│', nil, th.Rule)
		scr.SetContent(x+w-1, y+j, '│', nil, th.Rule)
	}
	scr.SetContent(x, y, '┌', nil, th.Rule)
	scr.SetContent(x+w-1, y, '┐', nil, th.Rule)
	scr.SetContent(x, y+h-1, '└', nil, th.Rule)
	scr.SetContent(x+w-1, y+h-1, '┘', nil, th.Rule)
	if title != "" && w > 6 {
		Put(scr, x+2, y, w-4, " "+title+" ", th.Title)
	}
}

// clearBox blanks a widget's box in the box's background, as tview's
// Box.DrawForSubclass does before a widget draws, but a row at a time:
// DrawForSubclass sets every cell on its own, and the widgets here draw no
// border, title or draw func, which is all else it would draw.
func clearBox(b *tview.Box, scr tcell.Screen) {
	x, y, w, h := b.GetRect()
	Clear(scr, x, y, w, h, tcell.StyleDefault.Background(b.GetBackgroundColor()))
}
