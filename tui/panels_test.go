package tui

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/tui/widgets"
)

// TestHeaderKeepsTheClock checks that an 80-column header keeps the run
// clock when the drop count, speed and rate no longer fit: the bar shows
// its right part only while it takes at most half the row.
func TestHeaderKeepsTheClock(t *testing.T) {
	th := widgets.NewTheme(true)
	h := headerParts{
		brand: "reactorviz", what: "tour · multi", status: "▶ RUNNING",
		right: []string{"00:02.7/00:22.0", "drop 20.7k", "speed 1×", "4.0k rps"},
	}
	_, right := h.segs(80, th)
	text := ""
	for _, s := range right {
		text += s.Text
	}
	if !strings.HasPrefix(text, "00:02.7/00:22.0") {
		t.Fatalf("right part %q lost the clock", text)
	}
	if w := widgets.SegsWidth(right); w+1 > 40 {
		t.Errorf("right part is %d cells, more than half of 80: the bar would drop it", w)
	}
}
