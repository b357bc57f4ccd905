// Package remote is the wire protocol of a live run shown by another
// process: reactorviz run NAME --web runs the engine natively (the Host)
// and a page in a browser shows it with the live screen (the Client's
// sessions, which package tui takes as tui.RemoteRun), over one message
// connection, a WebSocket (package web's). It knows the runner and the
// engine's trace, not the UI: the screens import it, not the other way.
//
// What crosses is what the terminal's live screen reads of a run:
//
//   - the events, as the run's JSONL trace (tracefile/jsonl), in binary
//     messages: the page folds them into its own model, as a replay of the
//     same run would, so the page and the terminal see the same picture;
//   - a snapshot of the probe and the clock (state), a few times a second
//     and after every control: each loop's counters, gate and ioRatio, its
//     last second, the wheel, the clients, the run clock;
//   - the controls coming back (op): pause, run, step a phase or an
//     iteration, breakpoints, slow motion, hold the clock, and the run's
//     life (new, start, stop), which is how a restart works.
//
// The host reads the run as the terminal's probe does, from the loops'
// atomics and the collector's sinks: nothing here touches a loop's hot
// path.
package remote

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
)

// Conn is a message connection: a WebSocket on either side. Binary
// messages carry the trace, text messages one JSON object each. Writes may
// come from several goroutines; an implementation serialises them.
type Conn interface {
	ReadMessage() (binary bool, data []byte, err error)
	WriteMessage(binary bool, data []byte) error
}

// MaxControl bounds a message the host reads: a control is a few dozen
// bytes, so anything near this is not one.
const MaxControl = 4 << 10

// The ops a client sends.
const (
	opNew    = "new"    // build a run; answered by built
	opStart  = "start"  // start it; answered by started
	opStop   = "stop"   // end it gracefully; ended follows
	opHold   = "hold"   // hold (On) or let go the run clock
	opPause  = "pause"  // pause Loop; Run: a pause of the whole run (PauseRun)
	opResume = "resume" // let Loop run
	opStep   = "step"   // step Loop a phase, or an iteration (Iteration)
	opBreaks = "breaks" // set Loop's breakpoints
	opSlow   = "slow"   // set Loop's slow-motion delay
)

// op is a control from the page.
type op struct {
	Op        string              `json:"op"`
	Loop      int                 `json:"loop,omitempty"`
	Reason    string              `json:"reason,omitempty"`
	Run       bool                `json:"run,omitempty"`
	Iteration bool                `json:"iteration,omitempty"`
	On        bool                `json:"on,omitempty"`
	Breaks    reactor.Breakpoints `json:"breaks"`
	Delay     time.Duration       `json:"delay,omitempty"`
}

// maxReason bounds the pause reason a page may set; the header shows it.
const maxReason = 128

// The messages a host sends besides the trace.
const (
	msgBuilt   = "built"
	msgStarted = "started"
	msgState   = "state"
	msgEnded   = "ended"
)

// message is what the host sends in a text message; T says which fields
// are set.
type message struct {
	T string `json:"t"`
	// Seq is the number of ops the host had applied when it sent this: a
	// page keeps what it asked a loop's gate to do until a state answers
	// it.
	Seq uint64 `json:"seq"`
	Err string `json:"err,omitempty"`

	// built
	Loops     []trace.LoopInfo    `json:"loops,omitempty"`    // the trace's loop table
	Controls  int                 `json:"controls,omitempty"` // the loops of the engine, the table's first entries (not the wheel's thread)
	Scenario  *scenarios.Portable `json:"scenario,omitempty"`
	Duration  time.Duration       `json:"duration,omitempty"`
	Threshold int                 `json:"threshold,omitempty"`
	// Warnings are the run's scenario's (scenarios.Scenario.Warnings), as
	// the terminal shows them: what a --set or the file sets to no
	// effect. The page's status line shows them too.
	Warnings []string `json:"warnings,omitempty"`

	// started
	Addrs []string `json:"addrs,omitempty"`

	// state
	State *state `json:"state,omitempty"`

	// ended
	Summary json.RawMessage `json:"summary,omitempty"`
}

// state is the run's clock and its loops' controls at one moment. The
// figures a screen draws are not here: they travel in the trace, as
// samples (reactor/trace/sample), and the page's model folds them.
type state struct {
	Elapsed  time.Duration `json:"elapsed"`
	Now      int64         `json:"now"`    // TraceNow
	Origin   int64         `json:"origin"` // the event time at the run clock's 0; 0 before Start
	Answered int64         `json:"answered"`
	Loops    []loopState   `json:"loops"`
	Held     bool          `json:"held"` // the run clock is held
}

// loopState is one loop's life and gate, which the page's controls read.
type loopState struct {
	State trace.State        `json:"state"`
	TID   int                `json:"tid"`
	Gate  reactor.GateStatus `json:"gate"`
}

// errClosed is a session's error once its connection has gone.
var errClosed = errors.New("remote: the connection to the run closed")
