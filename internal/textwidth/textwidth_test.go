package textwidth

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// A table wider than the headless width splits into parts that fit, each
// led by the first column, every cell kept; prose wraps at words, none
// lost, a list item going on under its text.
func TestHeadlessTextFits80Columns(t *testing.T) {
	var b strings.Builder
	tw := NewTable(&b)
	var head, row []string
	for i := range 16 {
		head = append(head, fmt.Sprintf("column%d", i))
		row = append(row, fmt.Sprintf("%d", i*1000003))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	tw.Flush()
	prose := "  - " + strings.Repeat("a cause that names a figure and the Netty class behind it, ", 4) + "\n"
	out := b.String() + Wrap(prose, Width)
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	for i := range 16 {
		if !strings.Contains(out, head[i]) || !strings.Contains(out, row[i]) {
			t.Errorf("column %d is missing:\n%s", i, out)
		}
	}
	if n := strings.Count(out, "column0"); n < 2 {
		t.Errorf("the parts do not repeat the first column (%d times):\n%s", n, out)
	}
	wrapped := Wrap(prose, Width)
	if strings.Join(strings.Fields(wrapped), " ") != strings.Join(strings.Fields(prose), " ") {
		t.Errorf("wrapping lost words:\n%s", wrapped)
	}
	for _, l := range strings.Split(strings.TrimRight(wrapped, "\n"), "\n")[1:] {
		if !strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "     ") {
			t.Errorf("a cause goes on at the wrong indent: %q", l)
		}
	}
}
