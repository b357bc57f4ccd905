// Package trace carries reactorviz's instrumentation: typed events raised at
// every phase boundary of every event loop, moved to sinks without ever
// blocking or allocating on a loop thread.
//
// Each loop owns a Ring it alone writes (single producer); goroutines that are
// not loop threads (an external Execute, a test) write to the collector's
// shared External ring instead. A Collector drains both and hands batches, in
// per-loop order, to its sinks. When a ring is full the event is dropped and
// counted, and a KindDrop event reports the count once there is room again.
package trace

import (
	"sync"
	"sync/atomic"
	"time"
)

// Event is one instrumentation record. It has a fixed size and holds no
// pointer but Str, which always points at a string that already exists, so
// writing one into a ring allocates nothing. Which slot holds which field
// depends on Kind; see Fields.
type Event struct {
	Seq  uint64 // delivery order, assigned by the Collector
	Time int64  // nanoseconds since the collector's epoch
	Loop uint16 // index into the collector's loop table
	Kind Kind
	Flag bool
	A    int64
	B    int64
	C    int64
	D    int64
	E    int64
	Str  string
}

// Field is one named value of an event, for writers that need names.
type Field struct {
	Name  string
	Int   int64
	Str   string
	Bool  bool
	Type  FieldType
	State bool // Int holds a State, written by name
}

// FieldType says which member of Field is set.
type FieldType uint8

// Field types.
const (
	FieldInt FieldType = iota
	FieldBool
	FieldString
)

// Fields appends the event's named fields to dst, in schema order.
func (e *Event) Fields(dst []Field) []Field {
	if e.Kind == KindInvalid || e.Kind >= numKinds {
		return dst
	}
	s := &schema[e.Kind]
	ints := [...]struct {
		name string
		v    int64
	}{{s.a, e.A}, {s.b, e.B}, {s.c, e.C}, {s.d, e.D}, {s.e, e.E}}
	for i, f := range ints {
		if f.name != "" {
			dst = append(dst, Field{Name: f.name, Int: f.v, Type: FieldInt, State: s.states && i < 2})
		}
	}
	if s.flag != "" {
		dst = append(dst, Field{Name: s.flag, Bool: e.Flag, Type: FieldBool})
	}
	if s.str != "" {
		dst = append(dst, Field{Name: s.str, Str: e.Str, Type: FieldString})
	}
	return dst
}

// SetField stores a named field into the slot the schema gives it. It reports
// false when the kind has no such field or the value has the wrong type.
func (e *Event) SetField(name string, f Field) bool {
	if e.Kind == KindInvalid || e.Kind >= numKinds || name == "" {
		return false
	}
	s := &schema[e.Kind]
	slots := [...]struct {
		name string
		p    *int64
	}{{s.a, &e.A}, {s.b, &e.B}, {s.c, &e.C}, {s.d, &e.D}, {s.e, &e.E}}
	for _, sl := range slots {
		if sl.name == name {
			if f.Type != FieldInt {
				return false
			}
			*sl.p = f.Int
			return true
		}
	}
	switch name {
	case s.flag:
		if f.Type != FieldBool {
			return false
		}
		e.Flag = f.Bool
		return true
	case s.str:
		if f.Type != FieldString {
			return false
		}
		e.Str = f.Str
		return true
	}
	return false
}

// FieldIsState reports whether the named field of kind k holds a State.
func FieldIsState(k Kind, name string) bool {
	if k == KindInvalid || k >= numKinds {
		return false
	}
	s := &schema[k]
	return s.states && (name == s.a || name == s.b)
}

// Clock is the monotonic time base shared by every emitter of one run: the
// run clock. It can be held, when a learner stops the whole run: a held
// clock stands still, and when let go it runs on from where it stood, so
// the time it was held is in no event, no deadline and no latency (the
// loops' scheduled tasks, the wheel and the clients read it too).
type Clock struct {
	epoch time.Time
	// off is the wall time the clock was held, taken out of each reading;
	// frozen is the reading a held clock returns, plus one (0: running).
	off    atomic.Int64
	frozen atomic.Int64

	mu      sync.Mutex
	release chan struct{} // closed when the hold ends; nil while running
}

// NewClock starts a clock at zero now.
func NewClock() *Clock { return &Clock{epoch: time.Now()} }

// Now returns nanoseconds since the clock started, less the time it was
// held. It reads the monotonic clock (about 25-30 ns on a kvm-clock VM),
// so hot paths read it only when tracing is on or when they need the time
// anyway; the hold costs two loads of a word that is written only when a
// learner pauses or resumes.
func (c *Clock) Now() int64 {
	if f := c.frozen.Load(); f != 0 {
		return f - 1
	}
	return int64(time.Since(c.epoch)) - c.off.Load()
}

// Hold stops the clock (true) or lets it run on from where it stood
// (false). Any goroutine; a second hold or release is a no-op. A reading
// racing with the hold may return a few nanoseconds more than the held
// value.
func (c *Clock) Hold(hold bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case hold && c.release == nil:
		c.frozen.Store(int64(time.Since(c.epoch)) - c.off.Load() + 1)
		c.release = make(chan struct{})
	case !hold && c.release != nil:
		// off first: a reader that sees the clock running reads the new
		// offset, so the clock never steps back.
		c.off.Store(int64(time.Since(c.epoch)) - (c.frozen.Load() - 1))
		c.frozen.Store(0)
		close(c.release)
		c.release = nil
	}
}

// Held returns nil while the clock runs, else a channel closed when the
// hold ends: a goroutine that keeps a schedule on the run clock (the
// clients, the wheel's thread, the scenario's timeline) waits on it.
func (c *Clock) Held() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.release == nil {
		return nil
	}
	return c.release
}

// Epoch returns the wall-clock time the clock started.
func (c *Clock) Epoch() time.Time { return c.epoch }

// Switch is the one flag every emission site checks first. With no sink
// attached it is off, and a site costs one atomic load.
type Switch struct{ on atomic.Bool }

// On reports whether events are being collected.
func (s *Switch) On() bool { return s.on.Load() }

// Set turns collection on or off.
func (s *Switch) Set(on bool) { s.on.Store(on) }
