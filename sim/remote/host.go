package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/sim"
)

// NewRun builds a run, not yet started, whose JSONL trace goes to traceTo
// (sim.Options.TraceTo). reactorviz's is tui.LiveRun with it in the
// options, so that the page sees the run the terminal would.
type NewRun func(traceTo io.Writer) (*sim.Run, error)

// Host runs the live runs a page asks for, one page at a time: a page that
// connects takes over from the one before, whose run is stopped first (a
// reload is the common case).
type Host struct {
	newRun NewRun

	mu      sync.Mutex
	current context.CancelCauseFunc // the connection being served
	served  chan struct{}           // closed when it has been served
	last    *sim.Summary            // of the last run that ended, for the command to print
}

const (
	// stateEvery is how often a state goes out while a run runs: about
	// the live screen's frame rate.
	stateEvery = 50 * time.Millisecond
	// stopTimeout bounds the wait for a run's graceful shutdown, as the
	// terminal's.
	stopTimeout = 30 * time.Second
	// maxQueued bounds what waits to be sent to a page that reads slower
	// than the run makes events; past it the page is cut off, with a close
	// that says why, rather than the host holding the run's events without
	// bound.
	maxQueued = 64 << 20
)

// NewHost returns a host whose runs newRun builds.
func NewHost(newRun NewRun) *Host { return &Host{newRun: newRun} }

// LastSummary is the summary of the last run that ended, or nil.
func (h *Host) LastSummary() *sim.Summary {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// ErrTakenOver is why a page is let go when another connects: a normal
// end of its connection (close code 1000).
var ErrTakenOver error = &closeError{1000, "another page took over the live run"}

// ErrFellBehind is why a page is cut off: it read slower than the run made
// events, and maxQueued bytes waited for it (close code 1008, policy).
var ErrFellBehind error = &closeError{1008, "the page fell behind the run"}

// closeError is why the host lets a page go, with the WebSocket close code
// (RFC 6455 7.4.1) that says so to the page: its CloseCode is what the
// connection's owner (package web) closes with.
type closeError struct {
	code int
	msg  string
}

func (e *closeError) Error() string  { return e.msg }
func (e *closeError) CloseCode() int { return e.code }

// Serve serves one page on c until c fails or ctx ends, then stops its run
// and waits for it. It returns why the connection ended: nil when ctx
// ended, ErrTakenOver, ErrFellBehind, or c's error.
func (h *Host) Serve(ctx context.Context, c Conn) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	served := make(chan struct{})
	defer close(served)
	h.mu.Lock()
	prevCancel, prevServed := h.current, h.served
	h.current, h.served = cancel, served
	h.mu.Unlock()
	if prevCancel != nil {
		prevCancel(ErrTakenOver)
		<-prevServed
	}
	p := &page{h: h, c: c, out: newOutbox(maxQueued)}
	return p.serve(ctx)
}

// page is the host's side of one connection.
type page struct {
	h   *Host
	c   Conn
	out *outbox

	mu   sync.Mutex
	run  *sim.Run // built, maybe started; nil before the first new
	live bool     // run started and not yet ended
	// told is closed once the page has been told the started run ended:
	// a new run's built must come after it, or the page would take the
	// old run's end for the new one's.
	told chan struct{}
	seq  uint64 // ops applied
	// closed is set, under mu, once serve has begun to stop: the reader
	// may still be building or starting a run, which must then not
	// outlive the page, nor add to wg while serve waits on it.
	closed bool
	wg     sync.WaitGroup
}

// serve runs the page's three goroutines: this one reads ops, one writes
// what the outbox holds, one sends the state while a run runs.
func (p *page) serve(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	writeDone := make(chan struct{})
	go func() {
		defer close(writeDone)
		if err := p.out.drain(p.c); err != nil {
			cancel(err)
		}
	}()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.tick(ctx)
	}()
	readErr := make(chan error, 1)
	go func() { readErr <- p.read(ctx) }()
	var err error
	select {
	case err = <-readErr:
		cancel(err)
	case <-ctx.Done():
		err = context.Cause(ctx)
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.stopRun()
	p.wg.Wait()
	p.out.close()
	<-writeDone
	// The reader ends when the connection is closed, which its owner does
	// once Serve returns; it is not waited for here.
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// read applies the page's ops until the connection fails.
func (p *page) read(ctx context.Context) error {
	for ctx.Err() == nil {
		binary, data, err := p.c.ReadMessage()
		if err != nil {
			return err
		}
		o, err := readOp(binary, data)
		if err != nil {
			return err
		}
		p.apply(o)
	}
	return nil
}

// readOp reads a control from a page's message; a message that is not one
// is the page's fault, closed with the code RFC 6455 gives it: 1003 for a
// binary message (the page sends text), 1009 for one too big, 1008 for
// text that is not a control.
func readOp(binary bool, data []byte) (op, error) {
	var o op
	switch {
	case binary:
		return o, &closeError{1003, "remote: a page sends controls as text, not binary"}
	case len(data) > MaxControl:
		return o, &closeError{1009, fmt.Sprintf("remote: a control of %d bytes; at most %d", len(data), MaxControl)}
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return o, &closeError{1008, fmt.Sprintf("remote: not a control: %v", err)}
	}
	return o, nil
}

// apply carries out one op and answers it with a state, so the page sees
// its effect on the gates without waiting for the next tick.
func (p *page) apply(o op) {
	switch r := p.current(); {
	case o.Op == opNew:
		p.build()
	case o.Op == opStart:
		p.start()
	case r == nil: // no run yet: nothing to stop, hold or control
	case o.Op == opStop:
		r.Stop()
	case o.Op == opHold:
		r.HoldClock(o.On)
	default:
		control(r, o)
		r.Sample() // the gate changed: the stream says so soon
	}
	p.mu.Lock()
	p.seq++
	p.mu.Unlock()
	p.sendState()
}

func (p *page) current() *sim.Run {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.run
}

// control sends a gate control to one loop of r.
func control(r *sim.Run, o op) {
	loops := r.Loops()
	if o.Loop < 0 || o.Loop >= len(loops) {
		return
	}
	l := loops[o.Loop]
	reason := o.Reason
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	switch o.Op {
	case opPause:
		if o.Run {
			l.PauseRun(reason)
		} else {
			l.Pause(reason)
		}
	case opResume:
		l.Resume()
	case opStep:
		// Through the run, as the terminal's step key: a held run clock
		// runs for the step only.
		if o.Iteration {
			r.Step(l, l.StepIteration)
		} else {
			r.Step(l, l.Step)
		}
	case opBreaks:
		l.SetBreakpoints(o.Breaks)
	case opSlow:
		l.SetSlowMotion(min(max(o.Delay, 0), 10*time.Second))
	}
}

// build makes a new run, after the last one has ended: their traces must
// not interleave on the one connection.
func (p *page) build() {
	p.stopRun()
	r, err := p.h.newRun(traceStream{p.out})
	m := message{T: msgBuilt}
	if err != nil {
		m.Err = err.Error()
		p.out.text(m)
		return
	}
	sc := r.Scenario().Portable()
	m.Loops, m.Controls, m.Scenario, m.Duration, m.Threshold = r.LoopTable(), len(r.Loops()), &sc, r.Duration(), r.RebuildThreshold()
	for _, w := range r.Scenario().Warnings() {
		m.Warnings = append(m.Warnings, w.String())
	}
	p.mu.Lock()
	closed := p.closed
	if !closed {
		p.run, p.live = r, false
	}
	p.mu.Unlock()
	if closed {
		p.discard(r, false) // the page went while the run was built
		return
	}
	p.out.text(m)
}

// start starts the run built last and watches for its end.
func (p *page) start() {
	p.mu.Lock()
	r, live := p.run, p.live
	p.mu.Unlock()
	m := message{T: msgStarted}
	switch {
	case r == nil:
		m.Err = "no run to start: new builds one"
	case live:
		m.Err = "the run has started already"
	default:
		if err := r.Start(); err != nil {
			m.Err = err.Error()
		}
	}
	if m.Err != "" {
		p.out.text(m)
		return
	}
	m.Addrs = r.Addrs()
	told := make(chan struct{})
	p.mu.Lock()
	if p.closed {
		// The page went while the run started: serve has stopped what
		// it knew of, so this run is stopped here.
		p.mu.Unlock()
		p.discard(r, true)
		return
	}
	p.live, p.told = true, told
	p.wg.Add(1) // under mu: serve waits on wg only once closed is set
	p.mu.Unlock()
	p.out.text(m)
	go func() {
		defer p.wg.Done()
		defer close(told)
		<-r.Done()
		p.ended(r)
	}()
}

// ended tells the page its run is over, after the trace's end line, which
// the run wrote before Done closed.
func (p *page) ended(r *sim.Run) {
	p.sendState()
	m := message{T: msgEnded}
	if err := r.Err(); err != nil {
		m.Err = err.Error()
	}
	if s := r.Summary(); s != nil {
		m.Summary = s.JSON()
		p.h.mu.Lock()
		p.h.last = s
		p.h.mu.Unlock()
	}
	p.mu.Lock()
	if p.run == r {
		p.live = false
	}
	p.mu.Unlock()
	p.out.text(m)
}

// discard ends a run no page will see: started or not (a run built and
// never started is torn down by starting and stopping it, the one way sim
// offers), it is stopped and waited for, up to the stop timeout.
func (p *page) discard(r *sim.Run, started bool) {
	select {
	case <-r.Done():
		return
	default:
	}
	if !started && r.Start() != nil {
		return
	}
	r.Stop()
	select {
	case <-r.Done():
	case <-time.After(stopTimeout):
	}
}

// stopRun discards the current run, if any, and waits (up to the stop
// timeout) until the page has heard of the end of one that started.
func (p *page) stopRun() {
	p.mu.Lock()
	r, live, told := p.run, p.live, p.told
	p.mu.Unlock()
	if r == nil {
		return
	}
	if told != nil {
		// However this returns, the page hears of the end first.
		defer func() {
			select {
			case <-told:
			case <-time.After(stopTimeout):
			}
		}()
	}
	p.discard(r, live)
}

// tick sends the state while a run runs.
func (p *page) tick(ctx context.Context) {
	t := time.NewTicker(stateEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.mu.Lock()
			live := p.live
			p.mu.Unlock()
			if live {
				p.sendState()
			}
		}
	}
}

// sendState queues the probe's reading of the run now, unless one is
// queued already and not yet sent.
func (p *page) sendState() {
	r := p.current()
	if r == nil {
		return
	}
	p.out.state(func() []byte {
		// The ops applied are read with the state, when it is sent: a
		// state queued before a later op, and sent after it, says so.
		p.mu.Lock()
		seq := p.seq
		p.mu.Unlock()
		m := message{T: msgState, Seq: seq, State: readState(r)}
		b, _ := json.Marshal(m)
		return b
	})
}

// readState reads the run's clock and its loops' gates, without stopping
// a loop. The figures go in the trace, as samples.
func readState(r *sim.Run) *state {
	now := r.TraceNow()
	s := &state{Elapsed: r.Elapsed(), Now: now, Answered: r.Answered(), Held: r.ClockHeld()}
	if s.Elapsed > 0 || r.ClockMap()(now) > 0 {
		s.Origin = now - int64(r.ClockMap()(now))
	}
	for _, l := range r.Loops() {
		s.Loops = append(s.Loops, loopState{State: l.State(), TID: l.TID(), Gate: l.GateStatus()})
	}
	return s
}

// traceStream is the run's JSONL trace on its way to the page. The writer
// calls Write on the collector's goroutine, with whole lines: it must not
// wait for the page, so a copy of the bytes is queued.
type traceStream struct{ out *outbox }

func (t traceStream) Write(b []byte) (int, error) {
	if err := t.out.push(item{binary: true, data: b}); err != nil {
		return 0, err
	}
	return len(b), nil
}
