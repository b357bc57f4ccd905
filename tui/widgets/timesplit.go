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
func splitColumns(c *columns, extra int) (time, lat, left int) {
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

type splitHeader struct {
	text  string
	width int
}

func splitHeaders(c columns) []splitHeader {
	var out []splitHeader
	if c.time > 0 {
		text := "LAST 1s io/tsk"
		if c.time < splitTimeW {
			text = "1s"
		}
		out = append(out, splitHeader{Cut(text, c.time), c.time})
	}
	if c.lat > 0 {
		out = append(out, splitHeader{"p50/p99", c.lat})
	}
	if c.worst > 0 {
		out = append(out, splitHeader{"worst", c.worst})
	}
	return out
}

func (t *LoopTable) splitSegs(r LoopRow, c columns, st func(tcell.Style) tcell.Style) []Seg {
	if c.time <= 0 {
		return nil
	}
	gap := S(" ", st(t.th.Base))
	sp := r.Split
	barW := min(c.time, splitBarW)
	segs := []Seg{gap}
	segs = append(segs, t.splitBar(sp, barW, st)...)
	if c.time >= splitTimeW {
		num := "-"
		if sp.Known {
			num = pctText(sp.IO) + "/" + pctText(sp.Tasks)
		}
		segs = append(segs, gap, S(PadLeft(num, splitNumW), st(t.th.Base)))
	}
	if c.lat > 0 {
		lat := "—"
		if sp.Latency {
			lat = usText(sp.P50US) + "/" + usText(sp.P99US)
		}
		segs = append(segs, gap, S(PadLeft(lat, c.lat), st(t.th.Base)))
	}
	if c.worst > 0 {
		// The run's worst 250 ms window: where a stall the last second
		// has forgotten (a batch that held the loop) still shows.
		worst, style := "—", t.th.Base
		if sp.WorstP99US > 0 {
			worst = usText(sp.WorstP99US)
			if sp.WorstP99US >= 50_000 {
				style = t.th.Warn
			}
		}
		segs = append(segs, gap, S(PadLeft(worst, c.worst), st(style)))
	}
	return segs
}

// splitBar draws the shares in w cells: tasks, then I/O, then select,
// each rounded to whole cells; what is left (neither) stays blank.
func (t *LoopTable) splitBar(sp model.TimeSplit, w int, st func(tcell.Style) tcell.Style) []Seg {
	if !sp.Known {
		return []Seg{S(Pad("", w), st(t.th.Dim))}
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
		S(rep(GlyphTasks, tk), st(t.th.Warn)),
		S(rep(GlyphIO, io), st(t.th.Accent)),
		S(rep(GlyphSelect, sel), st(t.th.Dim)),
		S(Pad("", w-tk-io-sel), st(t.th.Base)),
	}
}

func pctText(p float64) string { return strconv.Itoa(int(math.Round(p))) }

// usText writes a latency in µs with the unit that suits it.
func usText(us float64) string { return model.Duration(int64(us * 1e3)) }
