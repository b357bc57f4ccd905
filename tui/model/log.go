package model

import (
	"iter"
	"slices"
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
	if skip := len(batch) - len(g.buf); skip > 0 {
		// Only the newest len(buf) can stay: the older ones would be
		// overwritten within this call. Skip them where they would have
		// gone, so the ring stands as if each had been written.
		g.next = (g.next + skip) % len(g.buf)
		batch = batch[skip:]
	}
	// A copy per stretch up to the ring's end, not a division per event:
	// the collector adds every event the loops emit.
	for len(batch) > 0 {
		n := copy(g.buf[g.next:], batch)
		batch = batch[n:]
		g.next = (g.next + n) % len(g.buf)
		g.n = min(g.n+n, len(g.buf))
	}
}

// events returns the events the log holds, oldest first.
func (g *eventLog) events() eventRange {
	return eventRange{buf: g.buf, first: (g.next - g.n + len(g.buf)) % len(g.buf), n: g.n}
}

// eventRange is the events at hand, oldest first: at(i) for i in [0, n).
// A replay's are its trace's up to the current event, the live model's
// those its log still holds; both list and explain log lines by the same
// walk. A value with no function in it: a frame reads the log every time,
// and a closure here would cost it an allocation.
type eventRange struct {
	buf   []trace.Event // the live log's ring, or a replay's trace
	first int           // where in buf the oldest event is
	n     int
}

// eventsUpTo is events[:n] as an eventRange.
func eventsUpTo(events []trace.Event, n int) eventRange {
	return eventRange{buf: events, n: n}
}

// at returns event i, oldest first.
func (r eventRange) at(i int) *trace.Event {
	j := r.first + i
	if j >= len(r.buf) {
		j -= len(r.buf)
	}
	return &r.buf[j]
}

// before iterates the events before event i, newest first.
func (r eventRange) before(i int) iter.Seq[*trace.Event] {
	return func(yield func(*trace.Event) bool) {
		for j := i - 1; j >= 0; j-- {
			if !yield(r.at(j)) {
				return
			}
		}
	}
}

// from iterates the events from event i on, oldest first.
func (r eventRange) from(i int) iter.Seq[*trace.Event] {
	return func(yield func(*trace.Event) bool) {
		for j := i; j < r.n; j++ {
			if !yield(r.at(j)) {
				return
			}
		}
	}
}

// lines returns up to limit log lines of the latest events before event
// end that keep accepts, oldest first. It walks back while more (nil:
// always) holds of the event's position. A periodic event next to another
// of its kind from the same loop only adds to that line's count: the log
// shows one line per run of them. A line gets what its event alone does
// not say (explain), from the events around it; one an event was folded
// into keeps its own.
func (r eventRange) lines(limit, end int, keep func(*trace.Event) bool, more func(i int) bool, st *State) []LogLine {
	out := make([]LogLine, 0, max(min(limit, end), 0))
	for i := end - 1; i >= 0 && (more == nil || more(i)); i-- {
		e := r.at(i)
		if !keep(e) {
			continue
		}
		if folds(out, e) {
			out[len(out)-1].Repeat++
			continue
		}
		if len(out) >= limit {
			break
		}
		around := func() (older, newer iter.Seq[*trace.Event]) { return r.before(i), r.from(i + 1) }
		out = append(out, LogLine{Event: *e, Loop: st.LoopName(e.Loop), Why: explain(e, st, around)})
	}
	slices.Reverse(out)
	return out
}

// explain says what e alone does not: a select_end why its select
// returned (WhySelect, from the events around it, read only for it), an
// accept which loop the chooser dealt the channel to and how (ChooserPick).
func explain(e *trace.Event, st *State, around func() (older, newer iter.Seq[*trace.Event])) string {
	switch e.Kind {
	case trace.KindSelectEnd:
		older, newer := around()
		return WhySelect(e, older, newer)
	case trace.KindAccept:
		return st.ChooserPick(e)
	case trace.KindWakeup:
		return wakeupNote(e, st.LoopName(e.Loop))
	case trace.KindTaskSubmit:
		return submitNote(e, st.LoopName)
	}
	return lifeNote(e)
}

// lifeNote explains the events of a loop's life a learner meets once and
// must read right (C23, C25): the tail tasks after a batch, the start of
// a graceful shutdown and a submission refused after it.
func lifeNote(e *trace.Event) string {
	switch {
	case e.Kind == trace.KindTailTasks:
		return "after the batch: executeAfterEventLoopIteration's tasks, run once an iteration"
	case e.Kind == trace.KindState && trace.State(e.B) == trace.StateShuttingDown && e.D > 0:
		return "graceful shutdown: tasks still run until none came for " + Duration(e.D) +
			" (the quiet period), or " + Duration(max(e.E, e.D)) + " (the timeout) passed"
	case e.Kind == trace.KindState && trace.State(e.B) == trace.StateShuttingDown:
		return "graceful shutdown: tasks still run until none came for the quiet period, or the timeout"
	case e.Kind == trace.KindState && trace.State(e.B) == trace.StateShutdown:
		return "the quiet period passed with no task, or the timeout ran out: no more are taken"
	case e.Kind == trace.KindTaskReject:
		return "refused: the loop no longer takes tasks (RejectedExecutionException)"
	}
	return ""
}

// submitNote names the producer of a task (C13): the queue takes tasks
// from any thread, and only its loop runs them.
func submitNote(e *trace.Event, name func(uint16) string) string {
	t := TaskRef{External: e.Flag, Producer: e.C}
	switch from := producerName(&t, name); from {
	case "self":
		return "from the loop itself: no wakeup needed"
	case "outside":
		return "from a thread that is no loop"
	default:
		return "from " + from
	}
}

// wakeupNote tells the three kinds of wakeup apart (C11), as the loop's
// counters count them: another thread's eventfd write, one it did not
// need to make because a wakeup was already pending, and the loop's own.
func wakeupNote(e *trace.Event, loop string) string {
	switch {
	case e.Str == loop:
		return "its own write: wakenUp was still set after a select, so 4.1.43 wakes the selector again lest a wakeup be lost"
	case e.Flag:
		return "the eventfd written: the loop was asleep in select, or about to be"
	}
	return "no write: a wakeup was already pending, so this submit rides on it"
}

// full reports whether the log has dropped its oldest events.
func (g *eventLog) full() bool { return g.n == len(g.buf) }

// periodic reports whether an event kind is periodic noise: the wheel's
// tick every tickDuration, which would push a stepped loop's events off
// the log while everything else is paused.
func periodic(k trace.Kind) bool { return k == trace.KindWheelTick }

// folds reports whether e, older than every line of lines (kept newest
// first), only adds to the oldest line's count.
func folds(lines []LogLine, e *trace.Event) bool {
	n := len(lines)
	return n > 0 && periodic(e.Kind) && lines[n-1].Event.Kind == e.Kind && lines[n-1].Event.Loop == e.Loop
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
	return slices.ContainsFunc(trace.Kinds(), func(k trace.Kind) bool { return strings.Contains(k.String(), w) })
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
		if slices.ContainsFunc(names, func(n string) bool { return strings.Contains(strings.ToLower(n), w) }) {
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

// matchAny reports whether s contains any of words, or there is none.
func matchAny(s string, words []string) bool {
	return len(words) == 0 || slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
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

// match reports whether e is an event of the followed item: a task_*
// event with that id, or any event naming that channel.
func (q FollowQuery) match(e *trace.Event) bool {
	if q.Field == "id" && !strings.HasPrefix(e.Kind.String(), "task_") {
		return false
	}
	var buf [8]trace.Field
	for _, f := range e.Fields(buf[:0]) {
		if f.Name == q.Field && f.Type == trace.FieldInt && f.Int == q.ID {
			return true
		}
	}
	return false
}

// FollowOf returns the item an event is about, to follow: its task id or
// its channel; false when it names neither.
func FollowOf(e *trace.Event) (FollowQuery, bool) {
	var buf [8]trace.Field
	for _, f := range e.Fields(buf[:0]) {
		switch {
		case f.Name == "channel" && f.Type == trace.FieldInt:
			return FollowQuery{Field: "channel", ID: f.Int}, true
		case f.Name == "id" && f.Type == trace.FieldInt && strings.HasPrefix(e.Kind.String(), "task_"):
			return FollowQuery{Field: "id", ID: f.Int}, true
		}
	}
	return FollowQuery{}, false
}

// followPath walks events oldest first and returns, up to max, the
// followed item's events with what explains them. A task's submit is
// followed by the wakeup its loop got next (written, or the one it rode
// on), and its run is preceded by the tasks_begin of its batch (the
// queue it found and the budget) and the latest 64-task deadline check
// before it in that batch.
func (q FollowQuery) followPath(each iter.Seq[*trace.Event]) []*trace.Event {
	var out []*trace.Event
	type batch struct{ begin, check *trace.Event }
	batches := map[uint16]*batch{}
	wantWake := map[uint16]bool{}
	add := func(e *trace.Event) { out = append(out, e) }
	each(func(e *trace.Event) bool {
		b := batches[e.Loop]
		switch {
		case q.match(e):
			if e.Kind == trace.KindTaskRun && b != nil {
				if b.begin != nil {
					add(b.begin)
				}
				if b.check != nil {
					add(b.check)
				}
				*b = batch{} // each at most once
			}
			add(e)
			if e.Kind == trace.KindTaskSubmit {
				wantWake[e.Loop] = true
			}
		case q.Field != "id":
		case e.Kind == trace.KindWakeup && wantWake[e.Loop]:
			add(e)
			wantWake[e.Loop] = false
		case e.Kind == trace.KindTasksBegin:
			batches[e.Loop] = &batch{begin: e}
		case e.Kind == trace.KindDeadlineCheck && b != nil && b.begin != nil:
			b.check = e
		}
		return len(out) < q.Max
	})
	return out
}

func pathLines(path []*trace.Event, name func(uint16) string) []LogLine {
	out := make([]LogLine, len(path))
	for i, e := range path {
		out[i] = LogLine{Event: *e, Loop: name(e.Loop)}
	}
	return out
}
