package scenarios

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Parse reads a scenario file. filename is used in messages only. On
// failure the error is an *ErrorList holding every problem found, sorted by
// position; Parse never panics, whatever the input.
func Parse(filename string, data []byte) (*Scenario, error) {
	return parseWith(filename, data, nil, runtime.NumCPU())
}

// parseWith parses data, applies overrides in order, and decodes. Set and
// tests use it; keeping one path means an override is validated exactly as
// if it had been written in the file.
func parseWith(file string, data []byte, sets []setArg, cpus int) (*Scenario, error) {
	ps := &problems{}
	if !checkBytes(file, data, ps) || !checkSeparators(file, data, ps) {
		return nil, ps.err()
	}
	root := parseDocument(file, data, ps)
	if root == nil {
		return nil, ps.err()
	}
	if !checkTree(file, root, ps) {
		return nil, ps.err()
	}
	origin := map[*yaml.Node]string{}
	for _, a := range sets {
		applySet(root, a, origin, ps)
	}
	s := &Scenario{File: file, cpus: max(cpus, 1)}
	warn := &problems{}
	d := &decoder{file: file, src: data, ps: ps, warn: warn, origin: origin}
	d.scenario(root, s)
	if err := ps.err(); err != nil {
		return nil, err
	}
	sortProblems(warn.list)
	s.warnings = warn.list
	s.src = bytes.Clone(data) // Set re-parses it; the caller may reuse data
	s.sets = append([]setArg(nil), sets...)
	return s, nil
}

// Set overrides one field by its dotted YAML path, as --set key=value does:
// "loop.io_ratio", "server.reuseport", "clients.0.rate". The value is read as
// a YAML scalar (100 is a number, true a boolean, 2s a string); a value in
// [...] or {...} is read as a YAML flow list or mapping, so expect=[] clears
// the expectations. The whole scenario is validated again with the override
// in place; on failure s is unchanged and the *ErrorList names the --set
// argument, as in "--set loop.io_ratio=0: io_ratio must be 1..100, got 0".
func (s *Scenario) Set(key, value string) error {
	sets := append(append([]setArg(nil), s.sets...), setArg{key: key, value: value})
	n, err := parseWith(s.File, s.src, sets, s.cpus)
	if err != nil {
		return err
	}
	*s = *n
	return nil
}

// Limits on one override: keys are short dotted paths; values are scalars
// or small flow collections.
const (
	maxSetKey      = 128
	maxSetSegments = 8
	maxSetValue    = 4096
)

// applySet splices one override into the node tree, creating missing
// mapping keys on the way; the decoder then reports unknown keys and bad
// values at the new nodes, which origin maps back to the --set argument.
func applySet(root *yaml.Node, a setArg, origin map[*yaml.Node]string, ps *problems) {
	arg := "--set " + clipSet(a.key) + "=" + clipSet(a.value)
	fail := func(format string, args ...any) { ps.add(arg, Pos{}, format, args...) }
	if msg := checkSetText(a.key, maxSetKey); msg != "" {
		fail("key %s", msg)
		return
	}
	if msg := checkSetText(a.value, maxSetValue); msg != "" {
		fail("value %s", msg)
		return
	}
	segs := strings.Split(a.key, ".")
	if len(segs) > maxSetSegments {
		fail("key has more than %d parts", maxSetSegments)
		return
	}
	for _, seg := range segs {
		if seg == "" {
			fail("key must be a dotted path such as loop.io_ratio")
			return
		}
	}
	value, msg := setValueNode(a.value)
	if msg != "" {
		fail("%s", msg)
		return
	}
	mark(value, arg, origin)
	if root.Kind != yaml.MappingNode {
		fail("the scenario is not a mapping")
		return
	}
	cur := root
	for i, seg := range segs {
		last := i == len(segs)-1
		path := strings.Join(segs[:i+1], ".")
		switch cur.Kind {
		case yaml.MappingNode:
			idx := -1
			for j := 0; j+1 < len(cur.Content); j += 2 {
				if cur.Content[j].Kind == yaml.ScalarNode && cur.Content[j].Value == seg {
					idx = j + 1 // the last occurrence wins; the decoder reports duplicates
				}
			}
			if idx < 0 {
				k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
				origin[k] = arg
				next := value
				if !last {
					next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
					origin[next] = arg
				}
				cur.Content = append(cur.Content, k, next)
				cur = next
				continue
			}
			if last {
				cur.Content[idx] = value
				return
			}
			if isNull(cur.Content[idx]) {
				// "loop:" written with no value; give it a mapping to hold the key.
				m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				origin[m] = arg
				cur.Content[idx] = m
			}
			cur = cur.Content[idx]
		case yaml.SequenceNode:
			j, err := strconv.Atoi(seg)
			if err != nil || j < 0 || j >= len(cur.Content) {
				fail("%s has %s; %s is not an index (0..%d)", strings.Join(segs[:i], "."), plural(len(cur.Content), "entry", "entries"), clipSet(seg), len(cur.Content)-1)
				return
			}
			if last {
				cur.Content[j] = value
				return
			}
			cur = cur.Content[j]
		default:
			fail("%s is not a mapping or a list, so it has no %s", strings.Join(segs[:i], "."), path)
			return
		}
	}
}

// setValueNode builds the node an override value stands for.
func setValueNode(v string) (*yaml.Node, string) {
	t := strings.TrimSpace(v)
	if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
		ps := &problems{}
		if !checkSeparators("value", []byte(t), ps) {
			return nil, "value is too large"
		}
		n := parseDocument("value", []byte(t), ps)
		if n == nil || !checkTree("value", n, ps) {
			return nil, "value is not a valid YAML flow list or mapping"
		}
		return n, ""
	}
	if v == "" {
		// An empty value is an empty string, not YAML's null.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}, ""
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	n.Tag = n.ShortTag() // resolve 100, true, 2s as a plain YAML scalar would be
	return n, ""
}

// mark records every node of an override's subtree as coming from it.
func mark(n *yaml.Node, arg string, origin map[*yaml.Node]string) {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		origin[top] = arg
		stack = append(stack, top.Content...)
	}
}

func checkSetText(s string, limit int) string {
	if len(s) > limit {
		return "is longer than " + strconv.Itoa(limit) + " bytes"
	}
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	for i, r := range s {
		if !allowedRune(r, i+1) {
			return "contains control character " + strconv.QuoteRune(r)
		}
	}
	return ""
}

// clipSet shortens an override for use as the "file" of a problem. An
// override that is not valid UTF-8 is quoted first, so what is cut, and
// printed, is text.
func clipSet(s string) string {
	if !utf8.ValidString(s) {
		s = strconv.Quote(s)
	}
	return clipRunes(s, 60)
}
