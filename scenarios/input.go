package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits on untrusted input. A scenario is a few dozen lines; these bounds are
// orders of magnitude above any real file and keep a hostile one cheap to
// reject.
const (
	// MaxFileSize is the largest scenario file accepted, in bytes.
	MaxFileSize = 1 << 20
	// maxDepth bounds YAML nesting. The schema needs 5 levels (expect → if
	// entry → then → clause); deeper input is not a scenario.
	maxDepth = 16
	// maxNodes bounds the YAML node count, so that the validator's work and
	// the number of problems reported stay small. The largest built-in has
	// about 150 nodes.
	maxNodes = 10000
)

// tooLarge is the message for a file over MaxFileSize.
const tooLarge = "file is larger than 1 MiB, the limit for a scenario file"

// checkBytes rejects input that is not a small UTF-8 text file before the
// YAML parser sees it: the parser reports such problems without a position,
// and a binary file deserves one clear message, not a cascade.
func checkBytes(file string, data []byte, ps *problems) bool {
	if len(data) > MaxFileSize {
		ps.add(file, Pos{}, "%s", tooLarge)
		return false
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		pos := Pos{Line: line, Col: col}
		switch {
		case r == utf8.RuneError && n <= 1:
			ps.add(file, pos, "invalid UTF-8 (byte 0x%02x); scenario files are UTF-8 text", data[i])
			return false
		case r == 0:
			ps.add(file, pos, "NUL byte: this looks like a binary file, not a scenario")
			return false
		case !allowedRune(r, i):
			ps.add(file, pos, "control character %U is not allowed in a scenario file", r)
			return false
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return true
}

// allowedRune mirrors YAML's printable set: tab, line breaks and visible
// characters; a byte-order mark only at the very start.
func allowedRune(r rune, offset int) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20 || r == 0x7f:
		return false
	case r >= 0x80 && r <= 0x9f:
		return r == 0x85
	case r == 0xfeff:
		return offset == 0
	case r == 0xfffe || r == 0xffff:
		return false
	}
	return true
}

// syntaxLine matches the parser's "yaml: line N: message" errors.
var syntaxLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseDocument parses exactly one YAML document into a node tree. The tree
// is decoded into yaml.Node, never into Go values, so aliases are not
// expanded here; checkTree then refuses them outright.
func parseDocument(file string, data []byte, ps *problems) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			ps.add(file, Pos{}, "file is empty; a scenario needs at least a name")
			return nil
		}
		addSyntaxError(file, data, err, ps)
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		ps.add(file, Pos{Line: next.Line, Col: next.Column}, "a scenario file holds one YAML document; found a second one")
		return nil
	case !errors.Is(err, io.EOF):
		addSyntaxError(file, data, err, ps)
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		ps.add(file, Pos{Line: 1, Col: 1}, "file is empty; a scenario needs at least a name")
		return nil
	}
	return doc.Content[0]
}

// addSyntaxError turns a parser error into a positioned problem. The parser
// reports a line but no column, so the column points at the first non-blank
// character of that line, where the broken construct starts or continues.
func addSyntaxError(file string, data []byte, err error, ps *problems) {
	msg := err.Error()
	if m := syntaxLine.FindStringSubmatch(msg); m != nil {
		line, convErr := strconv.Atoi(m[1])
		if convErr == nil && line > 0 {
			col := firstColumn(data, line)
			ps.add(file, Pos{Line: line, Col: col}, "YAML syntax: %s%s", m[2], syntaxHint(data, line))
			return
		}
	}
	ps.add(file, Pos{Line: 1, Col: 1}, "YAML syntax: %s", strings.TrimPrefix(msg, "yaml: "))
}

// syntaxHint explains the two usual causes of a baffling syntax error: an
// unquoted value starting with * (YAML reads "*.state" as an alias) and a
// tab used for indentation.
func syntaxHint(data []byte, line int) string {
	raw := lineText(data, line)
	text := strings.TrimLeft(raw, " \t-")
	switch {
	case strings.HasPrefix(text, "*") || strings.Contains(text, ": *"):
		return " (a value that starts with * must be quoted: YAML reads it as an alias)"
	case strings.HasPrefix(strings.TrimLeft(raw, " "), "\t"):
		return " (YAML indents with spaces, not tabs)"
	}
	return ""
}

// lineText returns the 1-based line of data, without its newline.
func lineText(data []byte, line int) string {
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return ""
		}
		data = data[i+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return string(data)
}

// firstColumn returns the 1-based column of the first non-blank character
// on a 1-based line, or 1 when the line is blank or missing.
func firstColumn(data []byte, line int) int {
	col := 1
	for _, r := range lineText(data, line) {
		if r != ' ' && r != '\t' && r != 0xfeff {
			return col
		}
		col++
	}
	return 1
}

// checkTree refuses YAML features a scenario has no use for and that make
// hostile input expensive or ambiguous: anchors and aliases (the "billion
// laughs" expansion), explicit tags, and deep or huge trees. It walks
// iteratively and never follows an alias, so it is linear in the input.
// Each kind of problem is reported once, at its first occurrence, with a
// count of the others, so a hostile file yields a short message.
func checkTree(file string, root *yaml.Node, ps *problems) bool {
	type item struct {
		n     *yaml.Node
		depth int
	}
	type finding struct {
		pos   Pos
		msg   string
		count int
	}
	var found [4]*finding // alias, anchor, tag, depth
	note := func(kind int, n *yaml.Node, msg string) {
		if found[kind] == nil {
			found[kind] = &finding{pos: Pos{Line: n.Line, Col: n.Column}, msg: msg}
		}
		found[kind].count++
	}
	count := 0
	stack := []item{{root, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		count++
		if count > maxNodes {
			ps.add(file, Pos{Line: n.Line, Col: n.Column}, "more than %d YAML nodes; a scenario is much smaller", maxNodes)
			return false
		}
		if n.Kind == yaml.AliasNode {
			note(0, n, fmt.Sprintf("YAML aliases (*%s) are not supported; quote a value that starts with *", clip(n.Value)))
			continue
		}
		if n.Anchor != "" {
			note(1, n, fmt.Sprintf("YAML anchors (&%s) are not supported", clip(n.Anchor)))
		}
		if n.Style&yaml.TaggedStyle != 0 {
			note(2, n, fmt.Sprintf("explicit YAML tags (%s) are not supported", clip(n.Tag)))
		}
		if it.depth > maxDepth {
			note(3, n, fmt.Sprintf("nesting is deeper than %d levels", maxDepth))
			continue
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, item{n.Content[i], it.depth + 1})
		}
	}
	ok := true
	for _, f := range found {
		if f == nil {
			continue
		}
		ok = false
		if f.count > 1 {
			f.msg += fmt.Sprintf(" (%d more like this)", f.count-1)
		}
		ps.add(file, f.pos, "%s", f.msg)
	}
	return ok
}

// maxSeparators bounds the YAML structure characters in a file before it is
// parsed. The parser builds a node of a few hundred bytes per item, so a
// megabyte of "1,1,1,..." would cost well over 100 MB; every node but the
// root follows a comma, colon, dash, bracket, brace or line break, so
// counting them bounds the tree cheaply.
const maxSeparators = 4 * maxNodes

// checkSeparators rejects a file with more structure than any scenario has.
func checkSeparators(file string, data []byte, ps *problems) bool {
	n := 0
	line, col := 1, 1
	for _, b := range data {
		switch b {
		case ',', ':', '-', '[', '{', '?', '\n':
			n++
		}
		if n > maxSeparators {
			ps.add(file, Pos{Line: line, Col: col}, "more than %d YAML separators (line breaks, commas, colons, dashes) by here; a scenario is much smaller", maxSeparators)
			return false
		}
		if b == '\n' {
			line, col = line+1, 1
		} else if b&0xc0 != 0x80 { // count runes, not continuation bytes
			col++
		}
	}
	return true
}

// describe names a node's kind for "must be a ..., got ..." messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing"
		case "!!str":
			return fmt.Sprintf("%q", clip(n.Value))
		case "!!timestamp":
			return clip(n.Value) + " (YAML reads it as a date; quote it)"
		}
		return clip(n.Value)
	}
	return "something else"
}

// clip shortens a value quoted in a message.
func clip(s string) string { return clipRunes(s, 40) }

// clipRunes keeps the first limit runes of s. It counts runes, not bytes,
// so a cut never splits a character and never runs past the end.
func clipRunes(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}
