package counters

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// N is the number of counters in a Set.
const N = int(unsafe.Sizeof(Stats{}) / unsafe.Sizeof(int64(0)))

// Atomics is the engine's side of a Set: each counter an atomic, so a
// reader on another goroutine (a summary, the UI) takes a snapshot with Load
// and never stops the loop to read it.
type Atomics Set[atomic.Int64]

// Load returns a snapshot of the counters. It loads them one by one in
// declaration order, so a writer that adds to a later counter before an
// earlier one (migrated before rebuilds) is never seen half done: a reader
// that sees the earlier one's increase also sees the later one's.
func (a *Atomics) Load() Stats {
	var s Stats
	src := (*[N]atomic.Int64)(unsafe.Pointer(a))
	dst := s.values()
	for i := range src {
		dst[i] = src[i].Load()
	}
	return s
}

// values views a snapshot as the array of its counters, in declaration
// order: counter i of the table is values()[i].
func (s *Stats) values() *[N]int64 { return (*[N]int64)(unsafe.Pointer(s)) }

// Counter is one counter of Set, as its field's tags describe it: its key in
// the run summary's JSON, which is also the key an expectation names after a
// loop (worker-0.rebuilds), and what it means, for the expectation help and
// the docs.
type Counter struct {
	Name  string
	Doc   string
	Extra bool // beyond the summary's stable set
	// Live is set for a counter only the engine keeps: no event records
	// it, so a replay of a trace shows zero (Set's live tag).
	Live  bool
	index int // the field's place in Set
}

// Get returns the counter's value in s.
func (c Counter) Get(s *Stats) int64 { return s.values()[c.index] }

// Set stores v as the counter's value in s.
func (c Counter) Set(s *Stats, v int64) { s.values()[c.index] = v }

// table lists every counter of Set once, in the order the expectation help
// lists them: the summary's stable set first, then the extras, each in
// declaration order.
var table = buildTable()

func buildTable() []Counter {
	checkLayout(reflect.TypeFor[Stats](), reflect.TypeFor[int64]())
	checkLayout(reflect.TypeFor[Atomics](), reflect.TypeFor[atomic.Int64]())
	typ := reflect.TypeFor[Stats]()
	var stable, extra []Counter
	for i := range typ.NumField() {
		f := typ.Field(i)
		c := Counter{Name: f.Tag.Get("json"), Doc: f.Tag.Get("doc"), Extra: f.Tag.Get("extra") == "true",
			Live: f.Tag.Get("live") == "true", index: i}
		if c.Extra {
			extra = append(extra, c)
		} else {
			stable = append(stable, c)
		}
	}
	return append(stable, extra...)
}

// checkLayout makes sure a Set can be read as an array of N values: every
// field is elem, one after the other. A field of another type added to Set
// would break Load and Get, so it stops the program at init, not later.
func checkLayout(typ, elem reflect.Type) {
	if typ.NumField() != N || typ.Size() != uintptr(N)*elem.Size() {
		panic(fmt.Sprintf("counters: %v has %d fields in %d bytes, not %d %v", typ, typ.NumField(), typ.Size(), N, elem))
	}
	for i := range typ.NumField() {
		if f := typ.Field(i); f.Type != elem || f.Offset != uintptr(i)*elem.Size() {
			panic(fmt.Sprintf("counters: %v.%s is a %v at offset %d, not a %v at %d", typ, f.Name, f.Type, f.Offset, elem, uintptr(i)*elem.Size()))
		}
	}
}

// Replayable returns s with the live counters at zero: the counters a
// fold of the loop's trace rebuilds, so a live snapshot compares with a
// replay's.
func (s Stats) Replayable() Stats {
	v := s.values()
	for _, c := range table {
		if c.Live {
			v[c.index] = 0
		}
	}
	return s
}

// Table returns every counter, in the order the expectation help lists
// them.
func Table() []Counter { return append([]Counter(nil), table...) }

// Lookup returns the counter with a summary key.
func Lookup(name string) (Counter, bool) {
	for _, c := range table {
		if c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}
