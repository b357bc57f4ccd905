package scenarios

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// A compare clause is checked when `reactorviz compare` has run a workload
// under every model. Unlike an expectation, which reads one run, it sets
// one model's figure against another's:
//
//	clause = side OP side
//	side   = number | [number "*"] MODEL "." FIGURE
//
// for instance "single.p99_us >= 5 * multi.p99_us". Tokens are separated by
// spaces. docs/scenarios.md lists the figures.

// CompareFigures lists the per-model figures a compare clause can read, in
// documentation order.
var CompareFigures = []string{
	"rps", "p50_us", "p99_us", "p999_us", "errors",
	"accept_p99_us", "accept_loops", "busy_max", "served_loops", "stalled_loops",
	"capacity_rps", "worst_window_p99_us",
}

// CompareClause is one parsed compare clause.
type CompareClause struct {
	Text        string
	left, right compareSide
	op          op
}

type compareSide struct {
	factor float64 // the multiplier; the literal itself when model is ""
	model  string
	figure string
}

// CompareResolver returns a model's figure; ok is false when that model
// was not run.
type CompareResolver func(model, figure string) (v float64, ok bool)

// ParseCompare parses one compare clause.
func ParseCompare(text string) (*CompareClause, *ExpectError) {
	toks, offs := splitFields(text)
	opAt := slices.IndexFunc(toks, func(t string) bool { return slices.Contains(opText[:], t) })
	if opAt < 0 {
		return nil, &ExpectError{Offset: len(text), Msg: "a compare clause needs an operator (== != < <= > >=) between spaces, as in single.p99_us >= 5 * multi.p99_us"}
	}
	c := &CompareClause{Text: text, op: op(slices.Index(opText[:], toks[opAt]))}
	var err *ExpectError
	if c.left, err = parseSide(toks[:opAt], offs[:opAt], 0); err != nil {
		return nil, err
	}
	end := len(text)
	if c.right, err = parseSide(toks[opAt+1:], offs[opAt+1:], end); err != nil {
		return nil, err
	}
	if c.left.model == "" && c.right.model == "" {
		return nil, &ExpectError{Offset: 0, Msg: "a compare clause must read a model's figure on at least one side"}
	}
	return c, nil
}

// splitFields splits on spaces and returns each field's offset.
func splitFields(s string) (toks []string, offs []int) {
	i := 0
	for _, f := range strings.Fields(s) {
		j := strings.Index(s[i:], f) + i
		toks, offs = append(toks, f), append(offs, j)
		i = j + len(f)
	}
	return toks, offs
}

func parseSide(toks []string, offs []int, end int) (compareSide, *ExpectError) {
	at := func(i int) int {
		if i < len(offs) {
			return offs[i]
		}
		if len(offs) > 0 {
			return offs[len(offs)-1] + len(toks[len(toks)-1])
		}
		return end
	}
	switch len(toks) {
	case 1:
		if f, err := strconv.ParseFloat(toks[0], 64); err == nil {
			return compareSide{factor: f}, nil
		}
		return parseFigure(toks[0], offs[0], 1)
	case 3:
		f, err := strconv.ParseFloat(toks[0], 64)
		if err != nil || f <= 0 {
			return compareSide{}, &ExpectError{Offset: offs[0], Msg: "want a positive factor before *, got " + strconv.Quote(toks[0])}
		}
		if toks[1] != "*" {
			return compareSide{}, &ExpectError{Offset: offs[1], Msg: "want * between a factor and a figure, got " + strconv.Quote(toks[1])}
		}
		return parseFigure(toks[2], offs[2], f)
	}
	return compareSide{}, &ExpectError{Offset: at(0), Msg: "want a number, MODEL.FIGURE or FACTOR * MODEL.FIGURE on each side of the operator"}
}

func parseFigure(tok string, off int, factor float64) (compareSide, *ExpectError) {
	model, figure, ok := strings.Cut(tok, ".")
	if !ok || !slices.Contains(models, model) {
		return compareSide{}, &ExpectError{Offset: off, Msg: "want MODEL.FIGURE with MODEL one of " + oneOf(models) + ", got " + strconv.Quote(tok)}
	}
	if !slices.Contains(CompareFigures, figure) {
		return compareSide{}, &ExpectError{Offset: off + len(model) + 1,
			Msg: "unknown figure " + strconv.Quote(figure) + "; the figures are " + oneOf(CompareFigures) + didYouMean(figure, CompareFigures)}
	}
	return compareSide{factor: factor, model: model, figure: figure}, nil
}

// Eval checks the clause. A clause that reads a model that was not run
// (compare --models) is reported as skipped, not failed.
func (c *CompareClause) Eval(get CompareResolver) Result {
	res := Result{Expr: c.Text}
	l, lok := c.left.value(get, &res)
	r, rok := c.right.value(get, &res)
	if !lok || !rok {
		res.OK, res.Reason = true, "skipped: a model it reads was not run"
		return res
	}
	res.OK = c.op.holds(cmp.Compare(l, r))
	if !res.OK {
		res.Reason = strconv.FormatFloat(l, 'g', 4, 64) + " " + c.op.String() + " " + strconv.FormatFloat(r, 'g', 4, 64) + " does not hold"
	}
	return res
}

func (s compareSide) value(get CompareResolver, res *Result) (float64, bool) {
	if s.model == "" {
		return s.factor, true
	}
	v, ok := get(s.model, s.figure)
	if ok {
		res.Observed = append(res.Observed, Observation{Path: s.model + "." + s.figure, Value: FloatValue(v)})
	}
	return s.factor * v, ok
}
