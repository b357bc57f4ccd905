package scenarios

import (
	"strconv"
	"strings"

	"github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// Type is the type of a summary value an expectation can read.
type Type int

// Summary value types.
const (
	TypeInt    Type = iota + 1 // a count or a time in ns
	TypeFloat                  // a rate or a latency
	TypeString                 // a name
	TypeState                  // a loop state, ordered NOT_STARTED < ... < TERMINATED
	TypeBool
)

func (t Type) String() string {
	switch t {
	case TypeInt:
		return "integer"
	case TypeFloat:
		return "number"
	case TypeString:
		return "string"
	case TypeState:
		return "state"
	case TypeBool:
		return "boolean"
	}
	return "unknown type"
}

// Key describes one value of the run summary (docs/scenarios.md) that an
// expectation may name. The simulation must be able to resolve every key it
// reports; keys marked Extra go beyond the stable set of §6.
type Key struct {
	// Path is the dotted path. For loop keys it is the part after the loop
	// name ("rebuilds"); GROUP in "groups.GROUP.size" stands for a group name.
	Path   string
	Type   Type
	Doc    string
	Extra  bool     // not in the summary's stable set
	Values []string // the only strings a TypeString key can hold, if fixed
}

// states are a loop's lifecycle states in order (SingleThreadEventExecutor's
// ST_* constants).
// SUSPENDING and SUSPENDED are Netty 4.2's, for a loop of an auto-scaling
// group.
var states = []string{"NOT_STARTED", "SUSPENDING", "SUSPENDED", "STARTED", "SHUTTING_DOWN", "SHUTDOWN", "TERMINATED"}

// States returns a loop's lifecycle states in order, the names an
// expectation compares with: NOT_STARTED < SUSPENDING < SUSPENDED <
// STARTED < ... < TERMINATED.
func States() []string { return append([]string(nil), states...) }

// loopKeys are the per-loop entries of the summary's "loops" array: the
// loop's identity, every counter of counters.Table, and timers_fired.
var loopKeys = append(append([]Key{
	{Path: "name", Type: TypeString, Doc: "loop name, e.g. worker-0"},
	{Path: "group", Type: TypeString, Doc: "group the loop belongs to", Values: []string{GroupBoss, GroupWorker, GroupReactor, GroupClient}},
	{Path: "tid", Type: TypeInt, Doc: "Linux thread id; 0 if the loop never started"},
	{Path: "state", Type: TypeState, Doc: "final state: NOT_STARTED, SUSPENDING, SUSPENDED, STARTED, SHUTTING_DOWN, SHUTDOWN or TERMINATED"},
}, counterKeys()...),
	append([]Key{{Path: "timers_fired", Type: TypeInt, Extra: true, Doc: "scheduled tasks that fell due and ran"}},
		timeKeys()...)...,
)

// timeKeys are a live run's per-loop time split and client latency
// (loops[].time in the summary; a replayed summary has none).
func timeKeys() []Key {
	out := []Key{{Path: "time.select_ns", Type: TypeInt, Extra: true, Doc: "nanoseconds blocked in select over the run"}}
	for _, w := range []string{"run", "last_second"} {
		for _, p := range []string{"select", "io", "tasks"} {
			out = append(out, Key{Path: "time." + w + "." + p, Type: TypeFloat, Extra: true, Doc: "% of the " + w + " spent " + p})
		}
	}
	for _, w := range []string{"clients", "clients_last_second"} {
		out = append(out, Key{Path: "time." + w + ".requests", Type: TypeInt, Extra: true, Doc: "requests on the loop's channels"})
		for _, q := range []string{"p50", "p90", "p99", "p999", "max"} {
			out = append(out, Key{Path: "time." + w + ".latency_us." + q, Type: TypeFloat, Extra: true, Doc: q + " latency of the loop's clients, µs"})
		}
	}
	for _, q := range []string{"p50", "p90", "p99", "p999", "max"} {
		out = append(out, Key{Path: "clients_latency_us." + q, Type: TypeFloat, Extra: true, Doc: q + " latency of the clients of the loop's channels over the run, µs"})
	}
	for _, pre := range []string{"clients_latency_us.", "time.clients.latency_us."} {
		out = append(out,
			Key{Path: pre + "worst_window_p99", Type: TypeFloat, Extra: true, Doc: "the highest p99 the loop's clients saw in any 250ms window of the run, µs"},
			Key{Path: pre + "worst_window_at_ns", Type: TypeInt, Extra: true, Doc: "when that worst window began, ns since the run's start"})
	}
	return append(out,
		Key{Path: "cpu_ns", Type: TypeInt, Extra: true, Doc: "CPU time the loop's thread used (its schedstat)"},
		Key{Path: "cpu_wait_ns", Type: TypeInt, Extra: true, Doc: "time the loop's thread was ready to run but waited for a CPU: other work on the machine"},
		Key{Path: "cpu_ns_per_request", Type: TypeInt, Extra: true, Doc: "the loop thread's CPU per request its channels answered, ns: what a request costs, whatever the machine's load"},
		Key{Path: "cpu_ns_per_request_phase.io", Type: TypeInt, Extra: true, Doc: "the part of cpu_ns_per_request spent in the I/O phase, ns"},
		Key{Path: "cpu_ns_per_request_phase.tasks", Type: TypeInt, Extra: true, Doc: "the part of cpu_ns_per_request spent in the task phase, ns"},
	)
}

// counterKeys are the loop counters, named and described once, in
// counters.Table, for the summary's JSON and for expectations alike.
func counterKeys() []Key {
	var out []Key
	for _, c := range counters.Table() {
		out = append(out, Key{Path: c.Name, Type: TypeInt, Doc: c.Doc, Extra: c.Extra})
	}
	return out
}

// runKeys are the summary's values outside the "loops" array.
var runKeys = []Key{
	{Path: "scenario", Type: TypeString, Doc: "scenario name"},
	{Path: "model", Type: TypeString, Doc: "Reactor model", Values: []string{string(ModelSingle), string(ModelMulti), string(ModelMasterSlave)}},
	{Path: "netty", Type: TypeString, Extra: true, Doc: "loop design", Values: []string{string(Netty4143), string(Netty41), string(Netty42)}},
	{Path: "duration_ns", Type: TypeInt, Doc: "run length"},
	{Path: "groups.GROUP.name", Type: TypeString, Doc: "group name"},
	{Path: "groups.GROUP.size", Type: TypeInt, Doc: "number of loops in the group"},
	{Path: "groups.GROUP.chooser", Type: TypeString, Doc: "chooser picked for the group's size", Values: []string{ChooserPowerOfTwo, ChooserGeneric}},
	{Path: "clients.connections", Type: TypeInt, Doc: "client connections opened"},
	{Path: "clients.requests", Type: TypeInt, Doc: "requests answered"},
	{Path: "clients.errors", Type: TypeInt, Doc: "connection errors and wrong answers"},
	{Path: "clients.bytes_verified", Type: TypeInt, Doc: "response bytes checked against what was sent"},
	{Path: "clients.throughput_rps", Type: TypeFloat, Doc: "requests per second over the run"},
	{Path: "clients.latency_us.p50", Type: TypeFloat, Doc: "median request latency, µs"},
	{Path: "clients.latency_us.p90", Type: TypeFloat, Doc: "90th percentile latency, µs"},
	{Path: "clients.latency_us.p99", Type: TypeFloat, Doc: "99th percentile latency, µs"},
	{Path: "clients.latency_us.max", Type: TypeFloat, Doc: "largest latency, µs"},
	{Path: "clients.latency_us.p999", Type: TypeFloat, Doc: "99.9th percentile latency, µs", Extra: true},
	{Path: "clients.latency_us.worst_window_p99", Type: TypeFloat, Doc: "the highest p99 in any 250ms window of the run, µs: a stall the run's p99 dilutes", Extra: true},
	{Path: "clients.latency_us.worst_window_at_ns", Type: TypeInt, Doc: "when that worst window began, ns since the run's start", Extra: true},
	{Path: "clients.accept_us.p50", Type: TypeFloat, Doc: "median accept latency: dial to registration on the serving loop, µs", Extra: true},
	{Path: "clients.accept_us.p90", Type: TypeFloat, Doc: "90th percentile accept latency, µs", Extra: true},
	{Path: "clients.accept_us.p99", Type: TypeFloat, Doc: "99th percentile accept latency, µs", Extra: true},
	{Path: "clients.accept_us.p999", Type: TypeFloat, Doc: "99.9th percentile accept latency, µs", Extra: true},
	{Path: "clients.accept_us.max", Type: TypeFloat, Doc: "largest accept latency, µs", Extra: true},
	{Path: "events.emitted", Type: TypeInt, Doc: "trace events emitted"},
	{Path: "events.dropped", Type: TypeInt, Doc: "trace events dropped because a ring was full"},
	{Path: "wheel.ticks", Type: TypeInt, Extra: true, Doc: "HashedWheelTimer ticks"},
	{Path: "wheel.expired", Type: TypeInt, Extra: true, Doc: "wheel timeouts that expired and ran"},
	{Path: "wheel.cancelled", Type: TypeInt, Extra: true, Doc: "wheel timeouts cancelled"},
	{Path: "wheel.pending", Type: TypeInt, Extra: true, Doc: "wheel timeouts still pending at the end"},
	{Path: "pool.size", Type: TypeInt, Extra: true, Doc: "business pool threads (0 if never used)"},
	{Path: "pool.tasks_run", Type: TypeInt, Extra: true, Doc: "handler calls run on the business pool"},
	{Path: "capacity_rps", Type: TypeFloat, Extra: true, Doc: "requests per second the model could serve with a core per loop: requests over the CPU seconds of its busiest loop (schedstat), whatever the machine's load"},
	{Path: "capacity_loop", Type: TypeString, Extra: true, Doc: "the loop whose CPU time bounds capacity_rps"},
}

// runRoots are the first path segments that are not loop names.
var runRoots = []string{"scenario", "model", "netty", "duration_ns", "groups", "clients", "events", "wheel", "pool", "capacity_rps", "capacity_loop"}

// LoopKeys returns the per-loop summary keys an expectation may name after a
// loop, as in worker-0.rebuilds.
func LoopKeys() []Key { return append([]Key(nil), loopKeys...) }

// RunKeys returns the summary keys outside the loops array, as in
// clients.errors or groups.GROUP.chooser.
func RunKeys() []Key { return append([]Key(nil), runKeys...) }

func findLoopKey(name string) (Key, bool) {
	for _, k := range loopKeys {
		if k.Path == name {
			return k, true
		}
	}
	return Key{}, false
}

// findRunKey looks up a non-loop path; a groups path matches its GROUP
// template whatever the group name.
func findRunKey(path string) (Key, bool) {
	if rest, ok := strings.CutPrefix(path, "groups."); ok {
		if i := strings.IndexByte(rest, '.'); i > 0 {
			path = "groups.GROUP" + rest[i:]
		}
	}
	for _, k := range runKeys {
		if k.Path == path {
			return k, true
		}
	}
	return Key{}, false
}

// runKeysUnder lists the full keys under a root, for "did you mean" hints.
func runKeysUnder(root string) []string {
	var out []string
	for _, k := range runKeys {
		if k.Path == root || strings.HasPrefix(k.Path, root+".") {
			out = append(out, k.Path)
		}
	}
	return out
}

func loopKeyNames() []string {
	out := make([]string, len(loopKeys))
	for i, k := range loopKeys {
		out[i] = k.Path
	}
	return out
}

func stateRank(s string) int {
	for i, st := range states {
		if st == s {
			return i
		}
	}
	return -1
}

// suggest returns the candidate closest to word when it is close enough to
// be a likely typo, so messages can say "did you mean rebuilds?".
func suggest(word string, candidates []string) string {
	// Allow about one edit per five characters: enough for "rebuildz" or
	// "clients.latency.p99", not enough to suggest a different word.
	best, bestDist := "", max(1, len(word)/5)+1
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean formats suggest's answer as a message suffix.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

// hint suggests a close match, or failing that lists the choices.
func hint(word string, candidates []string, intro string) string {
	if s := suggest(word, candidates); s != "" {
		return " (did you mean " + s + "?)"
	}
	return "; " + intro + " " + oneOf(candidates)
}

// plural formats a count with the right noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// oneOf formats a list of allowed words for a message.
func oneOf(words []string) string {
	return strings.Join(words, ", ")
}

// editDistance is the edit distance with adjacent transpositions (optimal
// string alignment), on bytes; keys are ASCII. A swapped pair, the commonest
// typo (io_ratoi), costs one edit, as a wrong letter does. Inputs are short
// (a key name, at most a few hundred bytes), so the O(n·m) table is cheap.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30
	}
	// Three rows: i-2 (for a transposition), i-1 and i.
	back, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], back[j-2]+1)
			}
		}
		back, prev, cur = prev, cur, back
	}
	return prev[len(b)]
}
