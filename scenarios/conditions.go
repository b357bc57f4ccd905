package scenarios

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A condition selects between two lists of expectations according to the
// scenario's own configuration, after --set overrides:
//
//	expect:
//	  - if: server.reuseport == true
//	    then: [boss-*.accepted > 0]
//	    else: [boss-1.state == NOT_STARTED]
//
// so a built-in keeps proving the right thing when a learner flips a knob.
// The grammar is KEY OP VALUE joined by &&, KEY being a --set path.

type configKind int

const (
	cfgInt configKind = iota
	cfgBool
	cfgEnum
	cfgDuration
	cfgSize
)

// configKey is one configuration value a condition can test.
type configKey struct {
	path  string
	kind  configKind
	enum  []string
	value func(*Scenario) int64 // numbers, durations in ns, sizes in bytes, bools as 0/1
	text  func(*Scenario) string
}

// configKeys are the fields of the decoder's tables that have a getter, by
// their --set paths, in table order.
var configKeys = tableConfigKeys()

func tableConfigKeys() []configKey {
	var out []configKey
	add := func(prefix string, specs []spec) {
		for _, f := range specs {
			if f.get == nil {
				continue
			}
			get, kind := f.get, map[kind]configKind{kInt: cfgInt, kBool: cfgBool, kEnum: cfgEnum, kDuration: cfgDuration, kSize: cfgSize}[f.kind]
			out = append(out, configKey{path: prefix + f.key, kind: kind, enum: f.enum,
				text: func(s *Scenario) string { return get(s).s },
				value: func(s *Scenario) int64 {
					v := get(s)
					if v.b {
						return 1
					}
					return int64(v.i) + int64(v.d)
				}})
		}
	}
	add("", specsOf(topFields))
	add("loop.", specsOf(loopFields))
	add("server.", specsOf(serverFields))
	add("wheel.", specsOf(wheelFields))
	add("shutdown.", specsOf(shutdownFields))
	return out
}

func configKeyPaths() []string {
	out := make([]string, len(configKeys))
	for i, k := range configKeys {
		out[i] = k.path
	}
	return out
}

var conditionPart = regexp.MustCompile(`^\s*([a-z_.]+)\s*(==|!=|<=|>=|<|>)\s*(\S+)\s*$`)

// maxConditionLen bounds an if: text.
const maxConditionLen = 256

// evalCondition parses and evaluates a condition against the decoded
// configuration. An error names the faulty part; the offset is in runes.
func evalCondition(text string, s *Scenario) (bool, *ExpectError) {
	if len([]rune(text)) > maxConditionLen {
		return false, &ExpectError{Msg: "condition is longer than " + strconv.Itoa(maxConditionLen) + " characters"}
	}
	result := true
	off := 0
	for _, part := range strings.Split(text, "&&") {
		ok, err := evalComparison(part, s)
		if err != nil {
			err.Offset = off + leadingSpace(part)
			return false, err
		}
		result = result && ok
		off += len([]rune(part)) + 2
	}
	return result, nil
}

func leadingSpace(s string) int {
	return len([]rune(s)) - len([]rune(strings.TrimLeft(s, " \t")))
}

func evalComparison(part string, s *Scenario) (bool, *ExpectError) {
	m := conditionPart.FindStringSubmatch(part)
	if m == nil {
		return false, &ExpectError{Msg: "a condition is KEY OP VALUE joined by &&, as in loop.selector == epoll; found " + strconv.Quote(strings.TrimSpace(part))}
	}
	path, opStr, lit := m[1], m[2], m[3]
	i := slices.IndexFunc(configKeys, func(k configKey) bool { return k.path == path })
	if i < 0 {
		return false, &ExpectError{Msg: "a condition cannot test " + path + hint(path, configKeyPaths(), "it can test")}
	}
	k := configKeys[i]
	o := op(slices.Index(opText[:], opStr))
	bad := func(want string) (bool, *ExpectError) {
		return false, &ExpectError{Msg: path + " takes " + want + ", not " + strconv.Quote(lit)}
	}
	switch k.kind {
	case cfgEnum:
		if o != opEq && o != opNe {
			return false, &ExpectError{Msg: "only == and != apply to " + path}
		}
		if !slices.Contains(k.enum, lit) {
			return bad("one of " + oneOf(k.enum))
		}
		return o.holds(strings.Compare(k.text(s), lit)), nil
	case cfgBool:
		if o != opEq && o != opNe {
			return false, &ExpectError{Msg: "only == and != apply to " + path}
		}
		if lit != "true" && lit != "false" {
			return bad("true or false")
		}
		want := int64(0)
		if lit == "true" {
			want = 1
		}
		return o.holds(cmp.Compare(k.value(s), want)), nil
	}
	var want int64
	switch k.kind {
	case cfgDuration:
		d, err := parseDuration(lit)
		if err != nil {
			return bad(err.Error())
		}
		want = int64(d)
	case cfgSize:
		n, err := parseSize(lit)
		if err != nil {
			return bad(err.Error())
		}
		want = int64(n)
	default:
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			return bad("a whole number")
		}
		want = n
	}
	return o.holds(cmp.Compare(k.value(s), want)), nil
}

// expects decodes the expect list: clauses, and if/then/else entries whose
// condition is decided now, against the configuration. Both branches are
// parsed and checked for names; only the chosen one must fit the topology.
func (d *decoder) expects(n *yaml.Node, s *Scenario) {
	groups := s.topology(minDefaultWorkers)
	loops := loopNames(groups)
	var groupNames []string
	for _, g := range groups {
		groupNames = append(groupNames, g.Name)
	}
	items := d.list(n, "expect", maxExpects)
	for _, item := range items {
		if item.Kind == yaml.MappingNode {
			d.conditional(item, s, loops, groupNames, groups)
			continue
		}
		if e := d.clause(item, s, loops, groupNames, groups, true); e != nil {
			s.Expect = append(s.Expect, e)
		}
	}
	if len(s.Expect) > maxExpects {
		d.errorf(n, "expect yields %d clauses; the limit is %d", len(s.Expect), maxExpects)
	}
}

// conditionalFields are a conditional expectation's fields, read in the
// order the condition needs.
var conditionalFields = []field[*Scenario]{
	{spec{key: "if", kind: kStr, hi: maxConditionLen, own: true, doc: "a condition on the configuration"}, nil},
	{spec{key: "then", kind: kList, hi: maxExpects, own: true, doc: "the expectations that hold when it is true"}, nil},
	{spec{key: "else", kind: kList, hi: maxExpects, own: true, doc: "the expectations that hold when it is false"}, nil},
}

func (d *decoder) conditional(item *yaml.Node, s *Scenario, loops, groupNames []string, groups []Group) {
	m := d.mapping(item, "a conditional expectation", keysOf(conditionalFields))
	if m == nil {
		return
	}
	cond := m.get("if")
	if cond == nil {
		d.errorf(item, "a mapping in expect needs if: (a condition on the configuration) and then: (a list)")
		return
	}
	if m.get("then") == nil {
		d.errorf(item, "this if: needs then: (the expectations that hold when it is true)")
	}
	v, ok := d.read(&conditionalFields[0].spec, cond, "if")
	if !ok {
		return
	}
	holds, err := evalCondition(v.s, s)
	if err != nil {
		f, p := d.exprPos(cond, err.Offset)
		d.ps.add(f, p, "%s", err.Msg)
		return
	}
	for _, branch := range conditionalFields[1:] {
		active := holds == (branch.key == "then")
		for _, c := range d.list(m.get(branch.key), branch.key, int(branch.hi)) {
			if e := d.clause(c, s, loops, groupNames, groups, active); e != nil && active {
				s.Expect = append(s.Expect, e)
			}
		}
	}
}

// clause parses one expectation. Loop and group names are checked only when
// the clause is active: the inactive branch of a conditional may well name
// loops that this configuration does not build.
func (d *decoder) clause(n *yaml.Node, s *Scenario, loops, groupNames []string, groups []Group, active bool) *Expect {
	text, ok := d.str(n, "an expectation", maxExpectLen)
	if !ok {
		return nil
	}
	e, err := ParseExpect(text)
	if err != nil {
		ee := asExpectError(err)
		f, p := d.exprPos(n, ee.Offset)
		d.ps.add(f, p, "%s", ee.Msg)
		return nil
	}
	if active && !d.topologyBroken {
		describeLoop := func(name string) string { return d.unknownLoop(name, s, groups) }
		if terr := e.checkTopology(loops, groupNames, describeLoop); terr != nil {
			f, p := d.exprPos(n, terr.Offset)
			d.ps.add(f, p, "%s", terr.Msg)
			return nil
		}
	}
	return e
}
