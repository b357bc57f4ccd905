// Package widgets holds the terminal UI's reusable pieces: text drawing
// helpers, the phase ring, the sparkline, the timer wheel ring, the loop
// table, the event log, the key-hint footer and the checklist menu. Each
// custom widget embeds *tview.Box and draws inside its inner rectangle from
// data the screen sets before a draw; none of them reads a model or talks
// to the engine.
package widgets

import (
	"os"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Theme is the set of styles every widget draws with. With NoColor set
// (the NO_COLOR convention) it uses attributes only: reverse for what is
// lit, bold for what matters, so nothing depends on colour.
type Theme struct {
	NoColor  bool
	Base     tcell.Style // ordinary text
	Dim      tcell.Style // labels, separators, idle values
	Bold     tcell.Style
	Title    tcell.Style // section titles
	Rule     tcell.Style // section rules
	Header   tcell.Style // the top bar
	Key      tcell.Style // key names in hints
	Lit      tcell.Style // the current phase in the phase ring
	LitPause tcell.Style // the phase a paused loop waits before
	Selected tcell.Style // the focused row
	Good     tcell.Style
	Warn     tcell.Style
	Bad      tcell.Style
	Accent   tcell.Style
}

// NewTheme returns the colour theme, or the attribute-only one.
func NewTheme(noColor bool) *Theme {
	base := tcell.StyleDefault
	if noColor {
		return &Theme{
			NoColor: true, Base: base, Dim: base, Bold: base.Bold(true),
			Title: base.Bold(true), Rule: base, Header: base.Reverse(true), Key: base.Bold(true),
			Lit: base.Reverse(true), LitPause: base.Reverse(true).Underline(true),
			Selected: base.Bold(true), Good: base, Warn: base.Bold(true),
			Bad: base.Bold(true).Underline(true), Accent: base.Bold(true),
		}
	}
	return &Theme{
		Base:     base,
		Dim:      base.Foreground(tcell.ColorGray),
		Bold:     base.Bold(true),
		Title:    base.Foreground(tcell.ColorAqua).Bold(true),
		Rule:     base.Foreground(tcell.ColorTeal),
		Header:   base.Background(tcell.ColorNavy).Foreground(tcell.ColorWhite),
		Key:      base.Foreground(tcell.ColorYellow).Bold(true),
		Lit:      base.Background(tcell.ColorGreen).Foreground(tcell.ColorBlack).Bold(true),
		LitPause: base.Background(tcell.ColorYellow).Foreground(tcell.ColorBlack).Bold(true),
		Selected: base.Background(tcell.ColorDarkSlateGray),
		Good:     base.Foreground(tcell.ColorGreen),
		Warn:     base.Foreground(tcell.ColorYellow),
		Bad:      base.Foreground(tcell.ColorRed).Bold(true),
		Accent:   base.Foreground(tcell.ColorAqua),
	}
}

// ThemeFromEnv honours NO_COLOR (https://no-color.org): any non-empty
// value turns colour off.
func ThemeFromEnv() *Theme { return NewTheme(os.Getenv("NO_COLOR") != "") }

// Row applies the focused-row look to a style: a background in colour, or
// nothing in NO_COLOR mode, where the row marker and bold name show focus.
// A style with a background of its own (the lit phase) keeps it, so the
// focused loop's phase stays as legible as every other row's.
func (t *Theme) Row(st tcell.Style, selected bool) tcell.Style {
	if !selected || t.NoColor {
		return st
	}
	if _, own, _ := st.Decompose(); own != tcell.ColorDefault {
		return st
	}
	_, bg, _ := t.Selected.Decompose()
	return st.Background(bg)
}

// Apply sets tview's global styles (used by its built-in primitives) to
// match the theme and returns a function restoring the previous ones.
func (t *Theme) Apply() (restore func()) {
	old := tview.Styles
	s := tview.Styles
	s.PrimitiveBackgroundColor = tcell.ColorDefault
	s.ContrastBackgroundColor = tcell.ColorDefault
	s.MoreContrastBackgroundColor = tcell.ColorDefault
	if t.NoColor {
		for _, c := range []*tcell.Color{&s.BorderColor, &s.TitleColor, &s.GraphicsColor,
			&s.PrimaryTextColor, &s.SecondaryTextColor, &s.TertiaryTextColor,
			&s.InverseTextColor, &s.ContrastSecondaryTextColor} {
			*c = tcell.ColorDefault
		}
	} else {
		s.BorderColor = tcell.ColorTeal
		s.TitleColor = tcell.ColorAqua
		s.PrimaryTextColor = tcell.ColorDefault
	}
	tview.Styles = s
	return func() { tview.Styles = old }
}
