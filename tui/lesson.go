package tui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/tui/widgets"
)

// The lesson layout is for a small terminal: the scenario's caption whole,
// the focused loop's row, the counters of the concepts the scenario is
// about, and the latest events. Below 100 columns the detail pane has no
// room for the full labels and the timeline's lanes are short; below 30
// rows the timeline, the detail pane and the log leave the caption two
// rows, so a note of four lines pages. The lesson layout drops the
// timeline and the detail pane for the one block that says what the
// caption talks about; t cycles to the others.
//
// This file is that layout and the concept block, which the other layouts
// show too under the timeline; what each concept counts and says is
// lesson_concepts.go.

// lessonSmall reports whether a terminal of cols × rows opens in the
// lesson layout.
func lessonSmall(cols, rows int) bool { return cols < 100 || rows < 30 }

// lessonMaxRows bounds the concept block outside the lesson layout, where
// it shares the rows with the timeline and the detail pane.
const lessonMaxRows = 8

// concepts is conceptsOf for the panels' scenario and focus.
func (p *mainPanels) concepts() []string {
	return conceptsOf(p.sc, p.detail.info.ok && !p.detail.info.wheelThread)
}

// mechanismView are the labels of the long items that draw a mechanism
// rather than count it (lesson_mechanisms.go). A crowded block leaves them
// out, so every concept keeps its counters; the detail pane's columns and
// the lesson layout still show them.
var mechanismView = map[string]bool{"fed by": true, "by deadline,id": true, "selectedKeys": true, "events[]": true,
	"ops in order": true}

// lessonUnit is what the block never breaks across lines: a counter, with
// the concept's tag before its first.
type lessonUnit []widgets.Seg

// conceptUnits are the counters of one concept, a unit each, less those an
// earlier concept showed already (seen, by label and value) and those the
// detail pane shows (skip, by label).
func conceptUnits(id string, lc *lessonCtx, seen map[counter]bool, skip map[string]bool, crowded bool, th *widgets.Theme) []lessonUnit {
	var out []lessonUnit
	var above []string
	for _, it := range lessonConcepts[id].items(lc) {
		if crowded && mechanismView[it.label] {
			continue
		}
		if skip[it.label] && !seen[it] {
			above = append(above, it.label)
		}
		if seen[it] || skip[it.label] {
			continue
		}
		seen[it] = true
		u := lessonUnit{widgets.S(it.label+" ", th.Dim), widgets.S(it.value, th.Base)}
		if len(out) == 0 {
			u = append(lessonUnit{widgets.S(id+" ", th.Accent)}, u...)
		}
		out = append(out, u)
	}
	if len(out) == 0 && len(above) > 0 && !crowded {
		// Every counter of the concept is in the detail pane: say so,
		// rather than list the concept with nothing under it.
		out = append(out, lessonUnit{widgets.S(id+" ", th.Accent),
			widgets.S("in the counters above: "+strings.Join(above, ", "), th.Dim)})
	}
	return out
}

// flow lays units out in lines of w cells, two spaces apart; a line that
// goes on is indented by indent.
func flow(units []lessonUnit, w, indent int, sp tcell.Style) [][]widgets.Seg {
	var lines [][]widgets.Seg
	var line []widgets.Seg
	used := 0
	for _, u := range units {
		uw := widgets.SegsWidth(u)
		if len(line) > 0 && used+2+uw > w {
			lines = append(lines, line)
			line, used = []widgets.Seg{widgets.S(strings.Repeat(" ", indent), sp)}, indent
		} else if len(line) > 0 {
			line = append(line, widgets.S("  ", sp))
			used += 2
		}
		line = append(line, u...)
		used += uw
	}
	if len(line) > 0 {
		lines = append(lines, line)
	}
	return lines
}

// conceptLines is the block's text for rows rows of w cells: a line per
// concept (going on over more when long), then, while rows are left and
// words is set, a sentence for the concepts that have one, under their
// counters. When a line per concept does not fit, the counters of every
// concept run on together.
func conceptLines(lc *lessonCtx, ids []string, skip map[string]bool, w, rows int, words bool, th *widgets.Theme) [][]widgets.Seg {
	seen := map[counter]bool{}
	per := make([][][]widgets.Seg, 0, len(ids))
	n := 0
	for _, id := range ids {
		lines := flow(conceptUnits(id, lc, seen, skip, false, th), w, 4, th.Base)
		per = append(per, lines)
		n += len(lines)
	}
	if n > rows {
		// Crowded: every concept's counters run on together, and a
		// concept whose counters the detail pane shows says nothing.
		clear(seen)
		var all []lessonUnit
		for _, id := range ids {
			all = append(all, conceptUnits(id, lc, seen, skip, true, th)...)
		}
		return flow(all, w, 0, th.Base)
	}
	var out [][]widgets.Seg
	for i, id := range ids {
		out = append(out, per[i]...)
		if !words || lessonConcepts[id].words == nil {
			continue
		}
		text := widgets.Wrap(lessonConcepts[id].words(lc), max(w-4, 1))
		if n+len(text) > rows {
			continue
		}
		n += len(text)
		for _, t := range text {
			out = append(out, []widgets.Seg{widgets.S("    "+t, th.Dim)})
		}
	}
	return out
}

// lessonTitle is the concept block's rule: whose counters, which concepts,
// and where a paused loop waits.
func lessonTitle(in detailInfo, ids []string, w int, th *widgets.Theme) []widgets.Seg {
	name := "no loop yet"
	switch {
	case in.wheelThread:
		name = in.wheelInfo.Name
	case in.ok:
		name = in.loop.Name
	}
	list := strings.Join(ids, " ")
	if widgets.Width(name+list) > w-20 {
		list = strconv.Itoa(len(ids)) // the tags lead the lines below
	}
	segs := []widgets.Seg{widgets.S(name, th.Title), widgets.S(" · concepts ", th.Base), widgets.S(list, th.Accent)}
	if in.ok && in.paused {
		segs = append(segs, widgets.S(" · "+gateNote(in), th.Warn))
	}
	return segs
}

// lessonCtx is the concept block's view of the panels' frame.
func (p *mainPanels) lessonCtx() *lessonCtx {
	return &lessonCtx{f: p.frame, sc: p.sc, info: p.detail.info}
}

// lessonRows is how many rows the concept block takes in w columns beside
// a detail pane showing skip: its rule and its counters; 0 when the
// scenario names no concept.
func (p *mainPanels) lessonRows(w int, skip map[string]bool) int {
	ids := p.concepts()
	if len(ids) == 0 || p.frame == nil {
		return 0
	}
	return 1 + len(conceptLines(p.lessonCtx(), ids, skip, w, lessonMaxRows, false, p.th))
}

// drawConcepts draws the concept block in (x, y, w, h): its rule, then
// its lines, less the counters in skip, with words when rows allow.
func (p *mainPanels) drawConcepts(scr tcell.Screen, x, y, w, h int, skip map[string]bool, words bool) {
	ids := p.concepts()
	if h <= 0 || len(ids) == 0 || p.frame == nil {
		return
	}
	widgets.Rule(scr, x, y, w, lessonTitle(p.detail.info, ids, w, p.th), p.th)
	for i, line := range conceptLines(p.lessonCtx(), ids, skip, w, h-1, words, p.th) {
		if 1+i >= h {
			break
		}
		widgets.PutSegs(scr, x, y+1+i, w, line)
	}
}

// lessonSpare is, in the lesson layout, how many of h rows its body can
// leave the caption: what the loops' rows, the queue and heap heads, the
// concept block's counters and three rows of log do not need; -1 in
// another layout.
func (p *mainPanels) lessonSpare(w, h int) int {
	if p.tl.current() != layoutLesson {
		return -1
	}
	return max(h-p.lessonLoopRows(h)-p.lessonHeadsRows()-p.lessonRows(w, lessonRowLabels)-3, 0)
}

// lessonRowLabels are the counters the lesson layout's loops block shows
// already: the groups' sizes on its rule, each loop's state in its row.
var lessonRowLabels = map[string]bool{"groups": true, "state": true}

// lessonHeadsRows is the row of the focused loop's queue and heap heads,
// none when the concept block counts the queue and the heap itself (C13,
// C14): it names the heap's head and the queue's producers.
func (p *mainPanels) lessonHeadsRows() int {
	ids := p.concepts()
	if len(ids) == 0 {
		return 0 // the detail pane shows them
	}
	if slices.Contains(ids, "C13") || slices.Contains(ids, "C14") {
		return 0
	}
	return 1
}

// lessonLoopRows is how many of h rows the loops' block wants: its rule and
// a row per loop, no more than leaves the concept block its rule and a
// line, the heads their row and the log three rows.
func (p *mainPanels) lessonLoopRows(h int) int {
	if p.frame == nil {
		return 0
	}
	n := len(p.frame.Snapshot.Loops)
	if n == 0 {
		return 0
	}
	return min(1+n, max(h-3-p.lessonHeadsRows()-2, 2))
}

// drawLesson is the body of the lesson layout: a compact row per loop (the
// ones the caption talks about first when not all fit) with the timeline's
// lanes beside them, the focused loop's queue and heap heads, the concept
// block, and the log in the rest (three rows at least).
func (p *mainPanels) drawLesson(scr tcell.Screen, x, y, w, h int) {
	// The log keeps its rule and two events: the block above is what
	// the caption points at.
	const logMin = 3
	cy := y
	for _, t := range p.tables {
		t.SetRect(0, 0, 0, 0) // the compact rows take the clicks
	}
	if lh := p.lessonLoopRows(h); lh > 0 {
		p.drawLessonLoops(scr, x, cy, w, lh)
		cy += lh
	} else {
		p.timeline.SetRect(0, 0, 0, 0)
	}
	if hr := p.lessonHeadsRows(); hr > 0 && y+h-cy-logMin >= hr {
		p.detail.drawHeads(scr, x, cy, w)
		cy += hr
	}
	ids := p.concepts()
	if len(ids) > 0 {
		// A crowded block may take the log's third row: its counters
		// are what the caption's figures are read from. Its sentences
		// come only while the log keeps three events: the stories of
		// events (accept → register → read) are read there.
		rest := y + h - cy
		need := 1 + len(conceptLines(p.lessonCtx(), ids, lessonRowLabels, w, rest-logMin, false, p.th))
		words := rest-need >= logMin+1
		if words {
			need = 1 + len(conceptLines(p.lessonCtx(), ids, lessonRowLabels, w, rest-logMin-2, true, p.th))
		}
		bh := min(need, max(rest-(logMin-1), 0))
		p.drawConcepts(scr, x, cy, w, bh, lessonRowLabels, words)
		cy += bh
	} else {
		// No concepts listed: the detail pane stands in for their
		// counters, its queue and heap columns for the heads.
		dh := min(11, max(y+h-cy-logMin, 0))
		p.detail.draw(scr, x, cy, w, dh)
		cy += dh
	}
	p.log.SetRect(x, cy, w, y+h-cy)
	p.log.Draw(scr)
	p.logRows = max(p.log.Rows(), 1)
}

// drawLessonLoops draws the loops' block in (x, y, w, h): the compact rows
// on the left under a rule naming the groups, the timeline's lanes beside
// them, row for row. When the run has more loops than rows, the loops the
// caption talks about and the focused one come first.
func (p *mainPanels) drawLessonLoops(scr tcell.Screen, x, y, w, h int) {
	f := p.frame
	var order []int // indexes into f.Loops, in table order
	nameW := 0
	for _, g := range f.Snapshot.Groups {
		for _, li := range g.Loops {
			order = append(order, li)
			nameW = max(nameW, widgets.Width(f.Snapshot.Loops[li].Name))
		}
	}
	rows := h - 1
	if len(order) > rows {
		// One row says how many are left out; the caption's loops and
		// the focused one take the others first.
		keep := map[int]bool{}
		for _, ok := range []func(li int) bool{
			func(li int) bool { return f.Rows[li].Watched },
			func(li int) bool { return f.Snapshot.Loops[li].Index == p.focus },
			func(int) bool { return true },
		} {
			for _, li := range order {
				if len(keep) < max(rows-1, 1) && ok(li) {
					keep[li] = true
				}
			}
		}
		var first, rest []int
		for _, li := range order {
			switch {
			case keep[li] && (f.Rows[li].Watched || f.Snapshot.Loops[li].Index == p.focus):
				first = append(first, li)
			case keep[li]:
				rest = append(rest, li)
			}
		}
		order = append(first, rest...)
	}
	more := len(f.Snapshot.Loops) - len(order)
	if p.lessonTable == nil {
		p.lessonTable = widgets.NewLoopTable(p.th)
		p.lessonTable.OnClick(func(r int) {
			if p.onFocus != nil && r < len(p.lessonIdx) {
				p.onFocus(p.lessonIdx[r])
			}
		})
	}
	lrows, idx, at := tableRows(f, order, p.focus, p.lessonIdx)
	p.lessonIdx = idx
	lanes := make([]widgets.TimelineLane, 0, len(order))
	for _, li := range order {
		l := &f.Snapshot.Loops[li]
		lanes = append(lanes, widgets.TimelineLane{Index: l.Index, Name: l.Name, Focus: l.Index == p.focus,
			Watched: f.Rows[li].Watched, Lane: l.Lane, Follow: p.followed[l.Index]})
	}
	tw := min(widgets.CompactWidth(nameW), w/2)
	title := []widgets.Seg{widgets.S("loops", p.th.Title), widgets.S(" · "+groupSizes(f), p.th.Base)}
	p.lessonTable.SetCompact(true, more)
	p.lessonTable.Set(title, lrows, at, f.Now, false)
	p.lessonTable.SetRect(x, y, tw, h)
	p.lessonTable.Draw(scr)
	// The lanes beside the rows, without labels: the rows name them.
	p.tl.cols = max(w-tw-1, 0)
	p.timeline.SetBare(true)
	p.timeline.SetRuler("", -1)
	if len(lanes) > rows-min(more, 1) {
		lanes = lanes[:max(rows-min(more, 1), 0)]
	}
	p.timeline.Set(p.tl.title(p.th, w-tw-1), lanes)
	p.timeline.SetRect(x+tw+1, y, w-tw-1, h)
	p.timeline.Draw(scr)
	widgets.Fill(scr, x+tw, y, 1, '─', p.th.Dim)
}
