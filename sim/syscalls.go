package sim

import (
	"sync"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
)

// SyscallCount is the system calls a run's server loops made, as the
// engine counted them where it made them (counters.Set's reads, writes,
// epoll_ctl and ring counters), summed over the loops that serve, the
// load generator's left out: a readiness loop's epoll_wait calls (its
// blocking selects and its selectNow polls), every read(2) on a channel,
// those that found nothing (EAGAIN) included and counted apart as empty,
// every write(2), its epoll_ctl calls, and the eventfd writes that woke a
// loop; a ring loop's io_uring_enter calls, the entries the kernel took
// and the completions reaped. Every live run has them, a sink or not; a
// summary rebuilt from a trace has none (no event records an EAGAIN read).
type SyscallCount struct {
	Waits      int64 `json:"waits"`
	Reads      int64 `json:"reads"`
	EmptyReads int64 `json:"empty_reads"`
	Writes     int64 `json:"writes"`
	Ctl        int64 `json:"epoll_ctl"`
	EventFD    int64 `json:"eventfd_writes"`
	Enters     int64 `json:"io_uring_enter"`
	Submitted  int64 `json:"submitted"`
	Completed  int64 `json:"completed"`
}

// Total is every system call counted.
func (c *SyscallCount) Total() int64 {
	return c.Waits + c.Reads + c.Writes + c.Ctl + c.EventFD + c.Enters
}

// syscallsOf sums the server loops' system calls. On a ring (ring: the
// scenario's selector is io_uring) a select is an io_uring_enter, already
// in Enters, not an epoll_wait.
func syscallsOf(loops []LoopSummary, ring bool) *SyscallCount {
	var c SyscallCount
	for i := range loops {
		l := &loops[i]
		if l.Group == scenarios.GroupClient {
			continue // the engine's clients stay on epoll whatever is compared
		}
		if !ring {
			c.Waits += l.Selects + l.SelectNows
		}
		c.Reads += l.Reads
		c.EmptyReads += l.EmptyReads
		c.Writes += l.Writes
		c.Ctl += l.EpollCtl
		c.EventFD += l.WakeupsWritten + l.SelfWakeups
		c.Enters += l.RingEnters
		c.Submitted += l.RingSubmitted
		c.Completed += l.RingCompleted
	}
	return &c
}

// DesignCount is what a run's server loops' events say of their loop
// design (docs/netty-versions.md): how long an idle select may block, how
// many tasks came from outside the loop, and how each task batch ended.
type DesignCount struct {
	// LongestTimeoutNS is the longest timeout a blocking select asked for;
	// UntimedSelects counts those that asked for none (4.1.44+ with nothing
	// scheduled).
	LongestTimeoutNS int64 `json:"longest_select_timeout_ns"`
	UntimedSelects   int64 `json:"untimed_selects"`
	ExternalSubmits  int64 `json:"external_submits"`
	Batches          int64 `json:"batches"`
	MaxBatch         int64 `json:"max_batch"`
	// How each batch ended: cut at a deadline check with an ioRatio budget
	// (4.1: the 64-task check), cut by the task quantum (4.2: a budget of
	// 100 ms or more), the queue emptied, or stopped with tasks queued.
	EndedBudget  int64 `json:"ended_by_budget"`
	EndedQuantum int64 `json:"ended_by_quantum"`
	EndedEmpty   int64 `json:"ended_empty"`
	EndedQueued  int64 `json:"ended_queued"`
}

// quantumFloor is the smallest task quantum 4.2 allows: a batch budget
// this long is a quantum, not an ioRatio share.
const quantumFloor = 100_000_000

// designCounter is a sink that counts the design's figures; it runs on
// the collector's goroutine, after the loops, never on one.
type designCounter struct {
	server []bool // by trace loop index: a loop of the server, not the clients

	mu     sync.Mutex
	d      DesignCount
	budget map[uint16]int64 // each loop's latest batch budget
}

func (s *designCounter) Consume(batch []trace.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range batch {
		e := &batch[i]
		if int(e.Loop) >= len(s.server) || !s.server[e.Loop] {
			continue
		}
		s.design(e)
	}
}

// design counts what tells loop designs apart.
func (s *designCounter) design(e *trace.Event) {
	d := &s.d
	switch e.Kind {
	case trace.KindSelectBegin:
		if e.Str == "select_now" {
			return
		}
		if e.A < 0 {
			d.UntimedSelects++
		}
		d.LongestTimeoutNS = max(d.LongestTimeoutNS, e.A)
	case trace.KindTaskSubmit:
		if e.Flag {
			d.ExternalSubmits++
		}
	case trace.KindTasksBegin:
		if s.budget == nil {
			s.budget = map[uint16]int64{}
		}
		s.budget[e.Loop] = e.B
	case trace.KindTasksEnd:
		d.Batches++
		d.MaxBatch = max(d.MaxBatch, e.A)
		switch {
		case e.Flag && s.budget[e.Loop] >= quantumFloor:
			d.EndedQuantum++
		case e.Flag:
			d.EndedBudget++
		case e.C == 0:
			d.EndedEmpty++
		default:
			d.EndedQueued++
		}
	}
}

func (s *designCounter) take() *DesignCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.d
	return &d
}

// CountDesign has the run count its server loops' design figures from
// their events (which it turns on), for the summary of a transport or
// flavour comparison. Call it before the run starts. (The system calls
// need no events: the engine counts them.)
func (r *Run) CountDesign() {
	table := r.LoopTable()
	s := &designCounter{server: make([]bool, len(table))}
	for i, l := range table {
		s.server[i] = l.Group != scenarios.GroupClient
	}
	r.design = s
	r.coll.AddSink(s)
}
