package model

import (
	"strings"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// LogCap is how many recent events the live log keeps.
const LogCap = 5000

// eventLog is a ring of the latest events.
type eventLog struct {
	buf  []trace.Event
	next int
	n    int
}

func newEventLog(capacity int) *eventLog {
	return &eventLog{buf: make([]trace.Event, max(capacity, 1))}
}

func (g *eventLog) add(batch []trace.Event) {
	for i := range batch {
		g.buf[g.next] = batch[i]
		g.next = (g.next + 1) % len(g.buf)
		g.n = min(g.n+1, len(g.buf))
	}
}

// tail returns up to n of the latest events that keep accepts, oldest first.
func (g *eventLog) tail(n int, keep func(*trace.Event) bool) []trace.Event {
	if n <= 0 {
		return nil
	}
	out := make([]trace.Event, 0, min(n, g.n))
	for i := 0; i < g.n && len(out) < n; i++ {
		e := &g.buf[(g.next-1-i+2*len(g.buf))%len(g.buf)]
		if keep(e) {
			out = append(out, *e)
		}
	}
	reverse(out)
	return out
}

func reverse(es []trace.Event) {
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
}

// Filter selects log events by loop and kind. Its text is a list of words:
// "loop:NAME" and "kind:NAME" match by substring; a bare word is a kind
// word if it is part of some kind's name ("wakeup", "task", "select"),
// else a loop word ("worker-1", "boss"). An event passes when it matches
// any loop word (or there is none) and any kind word (or there is none).
type Filter struct {
	text  string
	loops []string
	kinds []string
}

// ParseFilter reads a filter typed by the user. It never fails: an empty
// text matches everything.
func ParseFilter(text string) Filter {
	f := Filter{text: strings.TrimSpace(text)}
	for _, w := range strings.Fields(strings.ToLower(f.text)) {
		switch {
		case strings.HasPrefix(w, "loop:"):
			f.loops = append(f.loops, strings.TrimPrefix(w, "loop:"))
		case strings.HasPrefix(w, "kind:"):
			f.kinds = append(f.kinds, strings.TrimPrefix(w, "kind:"))
		case isKindWord(w):
			f.kinds = append(f.kinds, w)
		default:
			f.loops = append(f.loops, w)
		}
	}
	return f
}

func isKindWord(w string) bool {
	for _, k := range trace.Kinds() {
		if strings.Contains(k.String(), w) {
			return true
		}
	}
	return false
}

// String returns the filter as typed.
func (f Filter) String() string { return f.text }

// Empty reports whether the filter lets everything through.
func (f Filter) Empty() bool { return len(f.loops) == 0 && len(f.kinds) == 0 }

// matcher compiles the filter against a loop name table into two masks, so
// testing an event is two slice loads.
type matcher struct {
	all   bool
	loops []bool // by loop index; beyond the table, unknownLoop
	kinds [trace.NumKinds]bool
	other bool // whether a loop not in the table passes
}

func (f Filter) compile(names []string) *matcher {
	m := &matcher{all: f.Empty()}
	if m.all {
		return m
	}
	m.loops = make([]bool, len(names))
	for i, n := range names {
		m.loops[i] = matchAny(strings.ToLower(n), f.loops)
	}
	m.other = len(f.loops) == 0
	for _, k := range trace.Kinds() {
		m.kinds[k] = matchAny(k.String(), f.kinds)
	}
	return m
}

func matchAny(s string, words []string) bool {
	if len(words) == 0 {
		return true
	}
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func (m *matcher) match(e *trace.Event) bool {
	if m.all {
		return true
	}
	if int(e.Kind) >= len(m.kinds) || !m.kinds[e.Kind] {
		return false
	}
	if int(e.Loop) < len(m.loops) {
		return m.loops[e.Loop]
	}
	return m.other
}

// Match reports whether an event of the named loop passes the filter.
func (f Filter) Match(loop string, k trace.Kind) bool {
	if f.Empty() {
		return true
	}
	return matchAny(strings.ToLower(loop), f.loops) && matchAny(k.String(), f.kinds)
}
