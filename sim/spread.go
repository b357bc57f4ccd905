package sim

import (
	"fmt"
	"slices"
)

// Spread is the range a figure took over a run's windows, the first
// (clients connecting) left out and the outer tenth on each side trimmed:
// how much the figure moves on its own, which a comparison must not rank.
type Spread struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	N  int     `json:"windows"` // windows read; 0 when the run kept none
}

// minSpreadWindows is the fewest windows a spread is read from; with fewer
// a comparison falls back to fixed margins.
const minSpreadWindows = 3

// known says whether the spread was measured.
func (s Spread) known() bool { return s.N >= minSpreadWindows }

// overlaps says whether two measured ranges share a value.
func (s Spread) overlaps(o Spread) bool { return s.Lo <= o.Hi && o.Lo <= s.Hi }

// spreadOf reads the spread of one figure of the windows; skip drops a
// window (one with no answer has no latency).
func spreadOf(ws []Window, pick func(Window) float64, skip func(Window) bool) Spread {
	if len(ws) > 1 {
		ws = ws[1:]
	}
	var vs []float64
	for _, w := range ws {
		if skip == nil || !skip(w) {
			vs = append(vs, pick(w))
		}
	}
	if len(vs) < minSpreadWindows {
		return Spread{N: len(vs)}
	}
	slices.Sort(vs)
	k := len(vs) / 10
	return Spread{Lo: vs[k], Hi: vs[len(vs)-1-k], N: len(vs)}
}

func rpsSpread(ws []Window) Spread {
	return spreadOf(ws, func(w Window) float64 { return w.RPS }, nil)
}

func p99Spread(ws []Window) Spread {
	return spreadOf(ws, func(w Window) float64 { return w.P99US }, func(w Window) bool { return w.RPS == 0 })
}

// Shape is the topology that served a run: the loops that accepted, the
// loops that served channels, and whether one loop did both. Two models
// of the same shape are the same program here, whatever they are called.
type Shape struct {
	Accepting int  `json:"accepting"`
	Serving   int  `json:"serving"`
	Shared    bool `json:"shared"` // a loop that accepted also served
}

func (s Shape) String() string {
	switch {
	case s.Shared && s.Serving == 1:
		return "one loop accepts and serves every channel"
	case s.Shared:
		return fmt.Sprintf("%s accept and serve", plural(s.Serving, "loop"))
	}
	return fmt.Sprintf("%s, %d %s serve", acceptText(s.Accepting), s.Serving, pick(s.Serving == 1, "worker", "workers"))
}

func acceptText(n int) string {
	if n == 1 {
		return "one boss accepts"
	}
	return fmt.Sprintf("%d bosses accept", n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// shapeOf reads the shape from a summary: a loop accepted if it counted
// an accept, served if a loop of an I/O group registered a channel.
func shapeOf(s *Summary) Shape {
	io := ioGroups(s)
	var sh Shape
	for _, l := range s.Loops {
		if l.Group == "client" {
			continue
		}
		if l.Accepted > 0 {
			sh.Accepting++
		}
		if io[l.Group] && (l.Registered > 0 || l.Accepted > 0) {
			sh.Serving++
			if l.Accepted > 0 {
				sh.Shared = true
			}
		}
	}
	return sh
}
