package tui

import (
	"github.com/reactorviz/reactorviz/learn"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// glossaryEntries end the help with the glossary: every column header,
// label, glyph and counter the screens show, as docs/glossary.md lists
// them.
func glossaryEntries() []widgets.HelpEntry {
	out := []widgets.HelpEntry{{Heading: true, Text: "Glossary"}}
	for _, t := range learn.Glossary() {
		out = append(out, widgets.HelpEntry{Term: t.Word, Text: t.Meaning})
	}
	return out
}
