package remote

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
)

// pipeConn is one end of an in-memory message connection.
type pipeConn struct {
	in, out   chan msg
	closed    chan struct{}
	closeOnce *sync.Once
}

type msg struct {
	binary bool
	data   []byte
}

func pipe() (*pipeConn, *pipeConn) {
	a, b := make(chan msg, 64), make(chan msg, 64)
	closed, once := make(chan struct{}), &sync.Once{}
	return &pipeConn{in: a, out: b, closed: closed, closeOnce: once}, &pipeConn{in: b, out: a, closed: closed, closeOnce: once}
}

func (p *pipeConn) ReadMessage() (bool, []byte, error) {
	select {
	case m := <-p.in:
		return m.binary, m.data, nil
	case <-p.closed:
		return false, nil, io.EOF
	}
}

func (p *pipeConn) WriteMessage(binary bool, data []byte) error {
	select {
	case p.out <- msg{binary, append([]byte(nil), data...)}:
		return nil
	case <-p.closed:
		return io.ErrClosedPipe
	}
}

func (p *pipeConn) Close() { p.closeOnce.Do(func() { close(p.closed) }) }

// counter is a sink that counts the events it is handed and keeps the
// latest sample, as the page's model folds them.
type counter struct {
	n      atomic.Int64
	mu     sync.Mutex
	latest *sample.Sample
}

func (c *counter) Consume(b []trace.Event) { c.n.Add(int64(len(b))) }

func (c *counter) ConsumeRecord(rec any) {
	if s, ok := rec.(*sample.Sample); ok {
		c.mu.Lock()
		c.latest = s
		c.mu.Unlock()
	}
}

func (c *counter) sample() *sample.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latest
}

// shortRun is the single-reactor scenario, cut to d.
func shortRun(t *testing.T, d string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load("single-reactor")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", d); err != nil {
		t.Fatal(err)
	}
	return sc
}

// liveRun builds a run of a copy of sc, its trace to w, as the command's
// host does with tui.LiveRun (which these tests cannot import: tui imports
// this package); the live screen's larger rings make no difference to the
// short runs here.
func liveRun(sc *scenarios.Scenario, w io.Writer) (*sim.Run, error) {
	return sim.New(sc.Clone(), sim.Options{TraceTo: w})
}

// hostOn serves a host of sc's runs over a WebSocket on loopback, and
// returns a page's client and the runs the host built, newest last.
func hostOn(t *testing.T, sc *scenarios.Scenario) (*Client, func() *sim.Run) {
	t.Helper()
	var mu sync.Mutex
	var runs []*sim.Run
	h := NewHost(func(w io.Writer) (*sim.Run, error) {
		r, err := liveRun(sc, w)
		mu.Lock()
		runs = append(runs, r)
		mu.Unlock()
		return r, err
	})
	addr, served := serveHost(t, h)
	b := dialHost(t, addr)
	t.Cleanup(func() {
		// The page closes its socket: its Serve sees the close.
		b.Close()
		select {
		case err := <-served:
			if err == nil {
				t.Errorf("Serve ended without error when the page closed")
			}
		case <-time.After(20 * time.Second):
			t.Errorf("Serve did not end when the page closed")
		}
	})
	return NewClient(b), func() *sim.Run {
		mu.Lock()
		defer mu.Unlock()
		return runs[len(runs)-1]
	}
}

// A page's pause stops the engine's loops, a step moves one loop by one
// phase, and the page sees both; the run then ends with every event the
// engine emitted decoded on the page's side, and its summary.
func TestControlsReachTheEngine(t *testing.T) {
	leaktest.Check(t)
	cl, lastRun := hostOn(t, shortRun(t, "3s"))
	var sink counter
	s, err := cl.Run(&sink)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(s.Loops()), len(s.LoopTable()); got == 0 || got > want {
		t.Fatalf("%d loops for a table of %d", got, want)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	run := lastRun()
	leaktest.WaitFor(t, "events and a running clock on the page", func() bool {
		return sink.n.Load() > 0 && s.Elapsed() > 0
	})

	// space: the clock first, then every loop.
	s.HoldClock(true)
	for _, l := range s.Loops() {
		l.PauseRun("paused by the page")
	}
	for _, l := range s.Loops() {
		if !l.GateStatus().Paused {
			t.Errorf("%s: the page does not show the pause it asked for", l.Name())
		}
	}
	engine := run.Loops()
	leaktest.WaitFor(t, "the engine's loops parked", func() bool {
		for _, l := range engine {
			if g := l.GateStatus(); !g.Paused || (l.TID() != 0 && !g.Waiting) {
				return false
			}
		}
		return true
	})
	leaktest.WaitFor(t, "the page to see them parked", func() bool {
		for i, l := range s.Loops() {
			if g := l.GateStatus(); engine[i].TID() != 0 && (!g.Waiting || g.Reason != "paused by the page") {
				return false
			}
		}
		return true
	})
	// The figures come in the trace: a sample says the run is held.
	leaktest.WaitFor(t, "a sample on the page saying the run is held", func() bool {
		sm := sink.sample()
		return sm != nil && sm.Held
	})
	held := s.Elapsed()
	time.Sleep(200 * time.Millisecond)
	if s.Elapsed() != held || run.Elapsed() != held {
		t.Errorf("the run clock moved while held: %v, then %v on the page and %v in the engine", held, s.Elapsed(), run.Elapsed())
	}

	// n: one phase of loop 0.
	phase := engine[0].GateStatus().Phase
	l0 := s.Loops()[0]
	s.Step(0, l0.Step)
	leaktest.WaitFor(t, "loop 0 to park one phase on", func() bool {
		g := engine[0].GateStatus()
		return g.Waiting && g.Phase != phase
	})
	leaktest.WaitFor(t, "the page to see the step", func() bool {
		return l0.GateStatus().Phase == engine[0].GateStatus().Phase
	})

	// space again: everything runs, and the run ends on its own.
	for _, l := range s.Loops() {
		l.Resume()
	}
	s.HoldClock(false)
	select {
	case <-s.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end")
	}
	sum := s.Summary()
	if sum == nil {
		t.Fatal("no summary")
	}
	if err := traceErr(s); err != nil {
		t.Fatalf("trace: %v", err)
	}
	if got, want := sink.n.Load(), int64(run.Summary().Events.Emitted-run.Summary().Events.Dropped); got != want || got == 0 {
		t.Errorf("the page decoded %d events, the engine emitted %d", got, want)
	}
	if sum.Events != run.Summary().Events || len(sum.Loops) != len(engine) || sum.Failed() != run.Summary().Failed() {
		t.Errorf("summary on the page %+v, in the engine %+v", sum.Events, run.Summary().Events)
	}
	if sm := sink.sample(); sm == nil || sm.Reason != sample.End || sm.Clients.Requests != run.Summary().Clients.Requests {
		t.Errorf("the page's last sample %+v; the run's clients made %d requests", sm, run.Summary().Clients.Requests)
	}
}

// A restart is a stop, then a new run: the host builds the second only once
// the first has ended, and each decodes on its own.
func TestRestartStartsAFreshRun(t *testing.T) {
	leaktest.Check(t)
	cl, lastRun := hostOn(t, shortRun(t, "30s"))
	for i := range 2 {
		var sink counter
		s, err := cl.Run(&sink)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		leaktest.WaitFor(t, "events", func() bool { return sink.n.Load() > 0 })
		s.Stop()
		select {
		case <-s.Done():
		case <-time.After(30 * time.Second):
			t.Fatalf("run %d did not stop", i)
		}
		if err := traceErr(s); err != nil {
			t.Errorf("run %d: trace: %v", i, err)
		}
		if s.Summary() == nil || lastRun().Summary() == nil {
			t.Errorf("run %d: no summary", i)
		}
	}
}

// A connection that goes ends the session on the page, and the host stops
// the run.
func TestClosedConnectionEndsBothSides(t *testing.T) {
	leaktest.Check(t)
	sc := shortRun(t, "30s")
	var built atomic.Pointer[sim.Run]
	h := NewHost(func(w io.Writer) (*sim.Run, error) {
		r, err := liveRun(sc, w)
		built.Store(r)
		return r, err
	})
	addr, served := serveHost(t, h)
	b := dialHost(t, addr)
	cl := NewClient(b)
	var sink counter
	s, err := cl.Run(&sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end")
	}
	// The host learns of the close by whichever comes first: its read
	// or its next write.
	if err := <-served; err == nil {
		t.Errorf("Serve: %v, want the connection's error", err)
	}
	select {
	case <-built.Load().Done():
	default:
		t.Error("the host's run still runs")
	}
	<-cl.Gone()
}

// A page that sends what is not a control is cut off with the close code
// RFC 6455 gives its fault: 1003 for binary, 1008 for text that is not a
// control, 1009 for one too big.
func TestHostRefusesBadControls(t *testing.T) {
	leaktest.Check(t)
	h := NewHost(func(w io.Writer) (*sim.Run, error) { return nil, errors.New("not here") })
	addr, served := serveHost(t, h)
	for _, bad := range []struct {
		msg
		code int
	}{
		{msg{binary: true, data: []byte(`{"op":"new"}`)}, 1003},
		{msg{data: []byte(`{"op":`)}, 1008},
		{msg{data: make([]byte, MaxControl+1)}, 1009},
	} {
		b := dialHost(t, addr)
		if err := b.WriteMessage(bad.binary, bad.data); err != nil {
			t.Fatal(err)
		}
		_, _, err := b.ReadMessage()
		for err == nil {
			_, _, err = b.ReadMessage()
		}
		if code := closeCode(err); code != bad.code {
			t.Errorf("%.20q: the page's socket ended with %d (%v), want %d", bad.data, code, err, bad.code)
		}
		select {
		case err := <-served:
			if err == nil {
				t.Errorf("%.20q: served without error", bad.data)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%.20q: still served", bad.data)
		}
	}
}

// A second page takes over: the first one's run is stopped and its Serve
// says why.
func TestSecondPageTakesOver(t *testing.T) {
	leaktest.Check(t)
	sc := shortRun(t, "30s")
	var first atomic.Pointer[sim.Run]
	h := NewHost(func(w io.Writer) (*sim.Run, error) {
		r, err := liveRun(sc, w)
		first.CompareAndSwap(nil, r)
		return r, err
	})
	addr, served := serveHost(t, h)
	cl1 := NewClient(dialHost(t, addr))
	s, err := cl1.Run(&counter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	b2 := dialHost(t, addr)
	if err := <-served; !errors.Is(err, ErrTakenOver) {
		t.Errorf("the first page's Serve: %v, want ErrTakenOver", err)
	}
	select {
	case <-first.Load().Done():
	default:
		t.Error("the first page's run still runs")
	}
	// The first page hears a normal close, saying why.
	<-cl1.Gone()
	if code := closeCode(cl1.Err()); code != 1000 {
		t.Errorf("the first page's socket ended with %v, want a normal close (1000)", cl1.Err())
	}
	<-s.Done()
	b2.Close()
	if err := <-served; err == nil {
		t.Errorf("the second page's Serve ended without error when it closed")
	}
}

// Breakpoints and slow motion set on the page are the engine's: the
// rebuild breakpoint stops worker-0 when the injected spurious wakeups
// make its selector rebuild, and the page shows the stop and why.
func TestBreakpointsReachTheEngine(t *testing.T) {
	leaktest.Check(t)
	sc, err := scenarios.Load("spurious-wakeup")
	if err != nil {
		t.Fatal(err)
	}
	cl, lastRun := hostOn(t, sc)
	s, err := cl.Run(&counter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range s.Loops() {
		l.SetBreakpoints(reactor.Breakpoints{Rebuild: true})
		l.SetSlowMotion(time.Microsecond)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	run := lastRun()
	for _, l := range run.Loops() {
		leaktest.WaitFor(t, l.Name()+"'s slow motion", func() bool { return l.GateStatus().Delay == time.Microsecond })
	}
	var w0 int
	for i, l := range run.Loops() {
		if l.Name() == "worker-0" {
			w0 = i
		}
	}
	leaktest.WaitFor(t, "worker-0 stopped by its rebuild breakpoint", func() bool {
		g := run.Loops()[w0].GateStatus()
		return g.Waiting && g.Break == counters.BreakRebuild
	})
	leaktest.WaitFor(t, "the page to show the stop", func() bool {
		g := s.Loops()[w0].GateStatus()
		return g.Waiting && g.Break == counters.BreakRebuild && g.Reason != ""
	})
	s.Loops()[w0].Resume()
	s.Stop()
	<-s.Done()
}

// A new run asked for while one runs stops the one running, and the page
// hears of its end before the new one is built: the end is not taken for
// the new run's.
func TestNewRunWhileOneRuns(t *testing.T) {
	leaktest.Check(t)
	cl, _ := hostOn(t, shortRun(t, "30s"))
	var first counter
	s1, err := cl.Run(&first)
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Start(); err != nil {
		t.Fatal(err)
	}
	leaktest.WaitFor(t, "events of the first run", func() bool { return first.n.Load() > 0 })
	var second counter
	s2, err := cl.Run(&second)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s1.Done():
	default:
		t.Fatal("the first run is not over on the page when the second is built")
	}
	if s1.Summary() == nil {
		t.Error("the first run ended without its summary")
	}
	if err := s2.Start(); err != nil {
		t.Fatal(err)
	}
	leaktest.WaitFor(t, "events of the second run", func() bool { return second.n.Load() > 0 && s2.Elapsed() > 0 })
	select {
	case <-s2.Done():
		t.Fatal("the second run ended with the first")
	default:
	}
	s2.Stop()
	<-s2.Done()
	if err := traceErr(s2); err != nil {
		t.Errorf("the second run's trace: %v", err)
	}
}

// What crosses the socket comes back as it was sent: a state with every
// kind of field set, and every op.
func TestMessagesRoundTrip(t *testing.T) {
	var st state
	st.Elapsed, st.Now, st.Origin, st.Answered = 1500*time.Millisecond, 9e9, 7e9, 42
	st.Loops = []loopState{{State: trace.StateStarted, TID: 77,
		Gate: reactor.GateStatus{Paused: true, Waiting: true, Phase: trace.PhaseTasks, Reason: "breakpoint: rebuild", Break: counters.BreakRebuild, Delay: 5 * time.Millisecond}}}
	b, err := json.Marshal(message{T: msgState, Seq: 9, State: &st})
	if err != nil {
		t.Fatal(err)
	}
	var got message
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.T != msgState || got.Seq != 9 || !reflect.DeepEqual(*got.State, st) {
		t.Errorf("state came back as\n%+v\nsent\n%+v", *got.State, st)
	}
	for _, o := range []op{
		{Op: opNew}, {Op: opStart}, {Op: opStop}, {Op: opHold, On: true},
		{Op: opPause, Loop: 3, Reason: "paused by user", Run: true}, {Op: opResume, Loop: 1},
		{Op: opStep, Loop: 2, Iteration: true}, {Op: opSlow, Loop: 0, Delay: 250 * time.Millisecond},
		{Op: opBreaks, Loop: 1, Breaks: reactor.Breakpoints{Rebuild: true, Wakeup: true, QueueAbove: 64}},
	} {
		b, _ := json.Marshal(o)
		var back op
		if err := json.Unmarshal(b, &back); err != nil || back != o {
			t.Errorf("%s came back as %+v (%v)", b, back, err)
		}
	}
}

// A page taken over while its run is being built leaves no run behind:
// the run the reader finishes building after Serve has stopped is torn
// down, not left to run to its end.
func TestRunBuiltAfterThePageWentIsStopped(t *testing.T) {
	leaktest.Check(t)
	sc := shortRun(t, "30s")
	release := make(chan struct{})
	built := make(chan *sim.Run, 1)
	h := NewHost(func(w io.Writer) (*sim.Run, error) {
		<-release // the page goes meanwhile
		r, err := liveRun(sc, w)
		if err == nil {
			built <- r
		}
		return r, err
	})
	a, b := pipe()
	ctx, takeOver := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx, a) }()
	if err := b.WriteMessage(false, []byte(`{"op":"new"}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the reader is in newRun
	takeOver()
	<-served
	b.Close()
	close(release)
	r := <-built
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the run built after the page went still runs")
	}
}

// stuckConn is a page that takes the first message and then reads no more:
// its writes wait until released.
type stuckConn struct {
	entered chan struct{}
	release chan struct{}
}

func (c *stuckConn) ReadMessage() (bool, []byte, error) { select {} }

func (c *stuckConn) WriteMessage(bool, []byte) error {
	select {
	case c.entered <- struct{}{}:
	default:
	}
	<-c.release
	return nil
}

// A page that reads slower than the run writes is cut off when the bytes
// held for it reach the cap, those being written included: not when the
// cap's worth more waits behind a message it has not taken.
func TestSlowPageIsCutOffAtTheCap(t *testing.T) {
	leaktest.Check(t)
	const max = 4 << 20
	o := newOutbox(max)
	c := &stuckConn{entered: make(chan struct{}, 1), release: make(chan struct{})}
	drained := make(chan error, 1)
	go func() { drained <- o.drain(c) }()
	line := make([]byte, 1000)
	held := 0
	for i := 0; ; i++ {
		if _, err := (traceStream{o}).Write(line); err != nil {
			if !errors.Is(err, ErrFellBehind) {
				t.Fatal(err)
			}
			break
		}
		held += len(line)
		if i == 0 {
			<-c.entered // the writer holds the first message
		}
	}
	if held > max {
		t.Errorf("%d bytes held for the page before it was cut off; the cap is %d", held, max)
	}
	if held < max/2 {
		t.Errorf("cut off after %d bytes; the cap is %d", held, max)
	}
	close(c.release)
	if err := <-drained; !errors.Is(err, ErrFellBehind) {
		t.Errorf("drain: %v, want ErrFellBehind", err)
	}
}

// The built message carries the run's scenario warnings as the host read
// them, --set overrides included, for the page's status line: a
// spurious-wakeup cut to 1 s never reaches its action at 1 s; an
// untouched single-reactor has none.
func TestBuiltCarriesTheScenarioWarnings(t *testing.T) {
	leaktest.Check(t)
	sc, err := scenarios.Load("spurious-wakeup")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "1s"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sc   *scenarios.Scenario
		want string
	}{{sc, "never happens"}, {shortRun(t, "30s"), ""}} {
		cl, _ := hostOn(t, c.sc)
		var sink counter
		s, err := cl.Run(&sink)
		if err != nil {
			t.Fatal(err)
		}
		ws := s.Warnings()
		if c.want == "" {
			if len(ws) != 0 {
				t.Errorf("%s: warnings %q, want none", c.sc.Name, ws)
			}
			continue
		}
		if len(ws) != len(c.sc.Warnings()) || !strings.Contains(strings.Join(ws, "\n"), c.want) {
			t.Errorf("%s: warnings on the page %q, the host's %v", c.sc.Name, ws, c.sc.Warnings())
		}
	}
}

// traceErr is what was wrong with the trace s decoded, if anything.
func traceErr(s *Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.traceErr
}
