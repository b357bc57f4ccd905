package scenarios

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Pos is a 1-based line and column in a scenario file. The zero Pos means
// "no position": the value came from a --set override or the problem
// concerns the whole file.
type Pos struct {
	Line, Col int
}

// Problem is one thing wrong with a scenario. It prints as
// FILE:LINE:COL: message, the form editors and CI logs recognise; a problem
// without a position prints as FILE: message, where FILE is the --set
// argument for problems in an override.
type Problem struct {
	File string
	Line int
	Col  int
	Msg  string
}

// String formats the problem as one line.
func (p Problem) String() string {
	if p.Line <= 0 {
		return p.File + ": " + p.Msg
	}
	col := p.Col
	if col <= 0 {
		col = 1
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(col) + ": " + p.Msg
}

// ErrorList is the error Parse, Load and Set return when a scenario is
// invalid: every problem found, in order, so a user fixes them all in one pass.
type ErrorList struct {
	Problems []Problem
}

// maxPrinted bounds Error's output: a hostile file can contain thousands of
// problems and a terminal should not scroll for a minute.
const maxPrinted = 100

// Error returns one problem per line.
func (e *ErrorList) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i == maxPrinted {
			fmt.Fprintf(&b, "\n%s: ... and %d more problems", p.File, len(e.Problems)-maxPrinted)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// sortProblems orders problems without a position (whole-file problems and
// --set overrides, which the user just typed) first, then by line and
// column. The sort is stable so problems at one position keep the order in
// which they were found.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if (a.Line <= 0) != (b.Line <= 0) {
			return a.Line <= 0
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// problems collects problems during one parse.
type problems struct {
	list []Problem
}

// add records a problem. Messages quote user text, which may hold line
// breaks or other control characters; they are escaped here, once, so that
// every problem prints as exactly one line.
func (ps *problems) add(file string, pos Pos, format string, args ...any) {
	ps.list = append(ps.list, Problem{File: oneLine(file), Line: pos.Line, Col: pos.Col, Msg: oneLine(fmt.Sprintf(format, args...))})
}

// oneLine escapes control characters as Go does in string literals.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// err returns nil when nothing was found, otherwise a sorted *ErrorList.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	out := append([]Problem(nil), ps.list...)
	sortProblems(out)
	return &ErrorList{Problems: out}
}
