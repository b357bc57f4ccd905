// Package sample is the stream's second kind of record. Beside its events a
// run emits samples on the run clock: a few per second, at every pause,
// step and breakpoint, when a script action fires, and at the end. A sample
// carries what no event does: each loop's counters (the system calls
// included), its gate, ioRatio and time split; the wheel's slots; the
// clients' latency histograms; the events dropped so far; the script
// actions fired since the previous sample. Live, replay and the browser
// fold the same stream, events and samples in the order the collector
// delivered them, so a replay shows what the live screen showed.
//
// The package imports only reactor/trace and its counters, so every reader
// of a trace (tracefile/jsonl, tui/model, sim) can use it. Adding a figure is
// a field here (with its JSON key); tracefile/jsonl writes and reads it
// through encoding/json, and older traces read it as zero.
package sample

import (
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// Reason says why a sample was taken.
type Reason string

// The reasons a run takes a sample.
const (
	Tick  Reason = "tick"  // the sampler's period (Every)
	Pause Reason = "pause" // the whole run was paused or resumed
	Step  Reason = "step"  // a loop parked after a step or at a breakpoint
	Fire  Reason = "fire"  // a script action fired (Sample.Fired)
	End   Reason = "end"   // the run ended: every figure is final
)

// Sample is every figure of a run at one moment of its clock that no event
// carries.
type Sample struct {
	Time   int64  `json:"t"` // run clock, ns since the collector's epoch
	Reason Reason `json:"reason"`
	// Elapsed is the run clock since the run started (its header's clock),
	// capped at the scenario's duration; Active the time its clients had to
	// send in (throughput's denominator).
	Elapsed int64 `json:"elapsed_ns"`
	Active  int64 `json:"active_ns"`
	// Held says the whole run is paused: its clock stands still.
	Held bool `json:"held,omitempty"`
	// Loops holds one entry per loop of the trace's loop table that the
	// run drives (not the wheel's thread), in loop index order.
	Loops   []Loop  `json:"-"` // written one line each (tracefile/jsonl)
	Clients Clients `json:"clients"`
	Wheel   *Wheel  `json:"wheel,omitempty"`
	Pool    Pool    `json:"pool"`
	Dropped uint64  `json:"dropped"`
	Fired   []Fired `json:"fired,omitempty"`
}

// Loop is one loop's figures.
type Loop struct {
	Index   int            `json:"-"` // trace loop index; the file names the loop
	TID     int64          `json:"tid"`
	State   trace.State    `json:"-"` // written by name
	Stats   counters.Stats `json:"-"` // written as its non-zero counters
	Gate    Gate           `json:"gate"`
	IORatio int            `json:"io_ratio"`
	Split   Split          `json:"split"`
	// Clients is the latency of the requests on the channels the loop
	// serves, over the run so far.
	Clients Hist `json:"clients"`
	// Waiting is the age at this moment of the oldest request in flight
	// on each client connection the loop serves: a closed-loop client
	// held by a stalled loop answers nothing while it waits, so only its
	// age shows the stall.
	Waiting *Hist `json:"waiting,omitempty"`
	// CPU is the loop thread's own CPU time and run-queue wait, from its
	// scheduler statistics; in the end sample only.
	CPU *CPU `json:"cpu,omitempty"`
	// Worst is the loop's clients' worst window of the run so far.
	Worst *Worst `json:"worst,omitempty"`
}

// Worst is the highest p99 clients saw over any one window between two
// periodic samples of the run so far, and when that window began (run
// clock since the start). The sampler's fold (sim.Samples) works it out
// from the clients' histograms and the requests waiting; the sample
// carries it so that a screen reads it from the latest sample alone.
type Worst struct {
	P99US float64 `json:"p99_us"`
	AtNS  int64   `json:"at_ns"`
}

// CPU is a thread's time on a core and waiting for one.
type CPU struct {
	RunNS  int64 `json:"run_ns"`
	WaitNS int64 `json:"wait_ns"`
}

// Gate is a loop's step gate.
type Gate struct {
	Paused  bool           `json:"paused,omitempty"`  // told to pause
	Waiting bool           `json:"waiting,omitempty"` // parked at the gate
	Phase   trace.Phase    `json:"phase,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	Break   counters.Break `json:"break,omitempty"` // the breakpoint behind Reason
}

// Split is the running sums of a loop's time: blocked in select, in I/O
// and in tasks, from its own clocks.
type Split struct {
	SelectNS int64 `json:"select_ns"`
	IONS     int64 `json:"io_ns"`
	TaskNS   int64 `json:"task_ns"`
}

// Clients is what every client saw so far.
type Clients struct {
	Connections   int64  `json:"connections"`
	Requests      int64  `json:"requests"`
	Errors        int64  `json:"errors"`
	BytesVerified int64  `json:"bytes_verified"`
	Latency       Hist   `json:"latency"`         // every request
	Accept        Hist   `json:"accept"`          // dial → registration on its loop
	Worst         *Worst `json:"worst,omitempty"` // every client's worst window so far
}

// Wheel is the HashedWheelTimer.
type Wheel struct {
	Tick      int64 `json:"tick"`   // ticks processed; the next to expire
	Cursor    int   `json:"cursor"` // the slot the next tick expires
	Slots     []int `json:"slots"`  // timeouts linked in each slot
	Pending   int64 `json:"pending"`
	Queued    int   `json:"queued"`
	TickNS    int64 `json:"tick_ns"`
	Ticks     int64 `json:"ticks"`
	Expired   int64 `json:"expired"`
	Cancelled int64 `json:"cancelled"`
}

// Pool is the business pool.
type Pool struct {
	Size     int   `json:"size,omitempty"`
	TasksRun int64 `json:"tasks_run,omitempty"`
}

// Fired is one script action as the run played it: its place in the
// scenario's timeline, when on the run clock (since the run started), and
// the trace loop indexes it reached.
type Fired struct {
	Action int   `json:"action"`
	At     int64 `json:"at_ns"`
	Loops  []int `json:"loops,omitempty"`
}

// Loop returns the figures of trace loop index i.
func (s *Sample) Loop(i int) (*Loop, bool) {
	if s == nil {
		return nil, false
	}
	for j := range s.Loops {
		if s.Loops[j].Index == i {
			return &s.Loops[j], true
		}
	}
	return nil, false
}
