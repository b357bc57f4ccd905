//go:build js && wasm

// Command app is reactorviz's replay TUI built for the browser
// (GOOS=js GOARCH=wasm): the same screens as `reactorviz replay`, drawn by
// tcell's web screen into the page's <pre id="terminal">.
//
// The page does the I/O. It fetches a recording (or reads a file the
// learner picked) and hands the bytes to open; it measures the window and
// calls resize. The program holds no recordings of its own, so the wasm
// stays small and the recordings load one at a time.
//
// A replay in the browser has nowhere to quit to: when the learner quits
// it, the page is told (reactorvizEnded) and offers to reopen it.
//
// For a live run (the page at URL#live, served by run --web) the page
// hands it a WebSocket's address instead (live): it runs the live screen
// on sessions of sim/remote, whose runs are in the server's process.
package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/sim/remote"
	"github.com/reactorviz/reactorviz/tui"
)

// request is one recording the page asked for, or a live run.
type request struct {
	name   string // shown in the header, and in errors
	data   []byte // the trace: JSONL, gzipped or not
	banner string // set for a built-in recording
	moment string // where to open it: a time such as 16.2s, or an event number

	live          string // the WebSocket of a live run, instead of a trace
	paused, serve bool   // the live screen's options

	learn  bool   // the lesson path instead (learn.go)
	lesson string // the lesson to start at; "" resumes
}

func main() {
	p := newPlayer()
	api := js.Global().Get("Object").New()
	api.Set("open", js.FuncOf(p.jsOpen))
	api.Set("resize", js.FuncOf(p.jsResize))
	api.Set("seek", js.FuncOf(p.jsSeek))
	api.Set("live", js.FuncOf(p.jsLive))
	api.Set("learn", js.FuncOf(p.jsLearn))
	js.Global().Set("reactorvizGo", api)
	if ready := js.Global().Get("reactorvizReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	p.serve()
}

// player runs one replay at a time. The JS callbacks only post to its
// channels (a callback that blocks would block the page's event loop);
// everything else happens on the serve loop.
type player struct {
	opens  chan request
	sizes  chan [2]int
	seeks  chan string
	cols   int
	rows   int
	screen *sizedScreen // the replay's screen, nil between replays
	done   chan error   // receives the running replay's end
}

func newPlayer() *player {
	return &player{opens: make(chan request, 1), sizes: make(chan [2]int, 1), seeks: make(chan string, 1), cols: 80, rows: 24}
}

// serve is the main loop: it opens what the page asks for, ending the
// replay on screen first, and passes size changes to the screen.
func (p *player) serve() {
	for {
		select {
		case r := <-p.opens:
			p.stop()
			p.start(r)
		case sz := <-p.sizes:
			p.cols, p.rows = sz[0], sz[1]
			if p.screen != nil {
				p.screen.SetSize(p.cols, p.rows)
			}
		case m := <-p.seeks:
			if p.screen != nil {
				go p.screen.seek(m)
			}
		case err := <-p.done:
			// The replay ended by itself: the learner quit it, or its
			// trace was refused.
			p.screen, p.done = nil, nil
			ended(err)
		}
	}
}

// start opens a replay of r on a fresh screen, or the live run it names.
func (p *player) start(r request) {
	if r.learn {
		p.startLearn(r)
		return
	}
	if r.live != "" {
		p.startLive(r)
		return
	}
	trace, err := traceReader(r.data)
	if err != nil {
		ended(fmt.Errorf("%s: %v", r.name, err))
		return
	}
	// The terminal's replay and its limits (tui.ReadReplay): a file that
	// is not a trace, or is bigger than a replay holds, is refused with
	// the terminal's words before the screen opens.
	tr, cut, err := tui.ReadReplay(trace, r.name)
	if err != nil {
		ended(err)
		return
	}
	warnings(tui.ReplayWarnings(tr))
	if !p.open(func(s *sizedScreen) error {
		return tui.RunReplayTrace(tr, cut, r.name, r.banner, tui.Options{Screen: s, Mouse: true})
	}) {
		return
	}
	if r.moment != "" {
		go p.screen.seek(r.moment)
	}
}

// startLive opens the live screen on a fresh screen, showing the run the
// server at r.live runs (sim/remote): its restarts are runs of the server
// too, and q stops the run there.
func (p *player) startLive(r request) {
	p.open(func(s *sizedScreen) error { return runLive(r, s) })
}

// open runs a screen on a fresh sized screen, and reports whether it
// started.
func (p *player) open(run func(*sizedScreen) error) bool {
	scr, err := tcell.NewScreen()
	if err != nil {
		ended(err)
		return false
	}
	p.screen = newSizedScreen(scr, p.cols, p.rows)
	done := make(chan error, 1)
	p.done = done
	go func(s *sizedScreen) {
		err := run(s)
		close(s.gone)
		done <- err
	}(p.screen)
	return true
}

// liveFPS caps the live screen's redraws in the browser. A frame costs far
// more there than in a terminal (tcell's web screen takes ~32 ms to show a
// 1280×800 window, where folding an event takes ~200 ns), and the same
// thread decodes the run's events: at 15 frames a second a page showing
// single-reactor (13 000 events/s) fell further behind the run every
// second, at 10 it keeps up.
const liveFPS = 10

func runLive(r request, s *sizedScreen) error {
	conn, err := dialLive(r.live)
	if err != nil {
		return err
	}
	defer conn.Close()
	cl := remote.NewClient(conn)
	// The screen stays up after the connection goes (the last picture is
	// worth reading); the page's status line says the run is out of reach.
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-cl.Gone():
			if f := js.Global().Get("reactorvizLiveLost"); f.Type() == js.TypeFunction {
				f.Invoke(cl.Err().Error())
			}
		case <-stopped:
		}
	}()
	// Each run (a restart is a new one) tells the page its warnings.
	newRun := func(sink trace.Sink) (tui.Session, error) {
		s, err := cl.Run(sink)
		if err != nil {
			return nil, err
		}
		warnings(s.Warnings())
		return tui.NewRemoteRun(s), nil
	}
	return tui.RunLive(newRun, tui.Options{Screen: s, Mouse: true, Paused: r.paused, Serve: r.serve, FPS: liveFPS})
}

// stop ends the replay on screen, if any, and waits for it. It speaks
// the replay's own keys: Esc closes whatever overlay is open (help, the
// breakpoint menu, a prompt), q quits.
func (p *player) stop() {
	if p.screen == nil {
		return
	}
	select {
	case <-p.done: // the learner quit it meanwhile
		p.screen, p.done = nil, nil
		return
	default:
	}
	p.screen.keys(tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone), tcell.NewEventKey(tcell.KeyRune, 'q', tcell.ModNone))
	<-p.done
	p.screen, p.done = nil, nil
}

// traceReader reads a trace as given: gzipped (by its magic bytes, not its
// name, since a web server may or may not have unzipped it) or plain.
func traceReader(data []byte) (io.Reader, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return tui.Gunzip(bytes.NewReader(data))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("empty file")
	}
	return bytes.NewReader(data), nil
}

// warnings hands the page what the run's or the recording's scenario
// sets to no effect, for its status line (the screen's warnings line can
// be dismissed, and is under the header, where a glance at the page's
// own status line does not reach).
func warnings(ws []string) {
	f := js.Global().Get("reactorvizWarnings")
	if f.Type() != js.TypeFunction {
		return
	}
	arr := make([]any, len(ws))
	for i, w := range ws {
		arr[i] = w
	}
	f.Invoke(js.ValueOf(arr))
}

// ended tells the page the replay is over, and why if it failed.
func ended(err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if f := js.Global().Get("reactorvizEnded"); f.Type() == js.TypeFunction {
		f.Invoke(msg)
	}
}

// post hands v to the serve loop on ch, a channel of one, in place of a
// value the loop has not taken yet: only the newest request, size or seek
// matters. It never blocks: only the JS callbacks send, one at a time on
// the page's thread, and the channel is empty once drained.
func post[T any](ch chan T, v T) {
	select {
	case <-ch:
	default:
	}
	ch <- v
}

// jsOpen is reactorvizGo.open(name, Uint8Array, banner, moment).
func (p *player) jsOpen(_ js.Value, args []js.Value) any {
	if len(args) < 2 {
		return nil
	}
	r := request{name: args[0].String()}
	r.data = make([]byte, args[1].Get("length").Int())
	js.CopyBytesToGo(r.data, args[1])
	if len(args) > 2 && args[2].Type() == js.TypeString {
		r.banner = args[2].String()
	}
	if len(args) > 3 && args[3].Type() == js.TypeString {
		r.moment = args[3].String()
	}
	post(p.opens, r)
	return nil
}

// jsLive is reactorvizGo.live(url, paused, serve): the live run served
// at url, a WebSocket.
func (p *player) jsLive(_ js.Value, args []js.Value) any {
	if len(args) < 1 {
		return nil
	}
	r := request{name: "live", live: args[0].String()}
	r.paused = len(args) > 1 && args[1].Truthy()
	r.serve = len(args) > 2 && args[2].Truthy()
	post(p.opens, r)
	return nil
}

// jsResize is reactorvizGo.resize(cols, rows).
func (p *player) jsResize(_ js.Value, args []js.Value) any {
	if len(args) < 2 {
		return nil
	}
	post(p.sizes, [2]int{args[0].Int(), args[1].Int()})
	return nil
}

// jsSeek is reactorvizGo.seek(moment): the replay on screen goes there.
func (p *player) jsSeek(_ js.Value, args []js.Value) any {
	if len(args) < 1 {
		return nil
	}
	post(p.seeks, args[0].String())
	return nil
}

// sizedScreen is tcell's web screen opened at the page's size: the web
// screen starts at 80×24 whatever the window. Before tview has initialised
// it, it has no event queue: keys and sizes wait for init.
type sizedScreen struct {
	tcell.Screen
	mu         sync.Mutex
	cols, rows int
	init       chan struct{} // closed by Init
	fini       chan struct{} // closed by Fini
	gone       chan struct{} // closed when the replay has returned
	finiOnce   sync.Once
}

func newSizedScreen(scr tcell.Screen, cols, rows int) *sizedScreen {
	return &sizedScreen{Screen: scr, cols: cols, rows: rows, init: make(chan struct{}), fini: make(chan struct{}), gone: make(chan struct{})}
}

func (s *sizedScreen) Init() error {
	if err := s.Screen.Init(); err != nil {
		return err
	}
	s.mu.Lock()
	s.Screen.SetSize(s.cols, s.rows)
	close(s.init)
	s.mu.Unlock()
	return nil
}

// SetSize resizes the screen, or sets the size Init opens it at.
func (s *sizedScreen) SetSize(cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cols, s.rows = cols, rows
	select {
	case <-s.init:
		s.Screen.SetSize(cols, rows)
	default:
	}
}

// seek goes to a moment with the replay's go-to prompt, as the learner
// would: g, the moment, Enter.
func (s *sizedScreen) seek(moment string) {
	moment = strings.TrimSpace(moment)
	evs := []*tcell.EventKey{tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone), tcell.NewEventKey(tcell.KeyRune, 'g', tcell.ModNone)}
	for _, r := range moment {
		evs = append(evs, tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
	evs = append(evs, tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone))
	s.keys(evs...)
}

// keys posts key events in order, waiting for room in the screen's small
// queue, until the screen is finished.
func (s *sizedScreen) keys(evs ...*tcell.EventKey) {
	select {
	case <-s.init:
	case <-s.gone: // the trace was refused before the screen opened
		return
	}
	for _, ev := range evs {
		for s.PostEvent(ev) != nil {
			select {
			case <-s.fini:
				return
			case <-s.gone:
				return
			case <-time.After(time.Millisecond): // the UI goroutine drains the queue meanwhile
			}
		}
	}
}

// Fini finishes the screen; keys still waiting to be posted are dropped.
func (s *sizedScreen) Fini() {
	s.finiOnce.Do(func() { close(s.fini) })
	s.Screen.Fini()
}
