package scenarios

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// A caption's text is a template, so what it says is computed from the run
// it describes and never contradicts the screen (docs/scenarios.md):
//
//	{worker-0.wakeups_written}  a loop's counter or state, as of the moment shown
//	{sum(boss-*.accepted)}      sum, min, max or avg of a counter over loops
//	{groups.worker.size}        a group's size or chooser
//	{loop.io_ratio}             a configuration value after --set (the keys if: tests)
//	{{ and }}                   a literal brace
//
// and a watch entry may carry if: (the condition language of expect's
// if:) to choose between its text: and its else:, decided once the --set
// overrides are applied. The paths are expectation paths, parsed and
// checked by the same code.

// Caption is one "what to watch" note of a scenario, shown from At on.
type Caption struct {
	At time.Duration
	// Text is the template as written (the chosen branch of an if:),
	// whitespace folded.
	Text  string
	parts []captionPart
}

// captionPart is a literal run of text or one placeholder.
type captionPart struct {
	lit string
	val *operand   // a summary path or aggregate
	cfg *configKey // a configuration value
}

// Render fills the caption's placeholders from r: the counters of the
// moment shown (the UI's frame) or of a finished run (its summary). With a
// nil r, or for a value r lacks, a placeholder shows as "?".
func (c Caption) Render(r Resolver, s *Scenario) string {
	if c.parts == nil {
		return c.Text
	}
	var b strings.Builder
	for _, p := range c.parts {
		switch {
		case p.cfg != nil:
			b.WriteString(configText(*p.cfg, s))
		case p.val != nil:
			b.WriteString(placeholderText(p.val, r))
		default:
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// Placeholders returns the summary paths the caption shows, as written
// (worker-0.accepted, sum(boss-*.accepted)); configuration keys are left
// out. Tests check each against a finished run.
func (c Caption) Placeholders() []string {
	var out []string
	for _, p := range c.parts {
		if p.val != nil {
			out = append(out, p.val.text)
		}
	}
	return out
}

// Point is one figure a caption states: a loop among the names given and
// the summary key of its counter (worker-1.wakeups_written is worker-1,
// wakeups_written), for the screen to point at the events that count it.
type Point struct{ Loop, Key string }

// Points returns the caption's figures of loops among names, a Point per
// loop a placeholder reads, in the caption's order.
func (c Caption) Points(names []string) []Point {
	var ops []*operand
	for _, p := range c.parts {
		if p.val != nil {
			ops = append(ops, p.val)
		}
	}
	return points(ops, names)
}

// points returns a Point per loop among names that each operand reads, in
// order; a run key (clients.errors, groups.boss.chooser) points at none.
func points(ops []*operand, names []string) []Point {
	var out []Point
	for _, o := range ops {
		if o.loop == "" {
			continue
		}
		for _, n := range matchLoops(o.loop, names) {
			out = append(out, Point{Loop: n, Key: o.key})
		}
	}
	return out
}

// Resolve reads one placeholder path, as Placeholders returns it, from r.
func Resolve(path string, r Resolver) (Value, bool) {
	var o operand
	p := &exprParser{}
	toks, err := lex(path)
	if err != nil {
		return Value{}, false
	}
	p.toks = toks
	if p.operand(&o) != nil {
		return Value{}, false
	}
	var res Result
	v, _, msg := o.eval(r, "", &res, map[string]bool{})
	return v, msg == ""
}

func placeholderText(o *operand, r Resolver) string {
	if r == nil {
		return "?"
	}
	var res Result
	v, _, msg := o.eval(r, "", &res, map[string]bool{})
	if msg != "" {
		return "?"
	}
	return valueText(v)
}

// valueText is a figure as a caption shows it, and a prediction's verdict
// with it: a fraction to one decimal.
func valueText(v Value) string {
	if v.typ == TypeFloat {
		return strconv.FormatFloat(v.f, 'f', 1, 64)
	}
	return v.String()
}

func configText(k configKey, s *Scenario) string {
	if s == nil {
		return "?"
	}
	switch k.kind {
	case cfgEnum:
		return k.text(s)
	case cfgBool:
		return strconv.FormatBool(k.value(s) != 0)
	case cfgDuration:
		return durationString(time.Duration(k.value(s)))
	case cfgSize:
		return formatSize(int(k.value(s)))
	}
	return strconv.FormatInt(k.value(s), 10)
}

// captionRunKeys are the run keys a caption may show: the UI's frame knows
// the groups, not the clients' or the wheel's totals.
var captionRunKeys = []string{"groups.GROUP.size", "groups.GROUP.chooser"}

// parseCaption splits a template into parts. check validates one
// placeholder (its topology); errors carry the rune offset in text.
func parseCaption(text string, check func(o *operand) *ExpectError) ([]captionPart, *ExpectError) {
	var parts []captionPart
	var lit strings.Builder
	rs := []rune(text)
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, captionPart{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '}' {
			if i+1 < len(rs) && rs[i+1] == '}' {
				lit.WriteRune('}')
				i++
				continue
			}
			return nil, &ExpectError{Offset: i, Msg: "a } in a caption is written }}"}
		}
		if r != '{' {
			lit.WriteRune(r)
			continue
		}
		if i+1 < len(rs) && rs[i+1] == '{' {
			lit.WriteRune('{')
			i++
			continue
		}
		end := i + 1
		for end < len(rs) && rs[end] != '}' && rs[end] != '{' {
			end++
		}
		if end == len(rs) || rs[end] != '}' {
			return nil, &ExpectError{Offset: i, Msg: "this { has no closing }; a literal { is written {{"}
		}
		inner := string(rs[i+1 : end])
		p, err := parsePlaceholder(inner)
		if err == nil && p.val != nil && check != nil {
			err = check(p.val)
		}
		if err != nil {
			err.Offset += i + 1
			return nil, err
		}
		flush()
		parts = append(parts, p)
		i = end
	}
	flush()
	return parts, nil
}

// parsePlaceholder reads what is between { and }: a configuration key, or
// an expectation path or aggregate the UI can show.
func parsePlaceholder(inner string) (captionPart, *ExpectError) {
	word := strings.TrimSpace(inner)
	if word == "" || word != inner {
		return captionPart{}, &ExpectError{Msg: "a placeholder is {path} with no spaces, as in {worker-0.tasks_run}; a literal { is written {{"}
	}
	for i := range configKeys {
		if configKeys[i].path == word {
			return captionPart{cfg: &configKeys[i]}, nil
		}
	}
	toks, err := lex(word)
	if err != nil {
		return captionPart{}, asExpectError(err)
	}
	p := &exprParser{toks: toks}
	o := &operand{}
	if err := p.operand(o); err != nil {
		return captionPart{}, asExpectError(err)
	}
	if t := p.next(); t.kind != tokEOF {
		return captionPart{}, &ExpectError{Offset: t.off, Msg: "a placeholder holds one path; unexpected " + t.describe()}
	}
	switch {
	case o.kind == operandLiteral:
		return captionPart{}, &ExpectError{Msg: "a placeholder names a value of the run, as in {worker-0.tasks_run}, or a --set key such as {loop.io_ratio}; " + word + " is a constant"}
	case o.loop != "" && o.kind == operandPath && isPattern(o.loop):
		return captionPart{}, &ExpectError{Msg: "a pattern needs an aggregate in a caption, as in {sum(" + word + ")}"}
	case o.loop != "" && !captionLoopKey(o.key):
		return captionPart{}, &ExpectError{Offset: len([]rune(o.loop)) + 1, Msg: "a caption cannot show " + o.key + " (the screen has no such figure while the run goes on); it can show state, tid and the counters"}
	case o.loop == "" && !captionRunKey(o.key):
		return captionPart{}, &ExpectError{Msg: "a caption cannot show " + word + "; of the run keys it can show " + oneOf(captionRunKeys) + ", and the --set keys " + oneOf(configKeyPaths())}
	}
	return captionPart{val: o}, nil
}

func captionLoopKey(key string) bool {
	return key == "tid" || key == "state" || key == "name" || key == "group" ||
		!strings.HasPrefix(key, "time.") && key != "timers_fired"
}

func captionRunKey(path string) bool {
	if rest, ok := strings.CutPrefix(path, "groups."); ok {
		if i := strings.IndexByte(rest, '.'); i > 0 {
			path = "groups.GROUP" + rest[i:]
		}
	}
	for _, k := range captionRunKeys {
		if k == path {
			return true
		}
	}
	return false
}

// foldParts folds the whitespace of the literal parts as the caption's
// Text is folded: a folded YAML block keeps its line breaks' spaces.
func foldParts(parts []captionPart) []captionPart {
	for i := range parts {
		if parts[i].val != nil || parts[i].cfg != nil {
			continue
		}
		lit := strings.Join(strings.Fields(parts[i].lit), " ")
		if lit != "" && strings.TrimLeft(parts[i].lit, " \t\n") != parts[i].lit && i > 0 {
			lit = " " + lit
		}
		if lit != "" && strings.TrimRight(parts[i].lit, " \t\n") != parts[i].lit && i < len(parts)-1 {
			lit += " "
		}
		if lit == "" && parts[i].lit != "" && i > 0 && i < len(parts)-1 {
			lit = " "
		}
		parts[i].lit = lit
	}
	return parts
}

// watchEntry is a watch: entry being read: its caption, and whether its
// if: holds.
type watchEntry struct {
	Caption
	holds bool
}

// watchFields are a watch: entry's fields. text: and else: are read once
// the condition is known, and only the chosen one is checked against the
// topology.
var watchFields = []field[*watchEntry]{
	dur("at", 0, maxDuration, "0s", "shown from this time on", func(d *decoder, w *watchEntry, v value) {
		if w.At = v.d; v.d >= d.s.Duration {
			d.warnf(v.n, "this caption at %s is never shown: the run ends at %s", durationString(v.d), durationString(d.s.Duration))
		}
	}),
	of("if", kStr, maxConditionLen, "", "a condition on the configuration that picks text: or else:",
		func(d *decoder, w *watchEntry, v value) {
			var err *ExpectError
			if w.holds, err = evalCondition(v.s, d.s); err != nil {
				f, p := d.exprPos(v.n, err.Offset)
				d.ps.add(f, p, "%s", err.Msg)
			}
		}),
	{spec{key: "text", kind: kStr, hi: maxCaption, own: true, doc: "the caption, a template filled from the run"}, nil},
	{spec{key: "else", name: "text", kind: kStr, hi: maxCaption, own: true, doc: "the caption when if: does not hold"}, nil},
}

// watch decodes the captions: what to watch, each from a time in the run
// on, shown by the TUI's caption line and by show. A text is a template
// (caption.go); an if: picks text: or else: by the configuration.
func (d *decoder) watch(n *yaml.Node, s *Scenario) {
	check := d.operandCheck(s)
	for _, item := range d.list(n, "watch", maxWatch) {
		w := watchEntry{holds: true}
		m := fields(d, item, "a watch entry", "", watchFields, &w)
		if m == nil {
			continue
		}
		if e := m.get("else"); e != nil && m.get("if") == nil {
			d.errorf(e, "else: needs an if: (a condition on the configuration)")
		}
		t := m.get("text")
		if t == nil {
			d.errorf(item, "a watch entry needs text")
			continue
		}
		chosen := false
		for i, branch := range []*yaml.Node{t, m.get("else")} {
			if branch == nil {
				continue
			}
			v, ok := d.read(&watchFields[2+i].spec, branch, "text")
			if !ok {
				continue
			}
			parts, err := parseCaption(v.s, nil)
			if err != nil {
				f, p := d.textPos(branch, v.s, err.Offset)
				d.ps.add(f, p, "%s", err.Msg)
				continue
			}
			// A loop this topology lacks is a warning, not an error: a
			// learner's --set workers=1 or model=single (compare) should
			// still run, the caption showing "?" for it. As with expect's
			// if:, only the chosen text is checked.
			if w.holds == (branch == t) {
				d.checkCaptionLoops(branch, v.s, parts, check)
				w.Text, w.parts, chosen = strings.Join(strings.Fields(v.s), " "), foldParts(parts), true
			}
		}
		if chosen {
			s.Watch = append(s.Watch, w.Caption)
		}
	}
	slices.SortStableFunc(s.Watch, func(a, b Caption) int { return cmp.Compare(a.At, b.At) })
}
