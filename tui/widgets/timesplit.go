package widgets

import (
	"math"
	"strconv"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/tui/model"
)

// The loop table's time columns: where the loop's last second went, as a
// stacked bar in the timeline's glyphs (█ tasks, ▒ I/O, · select) with the
// I/O and task percentages, and the p50/p99 latency of the requests on the
// channels it serves. A narrow table trades the queue sparkline for the
// bar alone.
const (
	splitBarW   = 6
	splitNumW   = 7 // "100/100"
	splitTimeW  = splitBarW + 1 + splitNumW
	splitLatW   = 13 // "1.2ms/25.3ms"
	narrowBarW  = 5
	splitWorstW = 6 // "99.9ms": model.Duration keeps three digits
)

// splitColumns takes room for the time columns out of extra (the width
// the fixed columns leave), returning their widths and what is left.
func splitColumns(c *widths, extra int) (time, lat, left int) {
	if extra >= splitTimeW+1+splitLatW+1 {
		return splitTimeW, splitLatW, extra - splitTimeW - splitLatW - 2
	}
	if extra >= splitTimeW+1 {
		return splitTimeW, 0, extra - splitTimeW - 1
	}
	// No room: the sparkline's width and gap become the bar's.
	c.spark = 0
	return narrowBarW, 0, extra + 6 - narrowBarW - 1
}

// timeColumn is where the loop's last second went: the bar, and the I/O
// and task percentages where there is room.
var timeColumn = column{head: "LAST 1s io/tsk", short: "1s", width: func(c widths) int { return c.time }, segs: func(x cell) []Seg {
	sp := x.r.Split
	segs := splitBar(sp, min(x.c.time, splitBarW), x.th)
	if x.c.time >= splitTimeW {
		num := "-"
		if sp.Known {
			num = pctText(sp.IO) + "/" + pctText(sp.Tasks)
		}
		segs = append(segs, S(" ", x.th.Base), S(PadLeft(num, splitNumW), x.th.Base))
	}
	return segs
}}

// latColumn is the p50/p99 latency of the requests on the loop's channels
// over the last second.
var latColumn = column{head: "p50/p99", right: true, headLeft: true, width: func(c widths) int { return c.lat },
	text: func(x cell) (string, tcell.Style) {
		if !x.r.Split.Latency {
			return "—", x.th.Base
		}
		return usText(x.r.Split.P50US) + "/" + usText(x.r.Split.P99US), x.th.Base
	}}

// worstColumn is the run's worst 250 ms window: where a stall the last
// second has forgotten (a batch that held the loop) still shows.
var worstColumn = column{head: "worst", right: true, headLeft: true, width: func(c widths) int { return c.worst },
	text: func(x cell) (string, tcell.Style) {
		us := x.r.Split.WorstP99US
		switch {
		case us <= 0:
			return "—", x.th.Base
		case us >= 50_000:
			return usText(us), x.th.Warn
		}
		return usText(us), x.th.Base
	}}

// splitBar draws the shares in w cells: tasks, then I/O, then select,
// each rounded to whole cells; what is left (neither) stays blank.
func splitBar(sp model.TimeSplit, w int, th *Theme) []Seg {
	if !sp.Known {
		return []Seg{S(Pad("", w), th.Dim)}
	}
	cells := func(pct float64) int { return int(math.Round(pct * float64(w) / 100)) }
	tk := min(cells(sp.Tasks), w)
	io := min(cells(sp.IO), w-tk)
	sel := min(cells(sp.Select), w-tk-io)
	rep := func(r rune, n int) string {
		b := make([]rune, n)
		for i := range b {
			b[i] = r
		}
		return string(b)
	}
	return []Seg{
		S(rep(GlyphTasks, tk), th.Warn),
		S(rep(GlyphIO, io), th.Accent),
		S(rep(GlyphSelect, sel), th.Dim),
		S(Pad("", w-tk-io-sel), th.Base),
	}
}

func pctText(p float64) string { return strconv.Itoa(int(math.Round(p))) }

// usText writes a latency in µs with the unit that suits it.
func usText(us float64) string { return model.Duration(int64(us * 1e3)) }
