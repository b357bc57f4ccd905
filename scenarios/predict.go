package scenarios

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// A prediction asks the learner about a moment of the run before the run
// gets there (docs/scenarios.md, "predict"):
//
//	predict:
//	  - at: 1500ms
//	    question: How many connections will worker-1 have registered?
//	    answer: worker-1.registered
//	    why: The chooser deals in turn, so worker-1 has {worker-1.registered}.
//
// The answer is read from the run's figures at the moment, by the paths of
// the expectation language. Without choices it is one path or aggregate,
// and the learner types a number (or a word, for a state or a chooser).
// With choices the answer picks one: a word names it, a whole number k is
// the k-th, and a comparison (two choices only) picks the first when it
// holds and the second when it does not.

const (
	maxPredicts = 16
	maxChoices  = 6
	maxQuestion = 300
)

// Predict is one question of a scenario about the moment At.
type Predict struct {
	At       time.Duration
	Question string
	Choices  []string
	// Answer is the expression as written.
	Answer string
	// Why says why the answer is what it is, its figures filled from the
	// run at the moment, as a watch note's are.
	Why Caption

	val    *operand // a path or aggregate
	clause *Expect  // a comparison picking one of two choices
}

// Figure is what a prediction's answer reads from the run at its moment:
// the value (as text), the choice it picks (0 without choices, else
// 1..len(Choices)), and the figures read, as "worker-1.registered = 3".
type Figure struct {
	Value  string
	Choice int
	Read   []string
	ok     bool
	num    float64
	isNum  bool
	reason string
}

// OK reports whether the run had the figures the answer reads.
func (f Figure) OK() bool { return f.ok }

// Reason says why the figure could not be read.
func (f Figure) Reason() string { return f.reason }

// Figure reads the answer from r, the run's figures at the moment.
func (p *Predict) Figure(r Resolver) Figure {
	var f Figure
	var res Result
	var v Value
	switch {
	case r == nil:
		f.reason = "no figures"
		return f
	case p.clause != nil:
		res = p.clause.Eval(r)
		if res.Reason != "" && len(res.Observed) == 0 {
			f.reason = res.Reason
			return f
		}
		v = BoolValue(res.OK)
	case p.val != nil:
		var msg string
		v, _, msg = p.val.eval(r, "", &res, map[string]bool{})
		if msg != "" {
			f.reason = msg
			return f
		}
	default:
		f.reason = "no answer"
		return f
	}
	for _, o := range res.Observed {
		f.Read = append(f.Read, o.Path+" = "+valueText(o.Value))
	}
	f.Value, f.ok = valueText(v), true
	if v.numeric() {
		f.num, f.isNum = v.float(), true
	}
	if len(p.Choices) == 0 {
		return f
	}
	switch {
	case v.typ == TypeBool:
		f.Choice = 2
		if v.b {
			f.Choice = 1
		}
	case v.typ == TypeInt && v.i >= 1 && v.i <= int64(len(p.Choices)):
		f.Choice = int(v.i)
	default:
		for i, c := range p.Choices {
			if strings.EqualFold(c, f.Value) {
				f.Choice = i + 1
			}
		}
	}
	if f.Choice == 0 {
		f.ok, f.reason = false, "the answer "+f.Value+" picks none of the choices"
	} else {
		f.Value = p.Choices[f.Choice-1]
	}
	return f
}

// Check says whether the learner's answer, as typed, matches the figure: a
// choice by its number or its text; a number equal to the figure (a
// fraction within 5 % of it, or equal to one decimal); a word equal to it,
// case aside. ok is false when the text is not an answer at all (an empty
// line, a choice out of range), so the learner can be asked again.
func (p *Predict) Check(typed string, f Figure) (right, ok bool) {
	typed = strings.TrimSpace(typed)
	if typed == "" {
		return false, false
	}
	if len(p.Choices) > 0 {
		k := p.ChoiceOf(typed)
		if k == 0 {
			return false, false
		}
		return k == f.Choice, true
	}
	if f.isNum {
		x, err := strconv.ParseFloat(strings.ReplaceAll(typed, "_", ""), 64)
		if err != nil {
			return false, false
		}
		if f.num == math.Trunc(f.num) {
			return x == f.num, true
		}
		return math.Abs(x-f.num) <= 0.05*math.Abs(f.num) || valueText(FloatValue(x)) == f.Value, true
	}
	return strings.EqualFold(typed, f.Value), true
}

// ChoiceOf reads a typed choice, by number or by text: 1..len(Choices), or
// 0 when it names none.
func (p *Predict) ChoiceOf(typed string) int {
	typed = strings.TrimSpace(typed)
	if k, err := strconv.Atoi(typed); err == nil && k >= 1 && k <= len(p.Choices) {
		return k
	}
	for i, c := range p.Choices {
		if strings.EqualFold(c, typed) {
			return i + 1
		}
	}
	return 0
}

// operands are the paths and aggregates the answer reads.
func (p *Predict) operands() []*operand {
	switch {
	case p.val != nil:
		return []*operand{p.val}
	case p.clause != nil:
		var out []*operand
		for _, o := range []*operand{&p.clause.lhs, &p.clause.rhs} {
			if o.kind != operandLiteral {
				out = append(out, o)
			}
		}
		return out
	}
	return nil
}

// Points returns the loops and counters the answer reads, among names, for
// the screen to point at (a loop's row, its counter), as a caption's do.
func (p *Predict) Points(names []string) []Point { return points(p.operands(), names) }

// predictItem is a predict: item being read: the prediction, the check of
// its figures against the topology, and whether --set changed the run's
// length.
type predictItem struct {
	Predict
	check       func(o *operand) *ExpectError
	durationSet bool
}

// predictFields are a predict: item's fields, all required but choices,
// which answer reads. Unlike a watch note's, a figure that names a loop
// this topology lacks is an error, unless --set changed the topology (a
// learner's experiment should still run), and so is a moment after the
// run's end unless --set shortened the run.
var predictFields = []field[*predictItem]{
	{spec{key: "at", kind: kDuration, hi: int64(maxDuration), need: "needs at", doc: "the moment, at most the duration"},
		func(d *decoder, p *predictItem, v value) {
			if p.At = v.d; v.d > d.s.Duration {
				msg := "this moment, %s, is past the run's end at %s"
				if p.durationSet {
					d.warnf(v.n, msg, durationString(v.d), durationString(d.s.Duration))
				} else {
					d.errorf(v.n, msg, durationString(v.d), durationString(d.s.Duration))
				}
			}
		}},
	{spec{key: "question", kind: kStr, hi: maxQuestion, need: "needs question", doc: "plain text"}, func(_ *decoder, p *predictItem, v value) {
		p.Question = strings.Join(strings.Fields(v.s), " ")
	}},
	{spec{key: "choices", kind: kList, hi: maxChoices, doc: "what the learner picks from, by number or text"},
		func(d *decoder, p *predictItem, v value) {
			items := d.list(v.n, "choices", maxChoices)
			if len(items) == 1 {
				d.errorf(v.n, "choices needs two or more")
			}
			for _, it := range items {
				if c, ok := d.str(it, "a choice", maxName); ok {
					p.Choices = append(p.Choices, c)
				}
			}
		}},
	{spec{key: "answer", kind: kStr, hi: maxExpectLen, need: "needs answer", doc: "a path or aggregate of the run's figures, or a comparison with two choices"},
		func(d *decoder, p *predictItem, v value) { d.predictAnswer(v.n, v.s, &p.Predict, p.check) }},
	{spec{key: "why", kind: kStr, hi: maxCaption, need: "needs why", doc: "a caption template, filled from the run at the moment"},
		func(d *decoder, p *predictItem, v value) {
			strict := p.check
			if len(d.origin) > 0 {
				strict = nil // checked below, as warnings
			}
			parts, err := parseCaption(v.s, strict)
			if err != nil {
				f, pos := d.textPos(v.n, v.s, err.Offset)
				d.ps.add(f, pos, "%s", err.Msg)
				return
			}
			if strict == nil {
				d.checkCaptionLoops(v.n, v.s, parts, p.check)
			}
			p.Why = Caption{At: p.At, Text: strings.Join(strings.Fields(v.s), " "), parts: foldParts(parts)}
		}},
}

// predicts decodes the predict: items. Every item is kept: a problem in
// one fails the parse.
func (d *decoder) predicts(n *yaml.Node, durationNode *yaml.Node, s *Scenario) {
	_, durationSet := d.origin[durationNode]
	check := d.operandCheck(s)
	for _, item := range d.list(n, "predict", maxPredicts) {
		p := predictItem{check: check, durationSet: durationSet}
		if fields(d, item, "a predict item", "", predictFields, &p) != nil {
			s.Predict = append(s.Predict, p.Predict)
		}
	}
}

// predictAnswer parses an answer: a comparison when it holds one, else a
// path or aggregate, checked against the topology and the choices.
func (d *decoder) predictAnswer(a *yaml.Node, text string, p *Predict, check func(o *operand) *ExpectError) {
	fail := func(err *ExpectError) {
		f, pos := d.exprPos(a, err.Offset)
		d.ps.add(f, pos, "%s", err.Msg)
	}
	toks, err := lex(text)
	if err != nil {
		fail(asExpectError(err))
		return
	}
	isClause := false
	for _, t := range toks {
		isClause = isClause || t.kind == tokOp
	}
	if isClause {
		e, err := parseExpect(text)
		if err != nil {
			ee := asExpectError(err)
			ee.Msg = oneLine(ee.Msg)
			fail(ee)
			return
		}
		if len(p.Choices) != 2 {
			d.errorf(a, "a comparison as the answer picks one of two choices: the first when it holds, the second when not; give choices: with two")
			return
		}
		p.clause = e
	} else {
		part, err := parsePlaceholder(text)
		if err != nil {
			if err.Msg == "" || strings.HasPrefix(err.Msg, "a placeholder") {
				err.Msg = "an answer is one path or aggregate of the run's figures, as in worker-0.registered or sum(boss-*.accepted), or a comparison with two choices"
			}
			fail(err)
			return
		}
		if part.val == nil {
			fail(&ExpectError{Msg: "an answer reads the run's figures; " + text + " is a --set key, the same whatever happens"})
			return
		}
		p.val = part.val
		if len(p.Choices) > 0 {
			for _, v := range part.val.vals {
				if p.ChoiceOf(v) == 0 {
					d.errorf(a, "%s may be %s, which is none of the choices", text, v)
					return
				}
			}
		}
	}
	p.Answer = text
	for _, o := range p.operands() {
		if err := check(o); err != nil {
			f, pos := d.exprPos(a, err.Offset)
			if len(d.origin) > 0 {
				d.warn.add(f, pos, "%s", err.Msg)
				continue
			}
			d.ps.add(f, pos, "%s", err.Msg)
			return
		}
	}
}
