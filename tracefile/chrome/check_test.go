package chrome

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// doc is a parsed Chrome trace, as a viewer sees it.
type doc struct {
	TraceEvents     []tev  `json:"traceEvents"`
	DisplayTimeUnit string `json:"displayTimeUnit"`
}

type tev struct {
	Ph   string         `json:"ph"`
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Pid  *int64         `json:"pid"`
	Tid  *int64         `json:"tid"`
	Ts   *usec          `json:"ts"`
	Dur  *usec          `json:"dur"`
	S    string         `json:"s"`
	ID   *int64         `json:"id"`
	Bp   string         `json:"bp"`
	Args map[string]any `json:"args"`
}

type thread struct{ pid, tid int64 }

// usec is a timestamp or duration read back exactly: the decimal
// microseconds the exporter writes, as integer nanoseconds. (Through a
// float64 the huge times of fuzzed streams would lose their last digits.)
type usec int64

func (u *usec) UnmarshalJSON(b []byte) error {
	s := string(b)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 || whole == "" {
		return fmt.Errorf("timestamp %s is not microseconds with at most 3 decimals", b)
	}
	frac += strings.Repeat("0", 3-len(frac))
	w, err1 := strconv.ParseUint(whole, 10, 64)
	f, err2 := strconv.ParseUint(frac, 10, 64)
	if err1 != nil || err2 != nil || w > (1<<64-1)/1000 {
		return fmt.Errorf("bad timestamp %s", b)
	}
	v := w*1000 + f
	if neg {
		v = -v
	}
	*u = usec(v)
	return nil
}

// ns returns the nanoseconds.
func ns(u usec) int64 { return int64(u) }

// check parses a document and verifies what Perfetto relies on. It returns
// the parsed document for further checks.
func check(t *testing.T, data []byte) *doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, data)
	}
	if d.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit %q", d.DisplayTimeUnit)
	}
	if err := structure(&d); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return &d
}

// structure returns the first structural problem of d, or nil.
func structure(d *doc) error { return structureOf(d, true) }

// nestingOnly is structure without the check that each thread's slices are
// written in start order.
func nestingOnly(d *doc) error { return structureOf(d, false) }

func jsonUnmarshal(data []byte, d *doc) error { return json.Unmarshal(data, d) }

func structureOf(d *doc, ordered bool) error {
	type span struct {
		start, end int64
		name       string
	}
	procNames := map[int64]bool{}
	threadNames := map[thread]bool{}
	used := map[thread]bool{}
	pidsUsed := map[int64]bool{}
	slicesOf := map[thread][]span{}
	lastX := map[thread]int64{}
	flowS := map[int64]int{}
	flowF := map[int64]int{}
	flowTs := map[int64]usec{}
	for i, e := range d.TraceEvents {
		if e.Pid == nil {
			return fmt.Errorf("event %d (%s %s) has no pid", i, e.Ph, e.Name)
		}
		pidsUsed[*e.Pid] = true
		if e.Ph == "M" {
			switch e.Name {
			case "process_name":
				procNames[*e.Pid] = e.Args["name"] != ""
			case "thread_name":
				if e.Tid == nil {
					return fmt.Errorf("thread_name without tid")
				}
				threadNames[thread{*e.Pid, *e.Tid}] = e.Args["name"] != ""
			}
			continue
		}
		if e.Tid == nil || e.Ts == nil {
			return fmt.Errorf("event %d (%s %s) has no tid or ts", i, e.Ph, e.Name)
		}
		th := thread{*e.Pid, *e.Tid}
		used[th] = true
		switch e.Ph {
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				return fmt.Errorf("X %s at %v has dur %v", e.Name, *e.Ts, e.Dur)
			}
			start := ns(*e.Ts)
			if last, ok := lastX[th]; ordered && ok && start < last {
				return fmt.Errorf("X %s at %d ns written after a slice at %d ns on tid %d", e.Name, *e.Ts, last, th.tid)
			}
			lastX[th] = start
			slicesOf[th] = append(slicesOf[th], span{start, start + ns(*e.Dur), e.Name})
		case "i":
			if e.S != "t" {
				return fmt.Errorf("instant %s has scope %q", e.Name, e.S)
			}
		case "C":
			if len(e.Args) == 0 {
				return fmt.Errorf("counter %s without args", e.Name)
			}
		case "s", "f":
			if e.ID == nil || e.Cat == "" || e.Name == "" {
				return fmt.Errorf("flow event %d lacks id, cat or name", i)
			}
			if e.Ph == "s" {
				flowS[*e.ID]++
				flowTs[*e.ID] = *e.Ts
			} else {
				if e.Bp != "e" {
					return fmt.Errorf("flow end %d without bp e", *e.ID)
				}
				flowF[*e.ID]++
				if *e.Ts < flowTs[*e.ID] {
					return fmt.Errorf("flow %d ends before it starts", *e.ID)
				}
			}
		default:
			return fmt.Errorf("unexpected phase %q", e.Ph)
		}
	}
	for p := range pidsUsed {
		if !procNames[p] {
			return fmt.Errorf("pid %d has no process_name", p)
		}
	}
	for th := range used {
		if !threadNames[th] {
			return fmt.Errorf("tid %d of pid %d has no thread_name", th.tid, th.pid)
		}
	}
	for id, n := range flowS {
		if n != 1 || flowF[id] != 1 {
			return fmt.Errorf("flow %d has %d starts and %d ends", id, n, flowF[id])
		}
	}
	for id, n := range flowF {
		if flowS[id] != n {
			return fmt.Errorf("flow %d has %d ends and %d starts", id, n, flowS[id])
		}
	}
	if err := perfettoStacks(d); err != nil {
		return err
	}
	// Nesting: sorted by start (longer first on ties), each slice lies
	// inside the innermost open one or after it, and never shares the start
	// of the slice that contains it.
	for th, ss := range slicesOf {
		slices.SortStableFunc(ss, func(a, b span) int {
			if a.start != b.start {
				return int(min(max(a.start-b.start, -1), 1))
			}
			return int(min(max(b.end-a.end, -1), 1))
		})
		var stack []span
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				if s.end > top.end {
					return fmt.Errorf("tid %d: %s [%d,%d] overlaps %s [%d,%d]", th.tid, s.name, s.start, s.end, top.name, top.start, top.end)
				}
				if s.start == top.start && s.end > s.start {
					return fmt.Errorf("tid %d: %s [%d,%d] shares its start with parent %s [%d,%d]", th.tid, s.name, s.start, s.end, top.name, top.start, top.end)
				}
			}
			if s.end > s.start {
				stack = append(stack, s)
			}
		}
	}
	return nil
}

// perfettoStacks replays each thread's slices and thread instants the way
// Perfetto's importer does: sorted by ts, ties kept in file order, each one
// first popping the slices that ended (intervals closed on the left, open on
// the right; instants only stack on instants), then refused if it starts
// inside an open slice and ends after it. A refusal means Perfetto would drop
// a slice.
func perfettoStacks(d *doc) error {
	type item struct {
		start, dur int64
		name       string
	}
	byThread := map[thread][]item{}
	for _, e := range d.TraceEvents {
		if e.Tid == nil || e.Ts == nil {
			continue
		}
		switch e.Ph {
		case "X":
			byThread[thread{*e.Pid, *e.Tid}] = append(byThread[thread{*e.Pid, *e.Tid}], item{ns(*e.Ts), ns(*e.Dur), e.Name})
		case "i":
			byThread[thread{*e.Pid, *e.Tid}] = append(byThread[thread{*e.Pid, *e.Tid}], item{ns(*e.Ts), 0, e.Name})
		}
	}
	for th, items := range byThread {
		slices.SortStableFunc(items, func(a, b item) int { return int(min(max(a.start-b.start, -1), 1)) })
		var stack []item
		for _, it := range items {
			for i := len(stack) - 1; i >= 0; i-- {
				top := stack[i]
				end := top.start + top.dur
				if end < it.start || end == it.start && !(top.dur == 0 && it.dur == 0) {
					stack = stack[:i]
					continue
				}
				if it.start < end && it.start+it.dur > end {
					return fmt.Errorf("tid %d: Perfetto would drop %s [%d+%d], which overlaps %s [%d+%d]",
						th.tid, it.name, it.start, it.dur, top.name, top.start, top.dur)
				}
			}
			stack = append(stack, it)
		}
	}
	return nil
}

// TestCheckerCatchesBadDocuments keeps the checker honest: each document
// breaks one rule the exporter promises.
func TestCheckerCatchesBadDocuments(t *testing.T) {
	const meta = `{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"t"}}`
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"partial overlap", `{"ph":"X","name":"a","pid":1,"tid":2,"ts":0,"dur":10},{"ph":"X","name":"b","pid":1,"tid":2,"ts":5,"dur":10}`, "Perfetto would drop b"},
		{"child before parent at one start", `{"ph":"X","name":"child","pid":1,"tid":2,"ts":0,"dur":5},{"ph":"X","name":"parent","pid":1,"tid":2,"ts":0,"dur":10}`, "Perfetto would drop parent"},
		{"negative dur", `{"ph":"X","name":"a","pid":1,"tid":2,"ts":0,"dur":-1}`, "has dur"},
		{"unnamed thread", `{"ph":"i","s":"t","name":"a","pid":1,"tid":3,"ts":0}`, "tid 3 of pid 1 has no thread_name"},
		{"unnamed process", `{"ph":"M","name":"thread_name","pid":4,"tid":2,"args":{"name":"t"}}`, "pid 4 has no process_name"},
		{"flow without end", `{"ph":"s","name":"h","cat":"h","id":1,"pid":1,"tid":2,"ts":0}`, "flow 1 has 1 starts and 0 ends"},
		{"slices out of order", `{"ph":"X","name":"a","pid":1,"tid":2,"ts":5,"dur":1},{"ph":"X","name":"b","pid":1,"tid":2,"ts":1,"dur":1}`, "written after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d doc
			if err := json.Unmarshal([]byte(`{"traceEvents":[`+meta+`,`+tc.doc+`]}`), &d); err != nil {
				t.Fatal(err)
			}
			err := structure(&d)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("structure = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
