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

// lines returns up to n log lines of the latest events that keep accepts,
// oldest first, periodic ones folded (see pushOlder).
func (g *eventLog) lines(n int, keep func(*trace.Event) bool, name func(uint16) string) []LogLine {
	if n <= 0 {
		return nil
	}
	out := make([]LogLine, 0, min(n, g.n))
	for i := 0; i < g.n; i++ {
		e := &g.buf[(g.next-1-i+2*len(g.buf))%len(g.buf)]
		if !keep(e) {
			continue
		}
		if len(out) >= n && !folds(out, e) {
			break
		}
		out = pushOlder(out, e, name)
	}
	reverseLines(out)
	return out
}

// periodic reports whether an event kind is periodic noise: the wheel's
// tick every tickDuration, which would push a stepped loop's events off
// the log while everything else is paused.
func periodic(k trace.Kind) bool { return k == trace.KindWheelTick }

// pushOlder adds e, older than every line so far, to lines kept newest
// first. A periodic event next to another of its kind from the same loop
// only adds to that line's count: the log shows one line per run of them.
func pushOlder(lines []LogLine, e *trace.Event, name func(uint16) string) []LogLine {
	if folds(lines, e) {
		lines[len(lines)-1].Repeat++
		return lines
	}
	return append(lines, LogLine{Event: *e, Loop: name(e.Loop)})
}

// folds reports whether pushOlder would fold e into the oldest line.
func folds(lines []LogLine, e *trace.Event) bool {
	n := len(lines)
	return n > 0 && periodic(e.Kind) && lines[n-1].Event.Kind == e.Kind && lines[n-1].Event.Loop == e.Loop
}

func reverseLines(ls []LogLine) {
	for i, j := 0, len(ls)-1; i < j; i, j = i+1, j-1 {
		ls[i], ls[j] = ls[j], ls[i]
	}
}

// Filter selects log events by loop, kind and the words of their details.
// Its text is a list of words: "loop:NAME" and "kind:NAME" match by
// substring; a bare word is a kind word if it is part of some kind's name
// ("wakeup", "task", "select"), else a loop word if it is part of some
// loop's name ("worker-1", "boss"), else a detail word, matched in the
// event's description as the log shows it ("premature", "epoll",
// "fault=spurious"). An event passes when it matches any loop word (or
// there is none), any kind word (or there is none) and every detail word.
type Filter struct {
	text  string
	loops []string
	kinds []string
	bare  []string // neither kind nor prefixed: a loop word or a detail word
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
			f.bare = append(f.bare, w)
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
func (f Filter) Empty() bool { return len(f.loops) == 0 && len(f.kinds) == 0 && len(f.bare) == 0 }

// matcher compiles the filter against a loop name table into two masks, so
// testing an event is two slice loads; detail words, which need the
// event's description, are tested last and only on what the masks pass.
type matcher struct {
	all     bool
	loops   []bool // by loop index; beyond the table, unknownLoop
	kinds   [trace.NumKinds]bool
	other   bool     // whether a loop not in the table passes
	details []string // every one must be in the description
}

func (f Filter) compile(names []string) *matcher {
	m := &matcher{all: f.Empty()}
	if m.all {
		return m
	}
	loops := f.loops
	for _, w := range f.bare {
		if anyContains(names, w) {
			loops = append(loops, w)
		} else {
			m.details = append(m.details, w)
		}
	}
	m.loops = make([]bool, len(names))
	for i, n := range names {
		m.loops[i] = matchAny(strings.ToLower(n), loops)
	}
	m.other = len(loops) == 0
	for _, k := range trace.Kinds() {
		m.kinds[k] = matchAny(k.String(), f.kinds)
	}
	return m
}

// anyContains reports whether some name contains w, case aside.
func anyContains(names []string, w string) bool {
	for _, n := range names {
		if strings.Contains(strings.ToLower(n), w) {
			return true
		}
	}
	return false
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
		if !m.loops[e.Loop] {
			return false
		}
	} else if !m.other {
		return false
	}
	if len(m.details) == 0 {
		return true
	}
	d := strings.ToLower(Describe(e))
	for _, w := range m.details {
		if !strings.Contains(d, w) {
			return false
		}
	}
	return true
}
