// Package chrome exports reactorviz trace events in the Chrome trace event
// format, the JSON that ui.perfetto.dev and chrome://tracing open
// (docs/architecture.md, "How events flow"):
//
//	{"traceEvents":[
//	{"ph":"M","name":"process_name","pid":1,"ts":0,"args":{"name":"multi"}},
//	{"ph":"M","name":"thread_name","pid":1,"tid":100002,"ts":0,"args":{"name":"worker-0"}},
//	{"ph":"X","name":"select","cat":"phase","pid":1,"tid":100002,"ts":1.800,"dur":998.250,"args":{...}},
//	{"ph":"i","s":"t","name":"wakeup","cat":"wakeup","pid":1,"tid":100002,"ts":800.000,"args":{...}},
//	{"ph":"C","name":"worker-0","pid":1,"tid":100002,"ts":1000.200,"args":{"queued":3}},
//	...
//	],"displayTimeUnit":"ns"}
//
// Each run (each model of a compare) is a process; each loop of it is a
// thread, tid = pid×100000 + loop index + 1, named by a thread_name record and
// ordered by loop index. Timestamps are microseconds with nanosecond
// fractions.
//
// The phases of a loop iteration become complete ("X") slices: select
// (named after its mode, "select" or "select_now"), io, tasks, and rebuild;
// each task_run becomes a slice of its own, ending when the event was raised
// and lasting took_ns, so tasks show inside their tasks phase. Slices carry
// the fields of their begin and end events as args. Wakeups, rebuilds, state
// changes, task panics, faults, accepts, registrations, closes, deadline hits,
// timers firing, drops and step-gate pauses are thread instants ("i"). Task
// queue depth (from tasks_begin and task_submit), select_cnt (from
// select_end), the wheel's pending count and an io_uring loop's SQ and CQ
// depth (ring_enter) and operations in flight (ring_submit) are counters
// ("C") named after the loop. Each accept is joined to the register of the same channel on its
// worker by a flow arrow.
//
// The phases are cut by the span fold the UI's timeline reads (package
// phases). Perfetto drops a slice that partly overlaps another on its
// thread, so the exporter makes slices nest by construction: an end with no
// begin is skipped; a phase begun while another phase is still open, or
// still open when its loop terminates, is closed there (its end was lost)
// and marked "unterminated"; slices still open
// when the exporter closes end at the process's last timestamp, also marked;
// boundaries never go back in time on one thread; and a child starts at least
// 1 ns after its parent, because Perfetto can invert slices that share a
// start time.
package chrome

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
	"github.com/reactorviz/reactorviz/tracefile/internal/jsontext"
	"github.com/reactorviz/reactorviz/tracefile/internal/sticky"
)

// LoopTable names the loops of one event stream; an Event's Loop indexes it.
// *trace.Collector implements it.
type LoopTable interface {
	Loops() []trace.LoopInfo
}

// Loops is a fixed loop table, such as the one of a recorded trace.
type Loops []trace.LoopInfo

// Loops returns l.
func (l Loops) Loops() []trace.LoopInfo { return l }

// MaxPid is the largest process id AddProcess accepts; it keeps every thread
// id (pid×100000 + loop + 1) within the 32 bits viewers parse.
const MaxPid = 40000

const (
	tidStride   = 100000        // tid = pid*tidStride + loop index + 1
	flowStride  = 1_000_000_000 // flow id = pid*flowStride + handoff number
	maxString   = 4096          // longest string arg kept
	maxName     = 256           // longest slice or instant name kept
	maxPending  = 1024          // finished slices held per loop for ordering
	maxFlows    = 1 << 16       // accepts waiting for their register, per process
	bufferLimit = 64 << 10      // bytes buffered before a write
)

// Options configures an Exporter. Zero values take the defaults.
type Options struct {
	// Process names the process (pid 1) that Exporter.Consume feeds, unless
	// AddProcess created pid 1 first. Default "reactorviz".
	Process string
	// Loops is that process's loop table, usually the run's Collector. Loops
	// it does not name are called "loop-N".
	Loops LoopTable
}

// Exporter writes one Chrome trace JSON document as events arrive. It keeps
// only open slices and a bounded number of finished ones per loop in
// memory. It is safe for use by several goroutines: each process's sink may
// run on its own collector.
type Exporter struct {
	mu      sync.Mutex
	w       io.Writer
	opts    Options
	buf     []byte
	err     error // first write error
	started bool  // the opening bracket is out
	count   int   // trace events written
	closed  bool
	procs   []*Process
	byPid   map[int]*Process
	fields  []trace.Field // scratch
}

// ErrClosed is returned by AddProcess and Flush after Close.
var ErrClosed = errors.New("chrome: exporter closed")

var (
	_ trace.Sink = (*Exporter)(nil)
	_ trace.Sink = (*Process)(nil)
	_ LoopTable  = (*trace.Collector)(nil)
)

// New returns an Exporter writing to w. It does not close w.
func New(w io.Writer, opts Options) *Exporter {
	if opts.Process == "" {
		opts.Process = "reactorviz"
	}
	return &Exporter{w: w, opts: opts, buf: make([]byte, 0, bufferLimit+8<<10), byPid: make(map[int]*Process)}
}

// Process is the sink (a trace.Sink) of one run within an Exporter.
type Process struct {
	x     *Exporter
	pid   int
	table LoopTable
	loops []*loopState
	last  int64 // latest event time seen
	seen  bool
	flows map[int64]flowStart // accepted channels waiting for their register
	nflow int64               // handoffs drawn so far
}

type flowStart struct {
	tid int64
	ts  int64
}

// loopState is what the exporter remembers of one loop: its open slices and
// the finished ones waiting for their outermost slice to end.
type loopState struct {
	name    string
	tid     int64
	named   bool
	stack   []int   // indices into pending of the open slices, outermost first
	pending []slice // in start order; written once the stack is empty
	lastT   int64   // latest slice boundary, so boundaries never go back
	cur     phases.Cursor
}

type slice struct {
	kind         trace.Kind // the begin kind, or KindTaskRun
	start, end   int64
	open         bool
	unterminated bool
	begin, fin   trace.Event
	hasFin       bool
}

// Consume feeds the events of process 1 (see Options.Process).
func (x *Exporter) Consume(batch []trace.Event) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || x.err != nil {
		return
	}
	p := x.byPid[1]
	if p == nil {
		p = x.addProcess(1, x.opts.Process, x.opts.Loops)
	}
	p.consume(batch)
}

// AddProcess adds a process with its name (the model, in compare) and loop
// table, and returns the sink that feeds it. table may be nil.
func (x *Exporter) AddProcess(pid int, name string, table LoopTable) (*Process, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case x.closed:
		return nil, ErrClosed
	case pid < 1 || pid > MaxPid:
		return nil, fmt.Errorf("chrome: pid %d out of range 1..%d", pid, MaxPid)
	case x.byPid[pid] != nil:
		return nil, fmt.Errorf("chrome: pid %d added twice", pid)
	}
	return x.addProcess(pid, name, table), nil
}

func (x *Exporter) addProcess(pid int, name string, table LoopTable) *Process {
	p := &Process{x: x, pid: pid, table: table, flows: make(map[int64]flowStart)}
	x.procs = append(x.procs, p)
	x.byPid[pid] = p
	b := x.event("M", "process_name", "", pid, 0, false)
	b = append(b, `,"args":{"name":`...)
	x.buf = append(appendString(b, name, maxName), '}', '}')
	b = x.event("M", "process_sort_index", "", pid, 0, false)
	b = append(b, `,"args":{"sort_index":`...)
	x.buf = append(strconv.AppendInt(b, int64(pid), 10), '}', '}')
	p.refresh()
	for i := range p.loops {
		p.name(p.loops[i])
	}
	return p
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.pid }

// Consume feeds events of this process's run. It is a trace.Sink.
func (p *Process) Consume(batch []trace.Event) {
	x := p.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed || x.err != nil {
		return
	}
	p.consume(batch)
}

func (p *Process) consume(batch []trace.Event) {
	for i := range batch {
		p.handle(&batch[i])
		if len(p.x.buf) >= bufferLimit {
			p.x.write()
		}
	}
}

// Flush writes what is buffered and returns the first write error.
func (x *Exporter) Flush() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return cmp.Or(x.err, ErrClosed)
	}
	x.write()
	return x.err
}

// Close ends every slice still open at its process's last timestamp, names
// loops that raised no event, writes the closing bracket and flushes. It
// returns the first write error; later calls return it again. Stop the
// collectors first: events consumed after Close are dropped.
func (x *Exporter) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return x.err
	}
	x.closed = true
	for _, p := range x.procs {
		p.finish()
	}
	x.open()
	x.buf = append(x.buf, "\n],\"displayTimeUnit\":\"ns\"}\n"...)
	x.write()
	return x.err
}

// Export writes events of one run, with its loop table, as a complete
// document: a convenience for traces read back from a file.
func Export(w io.Writer, process string, loops []trace.LoopInfo, events []trace.Event) error {
	x := New(w, Options{Process: process, Loops: Loops(loops)})
	x.Consume(events)
	return x.Close()
}

func (x *Exporter) open() {
	if !x.started {
		x.started = true
		x.buf = append(x.buf, `{"traceEvents":[`...)
	}
}

// write hands the buffer to the underlying writer and keeps the first error.
func (x *Exporter) write() {
	x.err = sticky.Write(x.w, x.buf, x.err)
	x.buf = x.buf[:0]
}

// event starts a trace event object with its common keys and returns the
// buffer; the caller appends the rest and the closing brace.
func (x *Exporter) event(ph, name, cat string, pid int, tid int64, withTid bool) []byte {
	x.open()
	b := x.buf
	if x.count > 0 {
		b = append(b, ',')
	}
	x.count++
	b = append(b, "\n{\"ph\":\""...)
	b = append(b, ph...)
	b = append(b, `","name":`...)
	b = appendString(b, name, maxName)
	if cat != "" {
		b = append(b, `,"cat":"`...)
		b = append(b, cat...)
		b = append(b, '"')
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	if withTid {
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, tid, 10)
	}
	if ph == "M" {
		// Metadata has no time; some importers want a ts all the same.
		b = append(b, `,"ts":0`...)
	}
	return b
}

// refresh extends the loop table from the LoopTable.
func (p *Process) refresh() {
	if p.table == nil {
		return
	}
	known := p.table.Loops()
	for i := len(p.loops); i < len(known) && i < math.MaxUint16+1; i++ {
		p.loops = append(p.loops, p.newLoop(i, known[i].Name))
	}
}

func (p *Process) newLoop(i int, name string) *loopState {
	if name == "" {
		name = "loop-" + strconv.Itoa(i)
	}
	return &loopState{name: name, tid: int64(p.pid)*tidStride + int64(i) + 1, lastT: math.MinInt64}
}

// loop returns the state of loop idx, naming its thread on first use.
func (p *Process) loop(idx uint16) *loopState {
	if int(idx) >= len(p.loops) {
		p.refresh()
		for len(p.loops) <= int(idx) {
			p.loops = append(p.loops, p.newLoop(len(p.loops), ""))
		}
	}
	ls := p.loops[idx]
	if !ls.named {
		p.name(ls)
	}
	return ls
}

// name writes a loop's thread_name and thread_sort_index records.
func (p *Process) name(ls *loopState) {
	ls.named = true
	x := p.x
	b := x.event("M", "thread_name", "", p.pid, ls.tid, true)
	b = append(b, `,"args":{"name":`...)
	x.buf = append(appendString(b, ls.name, maxName), '}', '}')
	b = x.event("M", "thread_sort_index", "", p.pid, ls.tid, true)
	b = append(b, `,"args":{"sort_index":`...)
	x.buf = append(strconv.AppendInt(b, (ls.tid-1)%tidStride, 10), '}', '}')
}

// handle turns one event into slices, instants, counters and flows.
func (p *Process) handle(e *trace.Event) {
	if e.Kind == trace.KindInvalid || int(e.Kind) >= trace.NumKinds {
		return
	}
	if !p.seen || e.Time > p.last {
		p.last, p.seen = e.Time, true
	}
	ls := p.loop(e.Loop)
	if phases.Reads(e.Kind) {
		p.phase(ls, e)
	}
	switch e.Kind {
	case trace.KindRebuildBegin:
		if i := ls.open(trace.KindRebuildBegin); i >= 0 {
			p.closeFrom(ls, i, e.Time)
		}
		p.begin(ls, e)
	case trace.KindRebuildEnd:
		p.end(ls, e)
	case trace.KindTaskRun:
		p.complete(ls, e)
	}

	switch e.Kind {
	case trace.KindTasksBegin:
		p.counter(ls, e.Time, "queued", e.A)
	case trace.KindTaskSubmit:
		p.counter(ls, e.Time, "queued", e.B)
	case trace.KindSelectEnd:
		p.counter(ls, e.Time, "select_cnt", e.C)
	case trace.KindWheelTick:
		p.counter(ls, e.Time, "pending", e.D)
	case trace.KindRingEnter:
		p.counter(ls, e.Time, "sq_depth", e.D)
		p.counter(ls, e.Time, "cq_depth", e.E)
	case trace.KindRingSubmit:
		p.counter(ls, e.Time, "in_flight", e.C)
	}

	if e.Kind == trace.KindDeadlineCheck && !e.Flag {
		return // a check that did not hit is routine: not worth a marker
	}
	if cat := instantCat[e.Kind]; cat != "" {
		p.instant(ls, e, cat)
	}
	switch e.Kind {
	case trace.KindAccept:
		if len(p.flows) >= maxFlows {
			// Accepts whose register was dropped pile up here; forget
			// them all rather than stop drawing arrows for the rest of
			// the run.
			clear(p.flows)
		}
		p.flows[e.A] = flowStart{tid: ls.tid, ts: e.Time}
	case trace.KindRegister:
		if s, ok := p.flows[e.A]; ok {
			delete(p.flows, e.A)
			// Viewers read flows in time order: an arrow back in time
			// (clocks of a corrupt stream) would be an end without a start.
			if e.Time >= s.ts {
				p.flow(s, ls.tid, e.Time)
			}
		}
	}
}

// phase draws the iteration's phases as the span fold cuts them: the
// three phases follow one another and never nest, so a begin closes the
// phase still open (its end was lost) and so does the loop's termination;
// an end closes its own phase, and one whose begin was lost is skipped.
func (p *Process) phase(ls *loopState, e *trace.Event) {
	st := ls.cur.Apply(e, ls.name)
	if st.Closed {
		if !st.Span.Cut {
			p.end(ls, e)
		} else if i := ls.open(phaseBegin[st.Span.Phase]); i >= 0 {
			p.closeFrom(ls, i, e.Time)
		}
	}
	if st.Opened != trace.PhaseNone {
		p.begin(ls, e)
	}
}

// phaseBegin maps a phase to the kind that begins it.
var phaseBegin = [...]trace.Kind{
	trace.PhaseSelect: trace.KindSelectBegin,
	trace.PhaseIO:     trace.KindIOBegin,
	trace.PhaseTasks:  trace.KindTasksBegin,
}

// open returns the stack position of the open slice begun by kind k, or
// -1. A phase's slice may be gone already: an enclosing slice's end (a
// rebuild begun before it) closed it.
func (ls *loopState) open(k trace.Kind) int {
	for i, idx := range ls.stack {
		if ls.pending[idx].kind == k {
			return i
		}
	}
	return -1
}

// beginOf maps an end kind to the begin kind it closes.
var beginOf = [trace.NumKinds]trace.Kind{
	trace.KindSelectEnd:  trace.KindSelectBegin,
	trace.KindIOEnd:      trace.KindIOBegin,
	trace.KindTasksEnd:   trace.KindTasksBegin,
	trace.KindRebuildEnd: trace.KindRebuildBegin,
}

// instantCat lists the kinds drawn as instants, with their category.
var instantCat = [trace.NumKinds]string{
	trace.KindState:         "state",
	trace.KindWakeup:        "wakeup",
	trace.KindRebuildBegin:  "rebuild",
	trace.KindRebuildEnd:    "rebuild",
	trace.KindTaskPanic:     "task",
	trace.KindTaskReject:    "task",
	trace.KindInject:        "fault",
	trace.KindAccept:        "channel",
	trace.KindRegister:      "channel",
	trace.KindConnect:       "channel",
	trace.KindIORatio:       "config",
	trace.KindClose:         "channel",
	trace.KindException:     "channel",
	trace.KindDeadlineCheck: "task",
	trace.KindTimerDue:      "timer",
	trace.KindWheelExpire:   "timer",
	trace.KindDrop:          "trace",
	trace.KindPause:         "step",
	trace.KindResume:        "step",
}

// parentStart is the earliest a new child of the open slices may start: 1 ns
// after its parent, so no two nested slices share a start time.
func (ls *loopState) parentStart() int64 {
	if len(ls.stack) == 0 {
		return math.MinInt64
	}
	return sat(ls.pending[ls.stack[len(ls.stack)-1]].start, 1)
}

func (p *Process) begin(ls *loopState, e *trace.Event) {
	start := max(e.Time, ls.lastT, ls.parentStart())
	ls.lastT = start
	ls.pending = append(ls.pending, slice{kind: e.Kind, start: start, open: true, begin: *e})
	ls.stack = append(ls.stack, len(ls.pending)-1)
	p.bound(ls)
}

// end closes the innermost open slice that e ends, and any opened inside it
// whose ends were lost. An end with no open begin is skipped.
func (p *Process) end(ls *loopState, e *trace.Event) {
	want := beginOf[e.Kind]
	for i := len(ls.stack) - 1; i >= 0; i-- {
		if ls.pending[ls.stack[i]].kind != want {
			continue
		}
		if i+1 < len(ls.stack) {
			p.closeFrom(ls, i+1, e.Time)
		}
		s := &ls.pending[ls.stack[i]]
		s.end = max(e.Time, ls.lastT)
		ls.lastT = s.end
		s.open, s.fin, s.hasFin = false, *e, true
		ls.stack = ls.stack[:i]
		p.settle(ls)
		return
	}
}

// closeFrom ends the open slices from stack position i up, innermost first,
// at t, marking them unterminated.
func (p *Process) closeFrom(ls *loopState, i int, t int64) {
	for j := len(ls.stack) - 1; j >= i; j-- {
		s := &ls.pending[ls.stack[j]]
		s.end = max(t, ls.lastT)
		ls.lastT = s.end
		s.open, s.unterminated = false, true
	}
	ls.stack = ls.stack[:i]
	p.settle(ls)
}

// complete adds a task_run: a slice that ends at the event and lasted took_ns.
func (p *Process) complete(ls *loopState, e *trace.Event) {
	took := max(e.B, 0)
	start := max(sat(e.Time, -took), ls.lastT, ls.parentStart())
	end := max(e.Time, start)
	ls.lastT = end
	ls.pending = append(ls.pending, slice{kind: e.Kind, start: start, end: end, begin: *e})
	p.settle(ls)
}

// settle writes the held slices once no slice is open on the loop, in start
// order, so that each thread's slices appear parents first. If too many are
// held under a long open slice, the finished ones go out now: viewers sort
// by time anyway, and memory stays bounded.
func (p *Process) settle(ls *loopState) {
	if len(ls.stack) == 0 {
		for i := range ls.pending {
			p.slice(ls, &ls.pending[i])
		}
		clear(ls.pending)
		ls.pending = ls.pending[:0]
		return
	}
	p.bound(ls)
}

func (p *Process) bound(ls *loopState) {
	if len(ls.pending) <= maxPending {
		return
	}
	kept := ls.pending[:0]
	for i := range ls.pending {
		if ls.pending[i].open {
			kept = append(kept, ls.pending[i])
		} else {
			p.slice(ls, &ls.pending[i])
		}
	}
	clear(ls.pending[len(kept):])
	ls.pending = kept
	// The open slices are exactly the stack, outermost first.
	for i := range ls.stack {
		ls.stack[i] = i
	}
}

// finish closes everything still open at the process's last timestamp.
func (p *Process) finish() {
	for _, ls := range p.loops {
		if len(ls.stack) > 0 {
			p.closeFrom(ls, 0, p.last)
		}
	}
	p.refresh()
	for _, ls := range p.loops {
		if !ls.named {
			p.name(ls)
		}
	}
}

// slice writes one X event.
func (p *Process) slice(ls *loopState, s *slice) {
	x := p.x
	name, cat := sliceName(s)
	b := x.event("X", name, cat, p.pid, ls.tid, true)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, s.start)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, s.end-s.start)
	b = append(b, `,"args":{`...)
	x.fields = s.begin.Fields(x.fields[:0])
	if s.hasFin {
		x.fields = s.fin.Fields(x.fields)
	}
	b = appendFields(b, x.fields)
	if s.unterminated {
		if len(x.fields) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"unterminated":true`...)
	}
	x.buf = append(b, '}', '}')
}

func sliceName(s *slice) (name, cat string) {
	switch s.kind {
	case trace.KindSelectBegin:
		if s.begin.Str != "" {
			return s.begin.Str, "phase"
		}
		return "select", "phase"
	case trace.KindIOBegin:
		return "io", "phase"
	case trace.KindTasksBegin:
		return "tasks", "phase"
	case trace.KindRebuildBegin:
		return "rebuild", "rebuild"
	}
	if s.begin.Str != "" {
		return s.begin.Str, "task"
	}
	return "task", "task"
}

func (p *Process) instant(ls *loopState, e *trace.Event, cat string) {
	x := p.x
	name := e.Kind.String()
	if e.Kind == trace.KindState {
		name = "state " + stateName(e.B)
	}
	b := x.event("i", name, cat, p.pid, ls.tid, true)
	b = append(b, `,"s":"t","ts":`...)
	b = appendMicros(b, e.Time)
	b = append(b, `,"args":{`...)
	x.fields = e.Fields(x.fields[:0])
	x.buf = append(appendFields(b, x.fields), '}', '}')
}

func (p *Process) counter(ls *loopState, t int64, key string, v int64) {
	x := p.x
	b := x.event("C", ls.name, "", p.pid, ls.tid, true)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, t)
	b = append(b, `,"args":{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	x.buf = append(strconv.AppendInt(b, v, 10), '}', '}')
}

// flow writes the arrow from an accept on the boss to the register of the
// same channel on its worker. Perfetto pairs flow events by id, category and
// name across the whole file and refuses an id used twice, so the id is the
// handoff's number within its process (not the channel id, which a corrupt or
// replayed stream may repeat) offset by pid×1e9 to keep the models of a
// compare apart. The channel id is in the args of the accept and register
// instants the arrow joins.
func (p *Process) flow(s flowStart, tid, ts int64) {
	x := p.x
	p.nflow++
	id := int64(p.pid)*flowStride + p.nflow
	b := x.event("s", "handoff", "handoff", p.pid, s.tid, true)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, s.ts)
	b = append(b, `,"id":`...)
	x.buf = append(strconv.AppendInt(b, id, 10), '}')
	b = x.event("f", "handoff", "handoff", p.pid, tid, true)
	b = append(b, `,"bp":"e","ts":`...)
	b = appendMicros(b, ts)
	b = append(b, `,"id":`...)
	x.buf = append(strconv.AppendInt(b, id, 10), '}')
}

// appendFields writes fields as the members of an args object. A name seen
// twice (rebuild_begin and rebuild_end both carry select_cnt) is written once,
// with the later value dropped.
func appendFields(b []byte, fs []trace.Field) []byte {
	n := 0
	for i, f := range fs {
		dup := false
		for _, g := range fs[:i] {
			if g.Name == f.Name {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, '"')
		b = append(b, f.Name...)
		b = append(b, '"', ':')
		switch f.Type {
		case trace.FieldInt:
			if f.State && stateName(f.Int) != "UNKNOWN" {
				b = append(b, '"')
				b = append(b, stateName(f.Int)...)
				b = append(b, '"')
			} else {
				b = strconv.AppendInt(b, f.Int, 10)
			}
		case trace.FieldBool:
			b = strconv.AppendBool(b, f.Bool)
		case trace.FieldString:
			b = appendString(b, f.Str, maxString)
		}
	}
	return b
}

// stateName names a State held in an int64 slot, or returns "UNKNOWN".
func stateName(v int64) string {
	if int64(int32(v)) != v {
		return "UNKNOWN"
	}
	return trace.State(v).String()
}

// appendMicros writes ns as microseconds with three decimals, exactly.
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/1000, 10)
	f := u % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// sat returns a+d, saturating at the int64 limits.
func sat(a, d int64) int64 {
	s := a + d
	switch {
	case d > 0 && s < a:
		return math.MaxInt64
	case d < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// appendString appends s as a JSON string, cut to limit bytes on a rune
// boundary, with invalid UTF-8 replaced by U+FFFD.
func appendString(dst []byte, s string, limit int) []byte {
	return jsontext.AppendString(dst, s, limit)
}
