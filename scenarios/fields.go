package scenarios

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// kind is how a field's value is read.
type kind int

const (
	kInt      kind = iota + 1 // a whole number in lo..hi
	kBool                     // true or false
	kStr                      // a string of at most hi characters
	kEnum                     // one of enum
	kDuration                 // a duration in lo..hi
	kSize                     // a size in bytes, lo..hi
	kRate                     // max or a rate per second
	kFraction                 // a number from 0 to 1
	kList                     // a list of at most hi entries, read by its own code
	kMap                      // a mapping with a table of its own
)

// spec is what a field's table row says of it, apart from where its value
// goes: the key, how it is read and its range, the documented default and
// a line of doc. docs/scenarios.md and `reactorviz show -h` list the same
// rows (TestDocsListFields).
type spec struct {
	key    string
	name   string // in messages, when not the key
	kind   kind
	lo, hi int64 // kDuration in ns
	enum   []string
	def    string // the default, as the docs write it; "" when none
	doc    string
	// topo marks a setting that decides which loops exist: when its value
	// is bad, loop names are not checked against a guess.
	topo bool
	// need, when set, makes the field required: WHAT need, as in "pause
	// needs loop: (...)".
	need string
	// own marks a field its section reads itself, in an order of its own.
	own bool
	// get reads the field back from a decoded scenario, for a field that
	// conditions and captions may name by its --set path (configKeys).
	get func(*Scenario) value
}

// A field is one row of a mapping's table: its spec and where a value that
// read well goes. set may check it against fields read before it.
type field[T any] struct {
	spec
	set func(d *decoder, t T, v value)
}

// value is a field's value as read, with its node for messages.
type value struct {
	n    *yaml.Node
	i    int
	d    time.Duration
	s    string
	b    bool
	f    float64
	rate Rate
}

func num[T any](key string, lo, hi int, def, doc string, set func(d *decoder, t T, v value)) field[T] {
	return field[T]{spec{key: key, kind: kInt, lo: int64(lo), hi: int64(hi), def: def, doc: doc}, set}
}

func dur[T any](key string, lo, hi time.Duration, def, doc string, set func(d *decoder, t T, v value)) field[T] {
	return field[T]{spec{key: key, kind: kDuration, lo: int64(lo), hi: int64(hi), def: def, doc: doc}, set}
}

func sized[T any](key string, lo, hi int, def, doc string, set func(d *decoder, t T, v value)) field[T] {
	return field[T]{spec{key: key, kind: kSize, lo: int64(lo), hi: int64(hi), def: def, doc: doc}, set}
}

func oneof[T any](key string, options []string, def, doc string, set func(d *decoder, t T, v value)) field[T] {
	return field[T]{spec{key: key, kind: kEnum, enum: options, def: def, doc: doc}, set}
}

func of[T any](key string, k kind, hi int, def, doc string, set func(d *decoder, t T, v value)) field[T] {
	return field[T]{spec{key: key, kind: k, hi: int64(hi), def: def, doc: doc}, set}
}

func keysOf[T any](fields []field[T]) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

func specsOf[T any](fields []field[T]) []spec {
	out := make([]spec, len(fields))
	for i, f := range fields {
		out[i] = f.spec
	}
	return out
}

// fields is the one walker: it checks that n is a mapping of the table's
// keys, then reads each field present, in table order, and sets those that
// read well. The mapping it returns remembers which values were bad, for
// checks across fields.
func fields[T any](d *decoder, n *yaml.Node, what, prefix string, table []field[T], t T) *mapping {
	m := d.mapping(n, what, keysOf(table))
	if m != nil {
		walk(d, m, what, prefix, table, t)
	}
	return m
}

// walk reads the table's fields from a mapping already checked, naming
// each prefix+key in messages (or its spec's name), and reporting a
// required field that is missing as "WHAT need".
func walk[T any](d *decoder, m *mapping, what, prefix string, table []field[T], t T) {
	for _, f := range table {
		n := m.get(f.key)
		if n == nil {
			if f.need != "" {
				d.errorf(m.node, "%s %s", what, f.need)
			}
			continue
		}
		if f.own {
			continue
		}
		v, ok := d.read(&f.spec, n, prefix+cmp.Or(f.name, f.key))
		if !ok {
			m.bad[f.key] = true
			d.topologyBroken = d.topologyBroken || f.topo
			continue
		}
		if f.set != nil {
			f.set(d, t, v)
		}
	}
}

// read reads one value as its spec says.
func (d *decoder) read(f *spec, n *yaml.Node, name string) (value, bool) {
	v, ok := value{n: n}, false
	switch f.kind {
	case kInt:
		v.i, ok = d.integer(f, n, name)
	case kBool:
		v.b, ok = d.boolean(n, name)
	case kStr:
		v.s, ok = d.str(n, name, int(f.hi))
	case kEnum:
		v.s, ok = d.enum(n, name, f.enum)
	case kDuration:
		v.d, ok = measure(d, f, n, name, "a duration such as 2s or 500ms", parseDuration)
	case kSize:
		v.i, ok = measure(d, f, n, name, "a size such as 64B or 4KiB", parseSize)
	case kRate:
		v.rate, ok = d.rate(n, name)
	case kFraction:
		v.f, ok = d.fraction(n, name)
	default:
		ok = true // lists and mappings: the setter reads them
	}
	return v, ok
}

// mapping is a checked YAML mapping: known keys only, none twice.
type mapping struct {
	node *yaml.Node
	vals map[string]*yaml.Node
	keys map[string]*yaml.Node
	bad  map[string]bool // present, but its value did not read
}

func (m *mapping) get(key string) *yaml.Node {
	if m == nil {
		return nil
	}
	return m.vals[key]
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// mapping checks that n is a mapping whose keys are all in known. A null
// node (the key written with no value) counts as an empty mapping; any other
// non-mapping is reported and yields nil.
func (d *decoder) mapping(n *yaml.Node, what string, known []string) *mapping {
	m := &mapping{node: n, vals: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}, bad: map[string]bool{}}
	if n == nil || isNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, got %s", what, describe(n))
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "keys in %s must be names, got %s", what, describe(k))
			continue
		}
		if !slices.Contains(known, k.Value) {
			d.errorf(k, "unknown key %s in %s%s", clip(k.Value), what, didYouMean(k.Value, known))
			continue
		}
		if first, dup := m.keys[k.Value]; dup {
			if _, fromSet := d.origin[first]; fromSet || first.Line == 0 {
				d.errorf(k, "duplicate key %s", clip(k.Value))
			} else {
				d.errorf(k, "duplicate key %s (first at line %d)", clip(k.Value), first.Line)
			}
			continue
		}
		m.keys[k.Value], m.vals[k.Value] = k, v
	}
	return m
}

// list checks that n is a list of at most limit items. Null is empty.
func (d *decoder) list(n *yaml.Node, what string, limit int) []*yaml.Node {
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s must be a list, got %s", what, describe(n))
		return nil
	}
	if len(n.Content) > limit {
		d.errorf(n, "%s has %s; the limit is %d", what, plural(len(n.Content), "entry", "entries"), limit)
		return nil
	}
	return n.Content
}

func (d *decoder) scalar(n *yaml.Node, name, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, "%s must be %s, got %s", name, want, describe(n))
		return "", false
	}
	return n.Value, true
}

// str reads a string. On the command line every value is text, so a
// --set value of any scalar type counts as a string: --set summary=42.
func (d *decoder) str(n *yaml.Node, name string, limit int) (string, bool) {
	_, fromSet := d.origin[n]
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" && !(fromSet && !isNull(n)) {
		d.errorf(n, "%s must be a string, got %s", name, describe(n))
		return "", false
	}
	if r := []rune(n.Value); len(r) > limit {
		d.errorf(n, "%s is %d characters; the limit is %d", name, len(r), limit)
		return "", false
	}
	return n.Value, true
}

// bigInt matches a whole number too large for YAML's int, which YAML then
// reads as a float; it deserves a range message, not a type one.
var bigInt = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// integer reads a whole number in f's range.
func (d *decoder) integer(f *spec, n *yaml.Node, name string) (int, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && bigInt.MatchString(n.Value) {
		d.errorf(n, "%s must be %s, got %s", name, f.rangeText(), clip(n.Value))
		return 0, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.errorf(n, "%s must be a whole number, got %s", name, describe(n))
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v < f.lo || v > f.hi {
		d.errorf(n, "%s must be %s, got %s", name, f.rangeText(), clip(n.Value))
		return 0, false
	}
	return int(v), true
}

func (d *decoder) boolean(n *yaml.Node, name string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.errorf(n, "%s must be true or false, got %s", name, describe(n))
		return false, false
	}
	return strings.EqualFold(n.Value, "true"), true
}

// measure reads a quantity written with a unit, a duration or a size:
// parse turns the text into a value, which must lie in f's range.
func measure[T ~int | ~int64](d *decoder, f *spec, n *yaml.Node, name, want string, parse func(string) (T, error)) (T, bool) {
	s, ok := d.scalar(n, name, want)
	if !ok {
		return 0, false
	}
	v, err := parse(s)
	if err != nil {
		d.errorf(n, "%s must be %v, got %s", name, err, describe(n))
		return 0, false
	}
	if int64(v) < f.lo || int64(v) > f.hi {
		d.errorf(n, "%s must be %s, got %s", name, f.rangeText(), clip(s))
		return 0, false
	}
	return v, true
}

func (d *decoder) enum(n *yaml.Node, name string, options []string) (string, bool) {
	s, ok := d.scalar(n, name, "one of "+oneOf(options))
	if !ok {
		return "", false
	}
	if !slices.Contains(options, s) {
		d.errorf(n, "%s must be one of %s, got %s%s", name, oneOf(options), clip(s), didYouMean(s, options))
		return "", false
	}
	return s, true
}

func (d *decoder) rate(n *yaml.Node, name string) (Rate, bool) {
	r, ok := d.scalar(n, name, `"max" or a rate such as 200/s`)
	if !ok {
		return Rate{}, false
	}
	rate, err := parseRate(r)
	switch {
	case err != nil:
		d.errorf(n, "%s must be %v, got %s", name, err, describe(n))
	case r != "max" && (rate.PerSecond < 0.1 || rate.PerSecond > maxRatePerSec):
		d.errorf(n, "%s must be max or 0.1/s..%d/s, got %s", name, maxRatePerSec, clip(r))
	default:
		return rate, true
	}
	return Rate{}, false
}

// fraction reads a number from 0 to 1.
func (d *decoder) fraction(n *yaml.Node, name string) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") {
		d.errorf(n, "%s must be a number from 0 to 1, got %s", name, describe(n))
		return 0, false
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || f < 0 || f > 1 {
		d.errorf(n, "%s must be a number from 0 to 1, got %s", name, clip(n.Value))
		return 0, false
	}
	return f, true
}
