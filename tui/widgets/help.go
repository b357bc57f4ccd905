package widgets

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// HelpEntry is one item of the help overlay: a heading (Heading set, Text
// is the title), or a term (a key or a pane name) with its explanation.
type HelpEntry struct {
	Heading bool
	Term    string
	Text    string
}

// HelpView is the help overlay: a framed, scrollable page of entries, the
// explanation word-wrapped beside its term.
type HelpView struct {
	*tview.Box
	th      *Theme
	title   string
	entries []HelpEntry
	scroll  ScrollText // the window on the page's lines
}

// NewHelpView returns an empty help page.
func NewHelpView(th *Theme) *HelpView { return &HelpView{Box: tview.NewBox(), th: th} }

// Set replaces the page and scrolls to its top.
func (v *HelpView) Set(title string, entries []HelpEntry) {
	v.title, v.entries = title, entries
	v.scroll.Top()
}

// Scroll handles the keys that move the page and reports whether ev was one.
func (v *HelpView) Scroll(ev *tcell.EventKey) bool {
	switch ev.Key() {
	case tcell.KeyUp:
		v.scroll.Scroll(-1)
	case tcell.KeyDown:
		v.scroll.Scroll(1)
	case tcell.KeyPgUp:
		v.scroll.Scroll(-Page)
	case tcell.KeyPgDn:
		v.scroll.Scroll(Page)
	case tcell.KeyHome:
		v.scroll.Top()
	case tcell.KeyEnd:
		v.scroll.End()
	case tcell.KeyRune:
		switch ev.Rune() {
		case 'k':
			v.scroll.Scroll(-1)
		case 'j':
			v.scroll.Scroll(1)
		case ' ':
			v.scroll.Scroll(Page)
		default:
			return false
		}
	default:
		return false
	}
	return true
}

type helpLine struct {
	term, text string
	heading    bool
}

// render wraps the entries to width w with terms in a column of termW.
func (v *HelpView) render(w, termW int) []helpLine {
	var out []helpLine
	for _, e := range v.entries {
		if e.Heading {
			if len(out) > 0 {
				out = append(out, helpLine{})
			}
			out = append(out, helpLine{text: e.Text, heading: true})
			continue
		}
		textW := max(w-termW-1, 10)
		for i, l := range Wrap(e.Text, textW) {
			hl := helpLine{text: l}
			if i == 0 {
				hl.term = e.Term
			}
			out = append(out, hl)
		}
	}
	return out
}

// Draw implements tview.Primitive: a frame filling the rectangle less a
// margin, the page inside.
func (v *HelpView) Draw(scr tcell.Screen) {
	fx, fy, fw, fh := v.GetRect()
	if fw < 20 || fh < 5 {
		return
	}
	DrawFrame(scr, fx, fy, fw, fh, v.title, v.th)
	ix, iy, iw, ih := fx+2, fy+1, fw-4, fh-3
	termW := 0
	for _, e := range v.entries {
		if !e.Heading {
			termW = max(termW, Width(e.Term))
		}
	}
	termW = min(termW+1, iw/3)
	lines := v.render(iw, termW)
	top := v.scroll.show(len(lines), ih)
	for i := 0; i < ih && top+i < len(lines); i++ {
		l := lines[top+i]
		if l.heading {
			Put(scr, ix, iy+i, iw, l.text, v.th.Title)
			continue
		}
		Put(scr, ix, iy+i, termW, l.term, v.th.Key)
		Put(scr, ix+termW+1, iy+i, iw-termW-1, l.text, v.th.Base)
	}
	more := "esc or ? closes"
	if len(lines) > ih {
		more = "↑↓ PgUp PgDn scroll · " + more
	}
	Put(scr, ix, fy+fh-2, iw, more, v.th.Dim)
}

// Wrap breaks text into lines of at most w cells at spaces; a word longer
// than w is cut.
func Wrap(text string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			for Width(word) > w {
				if line != "" {
					out = append(out, line)
					line = ""
				}
				cut := Cut(word, w)
				n := len(strings.TrimSuffix(cut, "…"))
				if n == 0 {
					n = len(string([]rune(word)[0])) // always make progress
				}
				out = append(out, cut)
				word = word[n:]
			}
			switch {
			case line == "":
				line = word
			case Width(line)+1+Width(word) <= w:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
		}
		out = append(out, line)
	}
	return out
}
