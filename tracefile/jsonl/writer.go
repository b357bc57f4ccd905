package jsonl

import (
	"cmp"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/tracefile/internal/sticky"
)

// Format and Version identify a trace file in its header line.
const (
	Format  = "reactorviz-trace"
	Version = 2 // 2: sample lines (sample.go)
)

// Size limits. The writer cuts strings so that no line it writes reaches
// MaxLineBytes; the reader refuses longer lines, so a hostile file cannot make
// it buffer without bound.
const (
	MaxLineBytes   = 64 << 10 // longest line, newline included, a reader accepts
	MaxStringBytes = 4096     // longest string field value the writer keeps
	MaxNameBytes   = 256      // longest loop, group, scenario or model name kept
	MaxLoops       = 1 << 16  // loops a trace can name (trace.Event.Loop is uint16)
)

// headerLoopBudget bounds the header line: loops that do not fit go on
// add_loop lines instead, which keeps the header under MaxLineBytes however
// many loops a run has.
const headerLoopBudget = 32 << 10

// Header describes a recorded run. It is the first line of a trace file.
type Header struct {
	Scenario string
	Model    string
	Started  time.Time // wall-clock time of the run's clock epoch
	Loops    []trace.LoopInfo
	// Config is the loops' settings at the start, as "key=value" words
	// ("io_ratio=50 rebuild_threshold=512 ..."), for a replay to show what
	// the events alone do not say. Optional.
	Config string
	// Engine is the version of the engine that recorded the run
	// (reactor.EngineVersion), so a stored recording can be told stale
	// without re-running it. Zero: not recorded; written only when set.
	Engine int
}

// End is the summary on a trace file's last line.
type End struct {
	Time    int64  // time of the last event, ns since the epoch
	Events  uint64 // event lines in the file
	Emitted uint64 // events the run delivered to its sinks
	Dropped uint64 // events the run lost because a ring was full
}

// Source is what a Writer asks for the loop table and the final counts.
// *trace.Collector implements it.
type Source interface {
	Loops() []trace.LoopInfo
	Stats() (emitted, dropped uint64)
}

// Options configures a Writer. Zero values take the defaults.
type Options struct {
	// Source, when set, supplies the loop table (read when the header is
	// written and again when an event names a loop not yet listed) and the
	// emitted and dropped counts of the end line. Without it the writer uses
	// Header.Loops and counts what it saw.
	Source Source
	// BufferSize is how many bytes are buffered before a write; default 64 KiB.
	BufferSize int
	// FlushInterval, when positive, writes what is buffered at least this
	// often, from a goroutine of the writer's own that Close stops: a run
	// killed (SIGKILL, a crash) then loses at most this much of its trace,
	// and a quiet server's last events reach the file. Zero: only when the
	// buffer fills, on Flush and on Close.
	FlushInterval time.Duration
}

// ErrClosed is returned by Flush and Close after Close, and no more events
// are written.
var ErrClosed = errors.New("jsonl: writer closed")

// Writer is a trace.Sink that writes a trace file. Its header is written
// lazily, on the first Consume, Flush or Close, so that it lists the loops
// registered by then; later loops get add_loop lines. Writer is safe for use
// by several goroutines, though a Collector calls Consume from one.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	hdr  Header
	src  Source
	size int

	buf    []byte
	err    error // first write error; once set nothing more is written
	opened bool  // header written
	closed bool

	loops  []string            // `,"loop":"name"` per loop index, pre-encoded
	names  map[string]struct{} // loop names in use, to keep them unique
	fields []trace.Field       // scratch for Event.Fields

	events  uint64
	dropped uint64
	last    int64
	hists   map[int]sample.Hist // each histogram's last line (sample.go)

	stopFlush chan struct{} // closed by Close when FlushInterval started a flusher
	flushDone chan struct{}
}

var (
	_ trace.Sink = (*Writer)(nil)
	_ Source     = (*trace.Collector)(nil)
)

// NewWriter returns a Writer of the run described by h onto w. It does not
// close w.
func NewWriter(w io.Writer, h Header, opts Options) *Writer {
	if opts.BufferSize <= 0 {
		opts.BufferSize = 64 << 10
	}
	wr := &Writer{
		w:      w,
		hdr:    h,
		src:    opts.Source,
		size:   opts.BufferSize,
		buf:    make([]byte, 0, opts.BufferSize+MaxLineBytes),
		names:  make(map[string]struct{}),
		fields: make([]trace.Field, 0, 8),
	}
	if opts.FlushInterval > 0 {
		wr.stopFlush, wr.flushDone = make(chan struct{}), make(chan struct{})
		go wr.flushEvery(opts.FlushInterval)
	}
	return wr
}

// flushEvery writes the buffer every d until Close. It never writes the
// header early: the header lists the loops known at the first event.
func (w *Writer) flushEvery(d time.Duration) {
	defer close(w.flushDone)
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-w.stopFlush:
			return
		case <-t.C:
			w.mu.Lock()
			if w.opened && !w.closed && w.err == nil && len(w.buf) > 0 {
				w.write()
			}
			w.mu.Unlock()
		}
	}
}

// Consume writes a batch of events, one line each. Events of an invalid kind
// are skipped. After a write error or Close it does nothing.
func (w *Writer) Consume(batch []trace.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return
	}
	w.open()
	pause := false
	for i := range batch {
		w.appendEvent(&batch[i])
		pause = pause || batch[i].Kind == trace.KindPause
		if len(w.buf) >= w.size {
			w.write()
			if w.err != nil {
				return
			}
		}
	}
	if pause && len(w.buf) > 0 {
		// A loop stopped at a breakpoint or was paused: the user may look
		// at the file now, or the run may never resume.
		w.write()
	}
}

// Flush writes the header if it is not out yet and everything buffered. It
// returns the first write error.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return cmp.Or(w.err, ErrClosed)
	}
	w.open()
	w.write()
	return w.err
}

// Close writes the end line and flushes. It returns the first write error of
// the writer's life; Consume and Flush do nothing useful afterwards. Stop the
// collector first, so the end line follows the last event.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.stopFlush != nil {
		// The flusher takes w.mu: let it go without it, then wait.
		close(w.stopFlush)
		w.mu.Unlock()
		<-w.flushDone
		w.mu.Lock()
	}
	if w.err != nil {
		return w.err
	}
	w.open()
	emitted, dropped := w.events, w.dropped
	if w.src != nil {
		emitted, dropped = w.src.Stats()
	}
	b := append(w.buf, `{"end":`...)
	b = strconv.AppendInt(b, w.last, 10)
	b = append(b, `,"events":`...)
	b = strconv.AppendUint(b, w.events, 10)
	b = append(b, `,"emitted":`...)
	b = strconv.AppendUint(b, emitted, 10)
	b = append(b, `,"dropped":`...)
	b = strconv.AppendUint(b, dropped, 10)
	w.buf = append(b, '}', '\n')
	w.write()
	return w.err
}

// write hands the buffer to the underlying writer and keeps the first error.
func (w *Writer) write() {
	w.err = sticky.Write(w.w, w.buf, w.err)
	w.buf = w.buf[:0]
}

// open writes the header once, listing the loops known now.
func (w *Writer) open() {
	if w.opened {
		return
	}
	w.opened = true
	loops := w.hdr.Loops
	if w.src != nil {
		loops = w.src.Loops()
	}
	b := append(w.buf, `{"format":"`+Format+`","version":`...)
	b = strconv.AppendInt(b, Version, 10)
	b = append(b, `,"scenario":`...)
	b = appendString(b, w.hdr.Scenario, MaxNameBytes)
	b = append(b, `,"model":`...)
	b = appendString(b, w.hdr.Model, MaxNameBytes)
	b = append(b, `,"started":"`...)
	b = w.hdr.Started.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if w.hdr.Engine != 0 {
		b = append(b, `,"engine":`...)
		b = strconv.AppendInt(b, int64(w.hdr.Engine), 10)
	}
	if w.hdr.Config != "" {
		b = append(b, `,"config":`...)
		b = appendString(b, w.hdr.Config, MaxNameBytes)
	}
	b = append(b, `,"loops":[`...)
	start := len(b)
	n := 0
	for _, l := range loops {
		if len(b)-start > headerLoopBudget || len(w.loops) >= MaxLoops {
			break
		}
		name := w.uniqueName(l.Name, len(w.loops))
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, name, MaxNameBytes)
		b = append(b, `,"group":`...)
		b = appendString(b, l.Group, MaxNameBytes)
		b = append(b, '}')
		w.addLoop(name)
		n++
	}
	w.buf = append(b, ']', '}', '\n')
	w.announce(loops[n:])
}

// announce writes an add_loop line for each of loops, in index order.
func (w *Writer) announce(loops []trace.LoopInfo) {
	for _, l := range loops {
		if len(w.loops) >= MaxLoops {
			return
		}
		w.addLoopLine(l)
	}
}

// addLoopLine announces the loop that takes the next index.
func (w *Writer) addLoopLine(l trace.LoopInfo) {
	idx := len(w.loops)
	name := w.uniqueName(l.Name, idx)
	b := append(w.buf, `{"add_loop":`...)
	b = appendString(b, name, MaxNameBytes)
	b = append(b, `,"group":`...)
	b = appendString(b, l.Group, MaxNameBytes)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(idx), 10)
	w.buf = append(b, '}', '\n')
	w.addLoop(name)
}

// addLoop records name as the next loop index and pre-encodes its key.
func (w *Writer) addLoop(name string) {
	w.names[name] = struct{}{}
	w.loops = append(w.loops, string(appendString([]byte(`,"loop":`), name, MaxNameBytes)))
}

// uniqueName returns a non-empty name for loop idx that no earlier loop of
// this file uses: names are how events refer to loops, so two loops sharing
// one (or an empty one) would send events to the wrong loop on reading.
func (w *Writer) uniqueName(name string, idx int) string {
	name = cutString(name, MaxNameBytes)
	if name == "" {
		name = "loop-" + strconv.Itoa(idx)
	}
	base := cutString(name, MaxNameBytes-8)
	for i := 2; ; i++ {
		if _, dup := w.names[name]; !dup {
			return name
		}
		name = base + "#" + strconv.Itoa(i)
	}
}

// resolveLoop makes sure loop idx has a name in the file, announcing the
// loops registered since, or naming unknown ones "loop-N" so that the index
// still reads back.
func (w *Writer) resolveLoop(idx int) {
	if w.src != nil {
		known := w.src.Loops()
		if len(known) > len(w.loops) {
			w.announce(known[len(w.loops):])
		}
	}
	for len(w.loops) <= idx {
		w.addLoopLine(trace.LoopInfo{})
	}
}

// appendEvent encodes e as one line. It allocates nothing once the loop is
// known: keys are pre-encoded and numbers formatted in place.
func (w *Writer) appendEvent(e *trace.Event) {
	if e.Kind == trace.KindInvalid || int(e.Kind) >= trace.NumKinds {
		return
	}
	if int(e.Loop) >= len(w.loops) {
		w.resolveLoop(int(e.Loop))
	}
	b := append(w.buf, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"t":`...)
	b = strconv.AppendInt(b, e.Time, 10)
	b = append(b, w.loops[e.Loop]...)
	ks := &kinds[e.Kind]
	b = append(b, ks.prefix...)
	w.fields = e.Fields(w.fields[:0])
	for i, f := range w.fields {
		b = append(b, ks.keys[i]...)
		switch f.Type {
		case trace.FieldInt:
			if s := trace.State(f.Int); f.State && s.String() != "UNKNOWN" && int64(s) == f.Int {
				b = append(b, '"')
				b = append(b, s.String()...)
				b = append(b, '"')
			} else {
				b = strconv.AppendInt(b, f.Int, 10)
			}
		case trace.FieldBool:
			b = strconv.AppendBool(b, f.Bool)
		case trace.FieldString:
			b = appendString(b, f.Str, MaxStringBytes)
		}
	}
	w.buf = append(b, '}', '\n')
	w.events++
	if e.Time > w.last || w.events == 1 {
		w.last = e.Time
	}
	if e.Kind == trace.KindDrop && e.A > 0 {
		w.dropped += uint64(e.A)
	}
}

// kindInfo is what both directions need to know about a kind, computed once
// from the schema through trace.Event.Fields.
type kindInfo struct {
	prefix string      // `,"kind":"select_end"`
	keys   []string    // `,"ready":` per field, in Fields order
	fields []fieldInfo // the same fields, for the reader
	byName map[string]int
}

type fieldInfo struct {
	name  string
	typ   trace.FieldType
	state bool
}

var (
	kinds      [trace.NumKinds]kindInfo
	kindByName = make(map[string]trace.Kind, trace.NumKinds)
)

func init() {
	for _, k := range trace.Kinds() {
		ki := &kinds[k]
		ki.prefix = `,"kind":"` + k.String() + `"`
		e := trace.Event{Kind: k}
		ki.byName = make(map[string]int)
		for i, f := range e.Fields(nil) {
			ki.keys = append(ki.keys, `,"`+f.Name+`":`)
			ki.fields = append(ki.fields, fieldInfo{name: f.Name, typ: f.Type, state: f.State})
			ki.byName[f.Name] = i
		}
		kindByName[k.String()] = k
	}
}
