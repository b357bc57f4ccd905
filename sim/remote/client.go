package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// Client is the page's side of a connection to a Host: it makes the
// sessions the live screen shows (tui.RemoteRun), one run at a time.
type Client struct {
	c   Conn
	wmu sync.Mutex // one write at a time

	mu      sync.Mutex
	seq     uint64   // ops sent
	cur     *Session // the run whose messages arrive now
	replies chan message
	gone    chan struct{} // closed when the connection has failed
	err     error
}

// NewClient reads c until it fails; Close it by closing c.
func NewClient(c Conn) *Client {
	cl := &Client{c: c, replies: make(chan message, 4), gone: make(chan struct{})}
	go cl.read()
	return cl
}

// Gone is closed once the connection has failed; Err says why.
func (c *Client) Gone() <-chan struct{} { return c.gone }

// Err is why the connection failed, once Gone is closed.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// send writes an op and returns its number: the host counts the ops it
// applies the same way.
func (c *Client) send(o op) uint64 {
	b, _ := json.Marshal(o)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	_ = c.c.WriteMessage(false, b)
	return seq
}

// replyTimeout bounds the wait for built and started: a host builds a run
// in milliseconds and binds it in a second at most.
const replyTimeout = 30 * time.Second

// request sends o and waits for its answer, of type t; an answer that
// carries an error is that error.
func (c *Client) request(o op, t string) (message, error) {
	c.send(o)
	timer := time.NewTimer(replyTimeout)
	defer timer.Stop()
	for {
		select {
		case m := <-c.replies:
			if m.T != t {
				continue
			}
			if m.Err != "" {
				return message{}, errors.New(m.Err)
			}
			return m, nil
		case <-c.gone:
			return message{}, c.Err()
		case <-timer.C:
			return message{}, fmt.Errorf("remote: no %s from the run within %v", t, replyTimeout)
		}
	}
}

// Run asks the host for a run and returns it as a session, not yet
// started, whose events go to sink.
func (c *Client) Run(sink trace.Sink) (*Session, error) {
	m, err := c.request(op{Op: opNew}, msgBuilt)
	if err != nil {
		return nil, err
	}
	if m.Scenario == nil {
		return nil, errors.New("remote: the run came without its scenario")
	}
	sc, err := scenarios.FromPortable(*m.Scenario)
	if err != nil {
		return nil, fmt.Errorf("remote: the run's scenario: %w", err)
	}
	s := &Session{c: c, sc: sc, built: m, sink: sink, trace: newChunks(),
		done: make(chan struct{}), decoded: make(chan struct{})}
	if m.Controls < 0 || m.Controls > len(m.Loops) {
		return nil, fmt.Errorf("remote: %d loops in a table of %d", m.Controls, len(m.Loops))
	}
	s.gates = make([]pending, m.Controls)
	for i := range m.Controls {
		s.loops = append(s.loops, &Loop{s: s, i: i})
	}
	c.mu.Lock()
	c.cur = s
	c.mu.Unlock()
	go s.decode()
	return s, nil
}

// read dispatches what the host sends: the trace and states to the
// current session, answers to whoever waits for them.
func (c *Client) read() {
	var err error
	for {
		var binary bool
		var data []byte
		binary, data, err = c.c.ReadMessage()
		if err != nil {
			break
		}
		c.mu.Lock()
		s := c.cur
		c.mu.Unlock()
		if binary {
			if s != nil {
				s.trace.add(data)
			}
			continue
		}
		var m message
		if err = json.Unmarshal(data, &m); err != nil {
			err = fmt.Errorf("remote: a message from the run: %w", err)
			break
		}
		switch m.T {
		case msgState:
			if s != nil && m.State != nil {
				s.setState(m.Seq, m.State)
			}
		case msgEnded:
			if s != nil {
				s.end(m)
			}
		default:
			c.replies <- m
		}
	}
	c.mu.Lock()
	c.err = err // the connection's own word on why it ended
	if c.err == nil {
		c.err = errClosed
	}
	s := c.cur
	c.mu.Unlock()
	if s != nil {
		s.end(message{Err: errClosed.Error()})
	}
	close(c.gone)
}

// Session is a run of the host as the live screen reads it: the loops'
// figures from the last state, the events from the trace, the controls
// sent to the host.
type Session struct {
	c     *Client
	sc    *scenarios.Scenario
	built message // the host's answer to new: the run's loop table, duration, threshold, warnings
	sink  trace.Sink
	loops []*Loop
	trace *chunks

	mu       sync.Mutex
	addrs    []string
	st       state
	gates    []pending // what the page asked of each gate, until a state answers it
	summary  *sim.Summary
	ended    bool
	stopOnce sync.Once
	done     chan struct{} // closed once ended and decoded
	decoded  chan struct{} // closed when the trace has been read to its end
	traceErr error
}

// Warnings are what the run's scenario sets to no effect, as the host
// read them (its --set overrides included), for the page's status line.
func (s *Session) Warnings() []string { return append([]string(nil), s.built.Warnings...) }

// pending is a gate control sent and not yet answered.
type pending struct {
	seq    uint64 // the op's number; 0 for none
	paused bool
	reason string
}

// Start has the host start the run and waits until it has.
func (s *Session) Start() error {
	m, err := s.c.request(op{Op: opStart}, msgStarted)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.addrs = m.Addrs
	s.mu.Unlock()
	return nil
}

// Done is closed when the host's run has ended and
// its trace has been read to the end line, or the connection is gone.
func (s *Session) Done() <-chan struct{} { return s.done }

// Stop has the host stop the run. Idempotent.
func (s *Session) Stop() { s.stopOnce.Do(func() { s.c.send(op{Op: opStop}) }) }

// Summary is the run's summary, as the host sent it, once Done is closed.
func (s *Session) Summary() *sim.Summary {
	select {
	case <-s.done:
	default:
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.summary
}

func (s *Session) Scenario() *scenarios.Scenario { return s.sc }
func (s *Session) Loops() []*Loop                { return s.loops }
func (s *Session) LoopTable() []trace.LoopInfo {
	return append([]trace.LoopInfo(nil), s.built.Loops...)
}
func (s *Session) RebuildThreshold() int   { return s.built.Threshold }
func (s *Session) Duration() time.Duration { return s.built.Duration }

func (s *Session) Addrs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addrs
}

// state is the host's last state, with the page's own hold.
func (s *Session) state() state {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

func (s *Session) Answered() int64        { return s.state().Answered }
func (s *Session) Elapsed() time.Duration { return s.state().Elapsed }
func (s *Session) TraceNow() int64        { return s.state().Now }

// HoldClock has the host hold (or let go) its run's clock.
// The page takes the hold at once, as it takes a pause, and the host's
// next state confirms it.
func (s *Session) HoldClock(hold bool) {
	s.mu.Lock()
	s.st.Held = hold
	s.mu.Unlock()
	s.c.send(op{Op: opHold, On: hold})
}

// ClockHeld reports whether the run clock is held, from the last state or the page's own
// hold.
func (s *Session) ClockHeld() bool { return s.state().Held }

// Step runs step, a step of loop i. The host steps through its run, which lets
// a held clock run for the step (see control in host.go), so step, the loop's
// own Step or StepIteration, is all there is to send.
func (s *Session) Step(_ int, step func()) { step() }

// Sample does nothing: the host samples the run after each
// control it carries out, so there is nothing to ask.
func (s *Session) Sample() {}

// ClockMap puts an event's time on the run clock, from the run clock's origin the host
// reported.
func (s *Session) ClockMap() func(int64) time.Duration { return sim.ClockFrom(s.state().Origin) }

// setState takes a state from the host; seq is the number of ops it had
// applied, which answers the gate controls sent up to it.
func (s *Session) setState(seq uint64, st *state) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st = *st
	for i := range s.gates {
		if s.gates[i].seq != 0 && s.gates[i].seq <= seq {
			s.gates[i] = pending{}
		}
	}
}

// end marks the run over; Done closes once the trace is read too.
func (s *Session) end(m message) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	if len(m.Summary) > 0 {
		s.summary, _ = sim.SummaryFromJSON(m.Summary)
	}
	s.mu.Unlock()
	s.trace.close()
	go func() {
		<-s.decoded
		close(s.done)
	}()
}

// decodeBatch is how many events the decoder hands the sink at most at
// once.
const decodeBatch = 4096

// decode reads the trace as it comes and hands its events to the sink, in
// batches: all the events of what has arrived, before waiting for more.
func (s *Session) decode() {
	defer close(s.decoded)
	var batch []trace.Event
	flush := func() {
		if len(batch) > 0 {
			s.sink.Consume(batch)
			batch = batch[:0]
		}
	}
	s.trace.onIdle = flush
	rs, _ := s.sink.(trace.RecordSink)
	r, err := jsonl.NewReader(s.trace, "live run")
	for err == nil {
		var ev trace.Event
		var sm *sample.Sample
		ev, sm, err = r.NextRecord()
		if err != nil {
			break
		}
		if sm != nil {
			// After the events before it, as the host's collector
			// delivered it: the page's model folds the one stream.
			flush()
			if rs != nil {
				rs.ConsumeRecord(sm)
			}
			continue
		}
		batch = append(batch, ev)
		if len(batch) >= decodeBatch {
			flush()
		}
	}
	flush()
	if err != nil && !errors.Is(err, io.EOF) {
		s.mu.Lock()
		s.traceErr = err
		s.mu.Unlock()
		s.trace.discard()
	}
}

// Loop is one loop of the host's run: the controls of its step gate, sent
// to the host, and its life and gate as the host last reported them.
type Loop struct {
	s *Session
	i int
}

func (l *Loop) ls() loopState {
	if l.i < len(l.s.st.Loops) {
		return l.s.st.Loops[l.i]
	}
	return loopState{}
}

func (l *Loop) Name() string       { return l.s.built.Loops[l.i].Name }
func (l *Loop) State() trace.State { return l.reported().State }
func (l *Loop) TID() int           { return l.reported().TID }

// reported is the loop's life and gate as the host last reported them.
func (l *Loop) reported() loopState {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	return l.ls()
}

// GateStatus is the host's last word on the gate, or what the page asked
// since, so that a second key press acts on the first one's effect.
func (l *Loop) GateStatus() reactor.GateStatus {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	g := l.ls().Gate
	if p := l.s.gates[l.i]; p.seq != 0 {
		g.Paused, g.Reason = p.paused, p.reason
		if !p.paused {
			g.Waiting = false
		}
	}
	return g
}

// gate sends a gate control and keeps what it asks for until answered.
func (l *Loop) gate(o op, paused bool) {
	o.Loop = l.i
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	seq := l.s.c.send(o)
	l.s.gates[l.i] = pending{seq: seq, paused: paused, reason: o.Reason}
}

func (l *Loop) Pause(reason string)    { l.gate(op{Op: opPause, Reason: reason}, true) }
func (l *Loop) PauseRun(reason string) { l.gate(op{Op: opPause, Reason: reason, Run: true}, true) }
func (l *Loop) Resume()                { l.gate(op{Op: opResume}, false) }
func (l *Loop) Step()                  { l.s.c.send(op{Op: opStep, Loop: l.i}) }
func (l *Loop) StepIteration()         { l.s.c.send(op{Op: opStep, Loop: l.i, Iteration: true}) }

func (l *Loop) SetBreakpoints(b reactor.Breakpoints) {
	l.s.c.send(op{Op: opBreaks, Loop: l.i, Breaks: b})
}

func (l *Loop) SetSlowMotion(d time.Duration) { l.s.c.send(op{Op: opSlow, Loop: l.i, Delay: d}) }

// chunks is the trace as it arrives, an io.Reader for the JSONL reader.
// Before it waits for more it calls onIdle, on the reader's goroutine, so
// the decoder hands over the events of what has arrived.
type chunks struct {
	mu      sync.Mutex
	cond    *sync.Cond
	bufs    [][]byte
	closed  bool
	dropped bool
	onIdle  func()
}

func newChunks() *chunks {
	c := &chunks{}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *chunks) add(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.dropped {
		return
	}
	c.bufs = append(c.bufs, b)
	c.cond.Signal()
}

func (c *chunks) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.cond.Signal()
}

// discard drops what comes after a broken trace.
func (c *chunks) discard() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropped, c.bufs = true, nil
}

func (c *chunks) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.bufs) == 0 && !c.closed && c.onIdle != nil {
		c.mu.Unlock()
		c.onIdle()
		c.mu.Lock()
	}
	for len(c.bufs) == 0 && !c.closed {
		c.cond.Wait()
	}
	defer c.mu.Unlock()
	if len(c.bufs) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.bufs[0])
	if n == len(c.bufs[0]) {
		c.bufs[0] = nil
		c.bufs = c.bufs[1:]
	} else {
		c.bufs[0] = c.bufs[0][n:]
	}
	return n, nil
}
