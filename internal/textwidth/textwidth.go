// Package textwidth lays out the headless text, summaries and comparisons,
// for a terminal of Width columns: tables split into parts that fit, prose
// wrapped at words.
package textwidth

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Width is the width the headless summaries are laid out for: the
// 80 columns a new terminal opens at. Their tables split into parts that
// each fit, the first column repeated, and their prose wraps at words, by
// design rather than by the terminal.
const Width = 80

// Table gathers rows of tab-terminated cells, as text/tabwriter takes
// them, and lays them out right-aligned two spaces apart on Flush: in one
// table when it fits Width, else in several, each led by the first
// column.
type Table struct {
	out *strings.Builder
	buf bytes.Buffer
}

// NewTable starts a table that Flush writes to out.
func NewTable(out *strings.Builder) *Table { return &Table{out: out} }

func (t *Table) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush writes the table and empties it.
func (t *Table) Flush() {
	var rows [][]string
	var widths []int
	for _, line := range strings.Split(strings.TrimRight(t.buf.String(), "\n"), "\n") {
		cells := strings.Split(line, "\t")
		if n := len(cells); n > 1 && cells[n-1] == "" {
			cells = cells[:n-1]
		}
		for i, c := range cells {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
		rows = append(rows, cells)
	}
	t.buf.Reset()
	// Deal the columns after the first into parts that fit, each led by
	// the first.
	var parts [][]int
	part, used := []int{0}, widths[0]+2
	for i := 1; i < len(widths); i++ {
		if len(part) > 1 && used+widths[i]+2 > Width {
			parts = append(parts, part)
			part, used = []int{0}, widths[0]+2
		}
		part = append(part, i)
		used += widths[i] + 2
	}
	parts = append(parts, part)
	for pi, cols := range parts {
		if pi > 0 {
			t.out.WriteString("\n")
		}
		for _, r := range rows {
			for _, i := range cols {
				c := ""
				if i < len(r) {
					c = r[i]
				}
				// fmt's width counts runes, as the widths do.
				fmt.Fprintf(t.out, "%*s", widths[i]+2, c)
			}
			t.out.WriteString("\n")
		}
	}
}

// Wrap wraps every line of s longer than w at words. A line that goes
// on is indented as far as its text starts, past its leading spaces and a
// list mark ("- ", "· ", "ok  ", "FAIL "); a line that starts at the margin
// goes on two spaces in.
func Wrap(s string, w int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		text := strings.TrimSuffix(line, "\n")
		if utf8.RuneCountInString(text) <= w {
			b.WriteString(line)
			continue
		}
		lead := text[:len(text)-len(strings.TrimLeft(text, " "))]
		indent := len(lead)
		for _, mark := range []string{"- ", "· ", "ok  ", "FAIL "} {
			if strings.HasPrefix(text[indent:], mark) {
				indent += utf8.RuneCountInString(mark)
				break
			}
		}
		if indent == 0 || indent > w/2 {
			indent = 2
		}
		pad := strings.Repeat(" ", indent)
		n := 0
		for i, word := range strings.Fields(text) {
			ww := utf8.RuneCountInString(word)
			switch {
			case i == 0:
				b.WriteString(lead + word)
				n = len(lead) + ww
			case n+1+ww > w:
				b.WriteString("\n" + pad + word)
				n = indent + ww
			default:
				b.WriteString(" " + word)
				n += 1 + ww
			}
		}
		b.WriteString(line[len(text):]) // its newline, if it had one
	}
	return b.String()
}
