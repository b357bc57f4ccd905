package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// Sentinel errors a reader's *Error wraps, for callers that act on the cause.
var (
	// ErrNotTrace: the first line is not a reactorviz trace header.
	ErrNotTrace = errors.New("not a reactorviz trace")
	// ErrVersion: the header names a version this build does not read.
	ErrVersion = errors.New("unsupported trace version")
	// ErrTruncated: the file ends inside a line or before its end line. The
	// events returned before it are sound; a replay may show them with a
	// warning.
	ErrTruncated = errors.New("trace truncated")
)

// Error is a problem at one line of a trace file. Its text reads
// "FILE:LINE: message".
type Error struct {
	File string
	Line int
	Msg  string
	Err  error // a sentinel above, an I/O error, or nil
}

// Error returns "FILE:LINE: message".
func (e *Error) Error() string { return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Interning bounds: repeated strings (task names, modes, reasons) are shared
// between events, up to this many distinct ones of at most this length.
const (
	internMax    = 4096
	internMaxLen = 128
	maxMembers   = 32 // keys per line; more is refused
)

// Reader reads a trace file written by Writer.
type Reader struct {
	name   string
	br     *bufio.Reader
	line   int
	hdr    Header
	loops  []trace.LoopInfo
	byName map[string]uint16
	strs   map[string]string

	events  uint64
	lastSeq uint64        // seq of the last event (order.go)
	maxTime int64         // latest t so far
	scratch []trace.Field // for checkEvent
	end     End
	hasEnd  bool
	pending []sample.Loop       // a sample's loop lines read so far
	hists   map[int]sample.Hist // each histogram's last line (sample.go)
	sampled *sample.Sample      // the sample the last line completed
	err     error               // sticky: every later Next returns it

	mem [maxMembers]member
}

type member struct {
	key []byte
	val value
}

// NewReader reads and checks the header of the trace in r; name is used in
// error messages (usually the file name).
func NewReader(r io.Reader, name string) (*Reader, error) {
	rd := &Reader{
		name:   name,
		br:     bufio.NewReaderSize(r, MaxLineBytes),
		byName: make(map[string]uint16),
		strs:   make(map[string]string),
	}
	line, last, err := rd.readLine()
	for err == nil && len(bytes.TrimSpace(line)) == 0 {
		if last {
			err = io.EOF
			break
		}
		line, last, err = rd.readLine()
	}
	if err == io.EOF {
		rd.line = max(rd.line, 1)
		return nil, rd.errorf(ErrTruncated, "empty file: no trace header")
	}
	if err != nil {
		return nil, err
	}
	if err := rd.header(line, last); err != nil {
		return nil, err
	}
	return rd, nil
}

// Header returns the header as read, with the loops it lists.
func (r *Reader) Header() Header { return r.hdr }

// Loops returns the loop table so far: the header's loops and those added by
// add_loop lines already read. An event's Loop indexes it.
func (r *Reader) Loops() []trace.LoopInfo { return slices.Clone(r.loops) }

// End returns the end line's summary once Next has returned io.EOF.
func (r *Reader) End() (End, bool) { return r.end, r.hasEnd }

// Line returns the number of the last line read.
func (r *Reader) Line() int { return r.line }

// Next returns the next event, or io.EOF after the end line. Any other error
// is an *Error naming the line, and Next returns it again if called again.
// Samples are skipped: NextRecord returns them.
func (r *Reader) Next() (trace.Event, error) {
	for {
		ev, s, err := r.NextRecord()
		if err != nil || s == nil {
			return ev, err
		}
	}
}

// NextRecord returns the next record of the stream: an event, or a sample
// (non-nil s) in its place after the events before it. Errors are Next's.
func (r *Reader) NextRecord() (ev trace.Event, s *sample.Sample, err error) {
	for r.err == nil {
		line, last, err := r.readLine()
		if err == io.EOF {
			if !r.hasEnd {
				r.line++
				r.err = r.errorf(ErrTruncated, "no end line: the trace was cut short after %d events", r.events)
			} else {
				r.err = io.EOF
			}
			break
		}
		if err != nil {
			r.err = err
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if r.hasEnd {
			r.err = r.errorf(nil, "line after the end line")
			break
		}
		ev, isEvent, err := r.parse(line)
		if err != nil {
			var se *syntaxError
			if last && errors.As(err, &se) {
				r.err = r.errorf(ErrTruncated, "truncated line")
			} else {
				r.err = err
			}
			break
		}
		if isEvent {
			if err := r.checkEvent(&ev); err != nil {
				r.err = r.wrap(err)
				break
			}
			r.events++
			return ev, nil, nil
		}
		if s := r.sampled; s != nil {
			r.sampled = nil
			return trace.Event{}, s, nil
		}
	}
	return trace.Event{}, nil, r.err
}

// readLine returns the next line without its newline; last reports that the
// file ended without one. io.EOF means there is no line left.
func (r *Reader) readLine() (line []byte, last bool, err error) {
	line, err = r.br.ReadSlice('\n')
	switch {
	case err == nil:
		r.line++
		return line[:len(line)-1], false, nil
	case errors.Is(err, bufio.ErrBufferFull):
		r.line++
		return nil, false, r.errorf(nil, "line longer than %d bytes", MaxLineBytes)
	case err == io.EOF:
		if len(line) == 0 {
			return nil, false, io.EOF
		}
		r.line++
		return line, true, nil
	}
	r.line++
	return nil, false, r.errorf(err, "read: %v", err)
}

func (r *Reader) errorf(cause error, format string, args ...any) *Error {
	return &Error{File: r.name, Line: r.line, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// wrap turns a scanner or field error into an *Error at the current line.
func (r *Reader) wrap(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var se *syntaxError
	if errors.As(err, &se) {
		// Keep the syntax error as the cause: Next tells a cut last line
		// from a malformed one by it.
		return r.errorf(se, "%s", err.Error())
	}
	return r.errorf(nil, "%s", err.Error())
}

// header parses line 1. The format is checked before anything else, so that
// any other JSON file is reported as "not a reactorviz trace" rather than by
// its first unknown key.
func (r *Reader) header(line []byte, last bool) error {
	var (
		format, started []byte
		hasFormat       bool
		version, engine *value
		unknown         []byte
		vbuf            value
	)
	s := scanner{b: line}
	err := s.object(func(key []byte) error {
		switch string(key) {
		case "format":
			if err := s.value(&vbuf); err != nil {
				return err
			}
			if vbuf.kind == vString {
				format, hasFormat = vbuf.str, true
			}
			return nil
		case "version":
			version = &value{}
			return s.value(version)
		case "scenario", "model":
			return s.headerString(key, &vbuf, func(v string) {
				if key[0] == 's' {
					r.hdr.Scenario = v
				} else {
					r.hdr.Model = v
				}
			})
		case "started":
			return s.headerString(key, &vbuf, func(string) { started = vbuf.str })
		case "config":
			return s.headerString(key, &vbuf, func(v string) { r.hdr.Config = v })
		case "engine":
			engine = &value{}
			return s.value(engine)
		case "loops":
			if s.p >= len(s.b) || s.b[s.p] != '[' {
				if err := s.value(&vbuf); err != nil {
					return err
				}
				return fmt.Errorf("header: %q: want an array, got %s", key, vbuf.kind)
			}
			return s.elements(func() error { return r.headerLoop(&s) })
		}
		if unknown == nil {
			unknown = append([]byte(nil), key...)
		}
		return s.skip(0)
	})
	if err != nil && !hasFormat {
		// A header cut before its format was read still starts like one;
		// anything else is some other file.
		const prefix = `{"format":"` + Format + `"`
		if last && (bytes.HasPrefix(line, []byte(prefix)) || bytes.HasPrefix([]byte(prefix), bytes.TrimSpace(line))) {
			return r.errorf(ErrTruncated, "truncated line")
		}
		return r.errorf(ErrNotTrace, "not a reactorviz trace: the first line is not a trace header")
	}
	switch {
	case !hasFormat:
		return r.errorf(ErrNotTrace, "not a reactorviz trace: the header has no \"format\"")
	case string(format) != Format:
		return r.errorf(ErrNotTrace, "not a reactorviz trace (format %q)", format)
	case err != nil:
		var se *syntaxError
		if last && errors.As(err, &se) {
			return r.errorf(ErrTruncated, "truncated line")
		}
		return r.wrap(err)
	case version == nil:
		return r.errorf(nil, "header: missing \"version\"")
	}
	if v, msg := version.int64(); msg != "" {
		return r.errorf(nil, "header: \"version\": %s", msg)
	} else if v < 1 || v > Version {
		return r.errorf(ErrVersion, "unsupported trace version %d (this build reads versions 1 to %d)", v, Version)
	}
	if unknown != nil {
		return r.errorf(nil, "header: unknown field %q", unknown)
	}
	if engine != nil {
		v, msg := engine.int64()
		if msg == "" && (v < 0 || v > math.MaxInt32) {
			msg = "out of range"
		}
		if msg != "" {
			return r.errorf(nil, "header: \"engine\": %s", msg)
		}
		r.hdr.Engine = int(v)
	}
	if started != nil {
		t, err := time.Parse(time.RFC3339Nano, string(started))
		if err != nil {
			return r.errorf(nil, "header: \"started\": not an RFC 3339 time: %q", started)
		}
		r.hdr.Started = t
	}
	r.hdr.Loops = append([]trace.LoopInfo(nil), r.loops...)
	return nil
}

// headerString scans a string value of the header and hands it to set.
func (s *scanner) headerString(key []byte, v *value, set func(string)) error {
	if err := s.value(v); err != nil {
		return err
	}
	if v.kind != vString {
		return fmt.Errorf("header: %q: want a string, got %s", key, v.kind)
	}
	set(string(v.str))
	return nil
}

// headerLoop scans one {"name":..,"group":..} of the header's loop table.
func (r *Reader) headerLoop(s *scanner) error {
	if s.p >= len(s.b) || s.b[s.p] != '{' {
		var v value
		if err := s.value(&v); err != nil {
			return err
		}
		return fmt.Errorf("header: \"loops\": want objects, got %s", v.kind)
	}
	var (
		l       trace.LoopInfo
		hasName bool
		v       value
	)
	err := s.members(func(key []byte) error {
		switch string(key) {
		case "name":
			hasName = true
			return s.headerString(key, &v, func(x string) { l.Name = x })
		case "group":
			return s.headerString(key, &v, func(x string) { l.Group = x })
		}
		return fmt.Errorf("header: \"loops\": unknown field %q", key)
	})
	if err != nil {
		return err
	}
	if !hasName {
		return fmt.Errorf("header: \"loops\": loop %d has no \"name\"", len(r.loops))
	}
	return r.addLoop(l, "header: ")
}

// addLoop appends a loop to the table, refusing names that would make the
// loop of an event ambiguous.
func (r *Reader) addLoop(l trace.LoopInfo, where string) error {
	switch _, dup := r.byName[l.Name]; {
	case l.Name == "":
		return fmt.Errorf("%sempty loop name", where)
	case dup:
		return fmt.Errorf("%sduplicate loop name %q", where, l.Name)
	case len(r.loops) >= MaxLoops:
		return fmt.Errorf("%smore than %d loops", where, MaxLoops)
	}
	r.byName[l.Name] = uint16(len(r.loops))
	r.loops = append(r.loops, l)
	return nil
}

// parse reads one line after the header: an event, an add_loop line or the
// end line. isEvent is false for the latter two.
func (r *Reader) parse(line []byte) (ev trace.Event, isEvent bool, err error) {
	n := 0
	s := scanner{b: line}
	err = s.object(func(key []byte) error {
		if n == len(r.mem) {
			return fmt.Errorf("more than %d fields", len(r.mem))
		}
		for i := 0; i < n; i++ {
			if bytes.Equal(r.mem[i].key, key) {
				return fmt.Errorf("duplicate field %q", key)
			}
		}
		m := &r.mem[n]
		m.key = key
		n++
		return s.value(&m.val)
	})
	if err != nil {
		return ev, false, r.wrap(err)
	}
	mem := r.mem[:n]
	switch loop, run := isSampleLine(mem); {
	case loop:
		return ev, false, r.wrap(r.sampleLoop(line))
	case run:
		r.sampled, err = r.sampleRun(line)
		return ev, false, r.wrap(err)
	}
	for i := range mem {
		switch string(mem[i].key) {
		case "end":
			return ev, false, r.wrap(r.endLine(mem))
		case "add_loop":
			return ev, false, r.wrap(r.loopLine(mem))
		}
	}
	ev, err = r.event(mem)
	return ev, err == nil, r.wrap(err)
}

// event decodes an event line's members.
func (r *Reader) event(mem []member) (trace.Event, error) {
	var (
		ev           trace.Event
		hasSeq, hasT bool
		loopM, kindM *member
		msg          string
	)
	for i := range mem {
		m := &mem[i]
		switch string(m.key) {
		case "seq":
			if ev.Seq, msg = m.val.uint64(); msg != "" {
				return ev, fmt.Errorf("field \"seq\": %s", msg)
			}
			hasSeq = true
		case "t":
			if ev.Time, msg = m.val.int64(); msg != "" {
				return ev, fmt.Errorf("field \"t\": %s", msg)
			}
			hasT = true
		case "loop":
			loopM = m
		case "kind":
			kindM = m
		}
	}
	switch {
	case kindM == nil:
		return ev, errors.New("missing \"kind\"")
	case kindM.val.kind != vString:
		return ev, fmt.Errorf("field \"kind\": want a string, got %s", kindM.val.kind)
	case !hasSeq:
		return ev, errors.New("missing \"seq\"")
	case !hasT:
		return ev, errors.New("missing \"t\"")
	case loopM == nil:
		return ev, errors.New("missing \"loop\"")
	case loopM.val.kind != vString:
		return ev, fmt.Errorf("field \"loop\": want a string, got %s", loopM.val.kind)
	}
	k, ok := kindByName[string(kindM.val.str)]
	if !ok {
		return ev, fmt.Errorf("unknown kind %q", kindM.val.str)
	}
	ev.Kind = k
	idx, ok := r.byName[string(loopM.val.str)]
	if !ok {
		return ev, fmt.Errorf("unknown loop %q", loopM.val.str)
	}
	ev.Loop = idx
	ki := &kinds[k]
	for i := range mem {
		m := &mem[i]
		switch string(m.key) {
		case "seq", "t", "loop", "kind":
			continue
		}
		fi, ok := ki.byName[string(m.key)]
		if !ok {
			return ev, fmt.Errorf("unknown field %q for %s", m.key, k)
		}
		f, err := r.field(&ki.fields[fi], &m.val)
		if err != nil {
			return ev, fmt.Errorf("field %q of %s: %v", m.key, k, err)
		}
		ev.SetField(ki.fields[fi].name, f)
	}
	return ev, nil
}

// field converts a value to the type the schema gives the field. States are
// written by name; a number is accepted too, for values outside the names.
func (r *Reader) field(fi *fieldInfo, v *value) (trace.Field, error) {
	f := trace.Field{Name: fi.name, Type: fi.typ, State: fi.state}
	switch fi.typ {
	case trace.FieldInt:
		if fi.state && v.kind == vString {
			st, ok := trace.ParseState(string(v.str))
			if !ok {
				return f, fmt.Errorf("unknown state %q", v.str)
			}
			f.Int = int64(st)
			return f, nil
		}
		var msg string
		if f.Int, msg = v.int64(); msg != "" {
			if fi.state {
				msg = "want a state name, got " + v.kind.String()
			}
			return f, errors.New(msg)
		}
	case trace.FieldBool:
		if v.kind != vBool {
			return f, fmt.Errorf("want a boolean, got %s", v.kind)
		}
		f.Bool = v.b
	case trace.FieldString:
		if v.kind != vString {
			return f, fmt.Errorf("want a string, got %s", v.kind)
		}
		f.Str = r.intern(v.str)
	}
	return f, nil
}

// intern returns b as a string, shared with earlier equal strings so that a
// long trace does not hold a copy of "select_now" per event.
func (r *Reader) intern(b []byte) string {
	if s, ok := r.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.strs) < internMax && len(s) <= internMaxLen {
		r.strs[s] = s
	}
	return s
}

// loopLine reads {"add_loop":name,"group":g,"index":n}.
func (r *Reader) loopLine(mem []member) error {
	var (
		l        trace.LoopInfo
		idx      int64 = -1
		msg      string
		hasGroup bool
	)
	for i := range mem {
		m := &mem[i]
		switch string(m.key) {
		case "add_loop", "group":
			if m.val.kind != vString {
				return fmt.Errorf("field %q: want a string, got %s", m.key, m.val.kind)
			}
			if m.key[0] == 'a' {
				l.Name = string(m.val.str)
			} else {
				l.Group, hasGroup = string(m.val.str), true
			}
		case "index":
			if idx, msg = m.val.int64(); msg != "" {
				return fmt.Errorf("field \"index\": %s", msg)
			}
		default:
			return fmt.Errorf("unknown field %q in add_loop line", m.key)
		}
	}
	switch {
	case idx < 0:
		return errors.New("add_loop line without \"index\"")
	case !hasGroup:
		return errors.New("add_loop line without \"group\"")
	case idx != int64(len(r.loops)):
		return fmt.Errorf("add_loop %q has index %d, want %d", l.Name, idx, len(r.loops))
	}
	return r.addLoop(l, "add_loop: ")
}

// endLine reads {"end":t,"events":n,"emitted":n,"dropped":n} and checks that
// no event line went missing.
func (r *Reader) endLine(mem []member) error {
	var (
		e   End
		msg string
		got int
	)
	for i := range mem {
		m := &mem[i]
		switch string(m.key) {
		case "end":
			if e.Time, msg = m.val.int64(); msg == "" && (e.Time < 0 || e.Time > MaxTime) {
				msg = fmt.Sprintf("want 0..%d", MaxTime)
			}
		case "events":
			e.Events, msg = m.val.uint64()
		case "emitted":
			e.Emitted, msg = m.val.uint64()
		case "dropped":
			e.Dropped, msg = m.val.uint64()
		default:
			return fmt.Errorf("unknown field %q in end line", m.key)
		}
		if msg != "" {
			return fmt.Errorf("field %q: %s", m.key, msg)
		}
		got++
	}
	if got != 4 {
		return errors.New("end line needs \"end\", \"events\", \"emitted\" and \"dropped\"")
	}
	if e.Events != r.events {
		return fmt.Errorf("end line counts %d events, the file has %d", e.Events, r.events)
	}
	r.end, r.hasEnd = e, true
	return nil
}

// Trace is a whole trace file in memory.
type Trace struct {
	Header  Header // Loops: the full table, add_loop lines included
	Events  []trace.Event
	Samples []Placed // in stream order; none in a version 1 trace
	End     End
}

// ReadAll reads a whole trace. On error it returns what it read before the
// bad line along with the error, so a cut trace can still be shown.
func ReadAll(r io.Reader, name string) (*Trace, error) {
	rd, err := NewReader(r, name)
	if err != nil {
		return nil, err
	}
	t := &Trace{Header: rd.Header()}
	for {
		ev, s, err := rd.NextRecord()
		if err != nil {
			t.Header.Loops = rd.Loops()
			t.End, _ = rd.End()
			if err == io.EOF {
				return t, nil
			}
			return t, err
		}
		if s != nil {
			t.Samples = append(t.Samples, Placed{Events: len(t.Events), Sample: s})
			continue
		}
		t.Events = append(t.Events, ev)
	}
}
