package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// An expectation is one comparison over the run summary (docs/scenarios.md),
// checked when a headless run ends:
//
//	clause   = operand OP operand
//	OP       = "==" | "!=" | "<" | "<=" | ">" | ">="
//	operand  = number | string | STATE | true | false | path | agg "(" path ")"
//	path     = LOOP "." loop-key | run-key
//	agg      = "sum" | "min" | "max" | "avg"
//
// LOOP is a loop name (worker-0) or a pattern (worker-*, *). A pattern
// outside an aggregate makes the clause hold for every matching loop; when
// both sides use it, they are paired loop by loop, so
// "worker-*.wakeups_written < worker-*.tasks_submitted" checks each worker
// against itself. docs/scenarios.md has the full reference.

// maxExpectLen bounds a clause's text. Real clauses are under 80 characters.
const maxExpectLen = 256

// Value is one value of the run summary, as the simulation reports it.
type Value struct {
	typ Type
	i   int64
	f   float64
	s   string
	b   bool
}

// IntValue returns a counter or nanosecond value.
func IntValue(v int64) Value { return Value{typ: TypeInt, i: v} }

// FloatValue returns a rate or latency.
func FloatValue(v float64) Value { return Value{typ: TypeFloat, f: v} }

// StringValue returns a name or a state such as "NOT_STARTED".
func StringValue(v string) Value { return Value{typ: TypeString, s: v} }

// BoolValue returns a flag.
func BoolValue(v bool) Value { return Value{typ: TypeBool, b: v} }

// Type reports the value's type; states are reported as TypeString.
func (v Value) Type() Type { return v.typ }

// String formats the value for messages: numbers plainly, strings bare.
func (v Value) String() string {
	switch v.typ {
	case TypeInt:
		return strconv.FormatInt(v.i, 10)
	case TypeFloat:
		return strconv.FormatFloat(v.f, 'f', -1, 64)
	case TypeString, TypeState:
		return v.s
	case TypeBool:
		return strconv.FormatBool(v.b)
	}
	return "(none)"
}

// MarshalJSON writes the value as a JSON number, string or boolean; a NaN or
// infinite float, which JSON cannot carry, becomes null.
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.typ {
	case TypeInt:
		return strconv.AppendInt(nil, v.i, 10), nil
	case TypeFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return []byte("null"), nil
		}
		return strconv.AppendFloat(nil, v.f, 'f', -1, 64), nil
	case TypeString, TypeState:
		return jsonString(v.s), nil
	case TypeBool:
		return strconv.AppendBool(nil, v.b), nil
	}
	return []byte("null"), nil
}

func (v Value) numeric() bool { return v.typ == TypeInt || v.typ == TypeFloat }

func (v Value) float() float64 {
	if v.typ == TypeInt {
		return float64(v.i)
	}
	return v.f
}

// Resolver gives an expectation access to a finished run's summary. The
// simulation implements it.
type Resolver interface {
	// Lookup returns the value at a concrete path such as
	// "worker-0.rebuilds", "clients.errors" or "groups.worker.chooser".
	Lookup(path string) (Value, bool)
	// Loops returns the names of every loop of the run.
	Loops() []string
}

// Observation is one summary value an expectation read.
type Observation struct {
	Path  string // e.g. "worker-0.rebuilds" or "sum(worker-*.accepted)"
	Value Value
}

// Result is the outcome of one expectation, for the summary's "expect" array.
type Result struct {
	Expr     string
	OK       bool
	Observed []Observation
	Reason   string // why it failed; empty when OK
}

// MarshalJSON writes {"expr", "ok", "value"[, "reason"]}. "value" is the
// observed value when there is one, an object keyed by path when a pattern
// or both sides read several, and null when nothing could be read.
func (r Result) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	expr := jsonString(r.Expr)
	b.WriteString(`{"expr":`)
	b.Write(expr)
	b.WriteString(`,"ok":`)
	b.WriteString(strconv.FormatBool(r.OK))
	b.WriteString(`,"value":`)
	switch len(r.Observed) {
	case 0:
		b.WriteString("null")
	case 1:
		v, _ := r.Observed[0].Value.MarshalJSON()
		b.Write(v)
	default:
		b.WriteByte('{')
		for i, o := range r.Observed {
			if i > 0 {
				b.WriteByte(',')
			}
			k := jsonString(o.Path)
			v, _ := o.Value.MarshalJSON()
			b.Write(k)
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
	}
	if r.Reason != "" {
		reason := jsonString(r.Reason)
		b.WriteString(`,"reason":`)
		b.Write(reason)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonString encodes a string without HTML escaping, so "a >= 1" stays
// readable in --json output (an encoder with SetEscapeHTML(false) keeps it).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return []byte(`""`)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// op is a comparison operator.
type op int

const (
	opEq op = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var opText = [...]string{"==", "!=", "<", "<=", ">", ">="}

func (o op) String() string { return opText[o] }

// flip returns the operator with its operands swapped: 1 < x is x > 1.
func (o op) flip() op {
	switch o {
	case opLt:
		return opGt
	case opLe:
		return opGe
	case opGt:
		return opLt
	case opGe:
		return opLe
	}
	return o
}

func (o op) holds(c int) bool {
	switch o {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0
}

type operandKind int

const (
	operandLiteral operandKind = iota
	operandPath
	operandAgg
)

// operand is one side of a clause.
type operand struct {
	kind operandKind
	typ  Type   // static type, checked at parse time
	lit  Value  // literal value
	loop string // loop name or pattern; "" for run keys
	key  string // loop key ("rebuilds") or full run path ("clients.errors")
	agg  string // sum, min, max or avg
	text string // as written
	off  int    // rune offset in the clause, for messages
	vals []string
}

// concrete returns the summary path of a path operand for one loop.
func (o *operand) concrete(loop string) string {
	if o.loop == "" {
		return o.key
	}
	if o.kind == operandPath && isPattern(o.loop) {
		return loop + "." + o.key
	}
	return o.loop + "." + o.key
}

// Expect is one parsed expectation.
type Expect struct {
	Text string // the clause as written

	lhs, rhs operand
	op       op
	bind     string // the loop pattern the clause ranges over, or ""
}

// String returns the clause as written.
func (e *Expect) String() string { return e.Text }

// ExpectError is a malformed clause: what is wrong and where in the text.
type ExpectError struct {
	Offset int // 0-based rune offset in the clause
	Msg    string
}

func (e *ExpectError) Error() string {
	return "column " + strconv.Itoa(e.Offset+1) + ": " + e.Msg
}

// asExpectError is err as an ExpectError: itself, or its text at offset 0.
func asExpectError(err error) *ExpectError {
	if ee, ok := err.(*ExpectError); ok {
		return ee
	}
	return &ExpectError{Msg: err.Error()}
}

// ParseExpect parses and type-checks one clause. Counter and key names are
// checked here; whether a named loop or group exists depends on the
// scenario and is checked when the scenario is validated.
func ParseExpect(text string) (*Expect, error) {
	e, err := parseExpect(text)
	if err != nil {
		return nil, oneLineErr(err)
	}
	return e, nil
}

func parseExpect(text string) (*Expect, error) {
	if strings.TrimSpace(text) == "" {
		return nil, &ExpectError{Msg: "empty expectation"}
	}
	if n := len([]rune(text)); n > maxExpectLen {
		return nil, &ExpectError{Offset: maxExpectLen, Msg: "expectation is " + strconv.Itoa(n) + " characters; the limit is " + strconv.Itoa(maxExpectLen)}
	}
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks}
	e := &Expect{Text: text}
	if err := p.operand(&e.lhs); err != nil {
		return nil, err
	}
	t := p.next()
	if t.kind != tokOp {
		return nil, &ExpectError{Offset: t.off, Msg: "expected a comparison (==, !=, <, <=, >, >=) after " + e.lhs.text + ", found " + t.describe()}
	}
	e.op = op(slices.Index(opText[:], t.text))
	if err := p.operand(&e.rhs); err != nil {
		return nil, err
	}
	if t := p.next(); t.kind != tokEOF {
		return nil, &ExpectError{Offset: t.off, Msg: "unexpected " + t.describe() + " after the comparison"}
	}
	if err := e.check(); err != nil {
		return nil, err
	}
	return e, nil
}

// oneLineErr keeps ParseExpect's messages on one line whatever the clause
// quotes; see parseExpect.
func oneLineErr(err error) error {
	var ee *ExpectError
	if errors.As(err, &ee) {
		ee.Msg = oneLine(ee.Msg)
	}
	return err
}

// check applies the static rules: something to read, compatible types,
// operators that make sense for them, and one loop pattern per clause.
func (e *Expect) check() error {
	l, r := &e.lhs, &e.rhs
	if l.kind == operandLiteral && r.kind == operandLiteral {
		return &ExpectError{Offset: l.off, Msg: "compares two constants; one side must name a summary value"}
	}
	for _, o := range []*operand{l, r} {
		if o.kind == operandPath && isPattern(o.loop) {
			if e.bind != "" && e.bind != o.loop {
				return &ExpectError{Offset: o.off, Msg: "a clause ranges over one loop pattern; found " + e.bind + " and " + o.loop}
			}
			e.bind = o.loop
		}
	}
	lt, rt := l.typ, r.typ
	// A quoted state name on the other side of a state key is a state.
	if lt == TypeState && rt == TypeString && r.kind == operandLiteral && stateRank(r.lit.s) >= 0 {
		rt = TypeState
	}
	if rt == TypeState && lt == TypeString && l.kind == operandLiteral && stateRank(l.lit.s) >= 0 {
		lt = TypeState
	}
	numeric := func(t Type) bool { return t == TypeInt || t == TypeFloat }
	if !(numeric(lt) && numeric(rt)) && lt != rt {
		return &ExpectError{Offset: r.off, Msg: "cannot compare " + l.text + " (" + lt.String() + ") with " + r.text + " (" + rt.String() + ")"}
	}
	if (lt == TypeString || lt == TypeBool) && e.op != opEq && e.op != opNe {
		return &ExpectError{Offset: r.off, Msg: "only == and != apply to a " + lt.String()}
	}
	for _, pair := range [][2]*operand{{l, r}, {r, l}} {
		key, lit := pair[0], pair[1]
		if key.kind == operandPath && lit.kind == operandLiteral && len(key.vals) > 0 && !slices.Contains(key.vals, lit.lit.s) {
			return &ExpectError{Offset: lit.off, Msg: key.text + " is one of " + oneOf(key.vals) + "; " + lit.text + " never matches"}
		}
	}
	return nil
}

// checkTopology reports loops and groups the clause names that the scenario
// does not build. loops and groups are the names sure to exist.
func (e *Expect) checkTopology(loops, groups []string, describeLoops func(string) string) *ExpectError {
	for _, o := range []*operand{&e.lhs, &e.rhs} {
		switch {
		case o.kind == operandLiteral:
		case o.loop != "" && isPattern(o.loop):
			if len(matchLoops(o.loop, loops)) == 0 {
				return &ExpectError{Offset: o.off, Msg: "no loop matches " + o.loop + "; the loops are " + oneOf(loops)}
			}
		case o.loop != "":
			if !slices.Contains(loops, o.loop) {
				return &ExpectError{Offset: o.off, Msg: describeLoops(o.loop)}
			}
		case strings.HasPrefix(o.key, "groups."):
			g := strings.Split(o.key, ".")[1]
			if !slices.Contains(groups, g) {
				return &ExpectError{Offset: o.off + len("groups."), Msg: "no group " + g + " in this scenario; the groups are " + oneOf(groups)}
			}
		}
	}
	return nil
}

// Eval checks the clause against a finished run. It never fails: a value the
// summary lacks or a pattern that matches no loop makes the result not OK,
// with the reason.
func (e *Expect) Eval(r Resolver) Result {
	res := Result{Expr: e.Text}
	bound := []string{""}
	if e.bind != "" {
		bound = matchLoops(e.bind, r.Loops())
		if len(bound) == 0 {
			res.Reason = "no loop matches " + e.bind
			return res
		}
	}
	res.OK = true
	seen := map[string]bool{}
	for _, loop := range bound {
		lv, lp, err := e.lhs.eval(r, loop, &res, seen)
		if err == "" {
			var rv Value
			var rp string
			rv, rp, err = e.rhs.eval(r, loop, &res, seen)
			if err == "" {
				err = e.compare(lv, rv, lp, rp)
			}
		}
		if err != "" && res.OK {
			res.OK = false
			res.Reason = err
		}
	}
	return res
}

// eval reads an operand for one bound loop, recording what it read. It
// returns the value, the path read ("" for literals) and an error text.
func (o *operand) eval(r Resolver, loop string, res *Result, seen map[string]bool) (Value, string, string) {
	record := func(path string, v Value) {
		if !seen[path] {
			seen[path] = true
			res.Observed = append(res.Observed, Observation{Path: path, Value: v})
		}
	}
	switch o.kind {
	case operandLiteral:
		return o.lit, "", ""
	case operandPath:
		path := o.concrete(loop)
		v, ok := r.Lookup(path)
		if !ok {
			return Value{}, path, path + " is not in the run summary"
		}
		if msg := typeMismatch(path, v, o.typ); msg != "" {
			return Value{}, path, msg
		}
		record(path, v)
		return v, path, ""
	}
	loops := matchLoops(o.loop, r.Loops())
	if len(loops) == 0 {
		return Value{}, o.text, "no loop matches " + o.loop
	}
	var acc Value
	for i, l := range loops {
		path := l + "." + o.key
		v, ok := r.Lookup(path)
		if !ok {
			return Value{}, o.text, path + " is not in the run summary"
		}
		if msg := typeMismatch(path, v, o.typ); msg != "" {
			return Value{}, o.text, msg
		}
		if i == 0 {
			acc = v
			if o.agg == "avg" {
				acc = FloatValue(v.float())
			}
			continue
		}
		acc = aggregate(o.agg, acc, v)
	}
	if o.agg == "avg" {
		acc = FloatValue(acc.f / float64(len(loops)))
	}
	record(o.text, acc)
	return acc, o.text, ""
}

func aggregate(agg string, acc, v Value) Value {
	bothInt := acc.typ == TypeInt && v.typ == TypeInt
	switch agg {
	case "sum":
		if bothInt {
			return IntValue(acc.i + v.i)
		}
		return FloatValue(acc.float() + v.float())
	case "avg":
		return FloatValue(acc.f + v.float())
	case "min":
		if compareNumbers(v, acc) < 0 {
			return v
		}
	case "max":
		if compareNumbers(v, acc) > 0 {
			return v
		}
	}
	return acc
}

// typeMismatch checks a resolved value against the key's declared type, so
// a simulation bug reads as a failed expectation rather than a wrong verdict.
func typeMismatch(path string, v Value, want Type) string {
	switch want {
	case TypeInt, TypeFloat:
		if !v.numeric() {
			return path + " is " + strconv.Quote(v.String()) + ", not a number"
		}
	case TypeState:
		if v.typ != TypeString || stateRank(v.s) < 0 {
			return path + " is " + strconv.Quote(v.String()) + ", not a loop state"
		}
	case TypeString:
		if v.typ != TypeString {
			return path + " is " + v.String() + ", not a string"
		}
	case TypeBool:
		if v.typ != TypeBool {
			return path + " is " + v.String() + ", not a boolean"
		}
	}
	return ""
}

func compareNumbers(a, b Value) int {
	if a.typ == TypeInt && b.typ == TypeInt {
		switch {
		case a.i < b.i:
			return -1
		case a.i > b.i:
			return 1
		}
		return 0
	}
	x, y := a.float(), b.float()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	return 2 // NaN: no operator but != holds
}

// compare applies the operator and explains a failure in the user's terms.
func (e *Expect) compare(lv, rv Value, lp, rp string) string {
	var c int
	switch {
	case lv.numeric() && rv.numeric():
		c = compareNumbers(lv, rv)
	case e.lhs.typ == TypeState || e.rhs.typ == TypeState:
		c = stateRank(lv.s) - stateRank(rv.s)
	case lv.typ == TypeBool:
		c = 1
		if lv.b == rv.b {
			c = 0
		}
	default:
		c = strings.Compare(lv.s, rv.s)
	}
	ok := e.op.holds(c)
	if c == 2 {
		ok = e.op == opNe
	}
	if ok {
		return ""
	}
	switch {
	case rp == "":
		return lp + " is " + lv.String() + ", want " + e.op.String() + " " + e.rhs.text
	case lp == "":
		return rp + " is " + rv.String() + ", want " + e.op.flip().String() + " " + e.lhs.text
	}
	return lp + " is " + lv.String() + " and " + rp + " is " + rv.String() + ", want " + lp + " " + e.op.String() + " " + rp
}

// isPattern reports whether a loop reference is a pattern.
func isPattern(loop string) bool { return strings.ContainsAny(loop, "*?[") }

// Lexer.

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokNum
	tokStr
	tokOp
	tokLParen
	tokRParen
)

type token struct {
	kind tokKind
	text string // for tokStr, the unquoted value
	raw  string // as written
	off  int
}

func (t token) describe() string {
	if t.kind == tokEOF {
		return "the end"
	}
	return strconv.Quote(t.raw)
}

func isWordStart(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r == '*'
}

func isWordRune(r rune) bool {
	return isWordStart(r) || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '?'
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// lex splits a clause into tokens. It works on runes so offsets are columns.
func lex(text string) ([]token, error) {
	rs := []rune(text)
	var toks []token
	for i := 0; i < len(rs); {
		r := rs[i]
		start := i
		switch {
		case r == ' ' || r == '\t':
			i++
			continue
		case isWordStart(r):
			for i < len(rs) && isWordRune(rs[i]) {
				i++
			}
			toks = append(toks, token{kind: tokWord, text: string(rs[start:i]), raw: string(rs[start:i]), off: start})
		case isDigit(r) || (r == '-' || r == '.') && i+1 < len(rs) && isDigit(rs[i+1]) && operandExpected(toks):
			i++
			for i < len(rs) && (isDigit(rs[i]) || rs[i] == '.' || rs[i] == '_' || rs[i] == 'e' || rs[i] == 'E' ||
				(rs[i] == '+' || rs[i] == '-') && (rs[i-1] == 'e' || rs[i-1] == 'E')) {
				i++
			}
			if i < len(rs) && (isWordStart(rs[i]) || rs[i] == '-') {
				for i < len(rs) && isWordRune(rs[i]) {
					i++
				}
				return nil, &ExpectError{Offset: start, Msg: strconv.Quote(string(rs[start:i])) + " is not a number; units are not supported (write 2000000000, not 2s)"}
			}
			toks = append(toks, token{kind: tokNum, text: string(rs[start:i]), raw: string(rs[start:i]), off: start})
		case r == '"' || r == '\'':
			var b strings.Builder
			i++
			closed := false
			for i < len(rs) {
				c := rs[i]
				if c == r {
					closed = true
					i++
					break
				}
				if c == '\\' && r == '"' && i+1 < len(rs) {
					i++
					c = rs[i]
				}
				b.WriteRune(c)
				i++
			}
			if !closed {
				return nil, &ExpectError{Offset: start, Msg: "unterminated string"}
			}
			toks = append(toks, token{kind: tokStr, text: b.String(), raw: string(rs[start:i]), off: start})
		case r == '(':
			i++
			toks = append(toks, token{kind: tokLParen, raw: "(", off: start})
		case r == ')':
			i++
			toks = append(toks, token{kind: tokRParen, raw: ")", off: start})
		case strings.ContainsRune("=!<>", r):
			i++
			if i < len(rs) && rs[i] == '=' {
				i++
			}
			t := string(rs[start:i])
			if !slices.Contains(opText[:], t) {
				hint := ""
				if t == "=" {
					hint = " (use == to compare)"
				}
				return nil, &ExpectError{Offset: start, Msg: "unknown operator " + strconv.Quote(t) + hint}
			}
			toks = append(toks, token{kind: tokOp, text: t, raw: t, off: start})
		default:
			return nil, &ExpectError{Offset: start, Msg: "unexpected character " + strconv.QuoteRune(r)}
		}
	}
	return append(toks, token{kind: tokEOF, off: len(rs)}), nil
}

// operandExpected tells a leading minus sign (a negative number) from the
// dash inside a name: a number can only start where an operand can.
func operandExpected(toks []token) bool {
	return len(toks) == 0 || toks[len(toks)-1].kind == tokOp || toks[len(toks)-1].kind == tokLParen
}

// Parser.

type exprParser struct {
	toks []token
	pos  int
}

func (p *exprParser) next() token {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

func (p *exprParser) peek() token { return p.toks[p.pos] }

var aggregates = []string{"sum", "min", "max", "avg"}

func (p *exprParser) operand(o *operand) error {
	t := p.next()
	o.off, o.text = t.off, t.raw
	switch t.kind {
	case tokNum:
		return parseNumber(t, o)
	case tokStr:
		o.kind, o.typ, o.lit = operandLiteral, TypeString, StringValue(t.text)
		return nil
	case tokWord:
	default:
		return &ExpectError{Offset: t.off, Msg: "expected a value or a summary path, found " + t.describe()}
	}
	word := t.text
	if p.peek().kind == tokLParen {
		if !slices.Contains(aggregates, word) {
			return &ExpectError{Offset: t.off, Msg: "unknown function " + word + "; the functions are " + oneOf(aggregates)}
		}
		p.next()
		arg := p.next()
		if arg.kind != tokWord {
			return &ExpectError{Offset: arg.off, Msg: word + " needs a loop path such as worker-*.accepted, found " + arg.describe()}
		}
		if err := parsePath(arg, o); err != nil {
			return err
		}
		if o.loop == "" {
			return &ExpectError{Offset: arg.off, Msg: word + " aggregates over loops; " + arg.raw + " is not a loop path"}
		}
		if o.typ != TypeInt && o.typ != TypeFloat {
			return &ExpectError{Offset: arg.off, Msg: word + " needs a number; " + arg.raw + " is a " + o.typ.String()}
		}
		closing := p.next()
		if closing.kind != tokRParen {
			return &ExpectError{Offset: closing.off, Msg: "expected ) after " + arg.raw + ", found " + closing.describe()}
		}
		o.kind, o.agg = operandAgg, word
		o.text = word + "(" + arg.raw + ")"
		if word == "avg" {
			o.typ = TypeFloat
		}
		o.vals = nil
		return nil
	}
	switch {
	case word == "true" || word == "false":
		o.kind, o.typ, o.lit = operandLiteral, TypeBool, BoolValue(word == "true")
		return nil
	case allCaps.MatchString(word):
		if stateRank(word) < 0 {
			return &ExpectError{Offset: t.off, Msg: "unknown state " + word + "; the states are " + oneOf(states)}
		}
		o.kind, o.typ, o.lit = operandLiteral, TypeState, StringValue(word)
		return nil
	}
	return parsePath(t, o)
}

var allCaps = regexp.MustCompile(`^[A-Z][A-Z_]*$`)

func parseNumber(t token, o *operand) error {
	s := strings.ReplaceAll(t.text, "_", "")
	o.kind = operandLiteral
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		o.typ, o.lit = TypeInt, IntValue(i)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return &ExpectError{Offset: t.off, Msg: strconv.Quote(t.raw) + " is not a number"}
	}
	o.typ, o.lit = TypeFloat, FloatValue(f)
	return nil
}

// loopName matches a concrete loop name; patterns are checked separately.
var (
	loopName    = regexp.MustCompile(`^(boss|worker|reactor|client)-(0|[1-9][0-9]{0,3})$`)
	loopPattern = regexp.MustCompile(`^[a-z0-9*?-]+$`)
	groupName   = regexp.MustCompile(`^[a-z]+$`)
)

// parsePath resolves a word such as worker-0.rebuilds or clients.errors
// against the key tables.
func parsePath(t token, o *operand) error {
	word := t.text
	segs := strings.Split(word, ".")
	for i, s := range segs {
		if s == "" {
			return &ExpectError{Offset: t.off + segOffset(segs, i), Msg: "empty name in path " + strconv.Quote(word)}
		}
	}
	o.kind = operandPath
	root := segs[0]
	if slices.Contains(runRoots, root) {
		if root == "groups" && len(segs) >= 2 && !groupName.MatchString(segs[1]) {
			return &ExpectError{Offset: t.off + segOffset(segs, 1), Msg: "bad group name " + strconv.Quote(segs[1])}
		}
		k, ok := findRunKey(word)
		if !ok {
			under := runKeysUnder(root)
			if root == "groups" && len(segs) >= 2 {
				for i := range under {
					under[i] = strings.Replace(under[i], "GROUP", segs[1], 1)
				}
			}
			return &ExpectError{Offset: t.off, Msg: "unknown summary key " + word + hint(word, under, "under "+root+" there are")}
		}
		o.key, o.typ, o.vals = word, k.Type, k.Values
		return nil
	}
	switch {
	case isPattern(root):
		if !loopPattern.MatchString(root) {
			return &ExpectError{Offset: t.off, Msg: "bad loop pattern " + strconv.Quote(root) + "; use * as in worker-*"}
		}
	case len(segs) == 1 && !strings.Contains(root, "-"):
		return &ExpectError{Offset: t.off, Msg: "unknown name " + root + ": expected a number, a quoted string, a state such as STARTED, or a summary path such as worker-0.tasks_run"}
	case !loopName.MatchString(root):
		return &ExpectError{Offset: t.off, Msg: "unknown name " + root + ": expected a loop such as boss-0, worker-1, reactor-0 or client-0, or one of " + oneOf(runRoots)}
	}
	if len(segs) == 1 {
		return &ExpectError{Offset: t.off + len([]rune(word)), Msg: root + " needs a counter, as in " + root + ".tasks_run"}
	}
	key := strings.Join(segs[1:], ".")
	k, ok := findLoopKey(key)
	if !ok {
		return &ExpectError{Offset: t.off + segOffset(segs, 1), Msg: "unknown loop counter " + key + didYouMean(key, loopKeyNames())}
	}
	o.loop, o.key, o.typ, o.vals = root, key, k.Type, k.Values
	return nil
}

// segOffset is the rune offset of segment i within a dotted path.
func segOffset(segs []string, i int) int {
	off := 0
	for _, s := range segs[:i] {
		off += len([]rune(s)) + 1
	}
	return off
}
