package sim

import (
	"sync"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
)

// SyscallCount is the system calls a run's server loops made, counted
// from the engine's events: a readiness loop's waits (epoll_wait), the
// reads that returned data and every write, and its epoll_ctl calls
// (registrations and interest changes); a ring loop's io_uring_enter
// calls and the submissions and completions they carried. A read that
// found nothing (EAGAIN) emits no event, so Reads is a lower bound.
type SyscallCount struct {
	Waits     int64 `json:"waits"`
	Reads     int64 `json:"reads"`
	Writes    int64 `json:"writes"`
	Ctl       int64 `json:"epoll_ctl"`
	Enters    int64 `json:"io_uring_enter"`
	Submitted int64 `json:"submitted"`
	Completed int64 `json:"completed"`
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

// syscallCounter is a sink that counts them, and the design's figures;
// it runs on the collector's goroutine, after the loops, never on one.
type syscallCounter struct {
	server []bool // by trace loop index: a loop of the server, not the clients

	mu     sync.Mutex
	c      SyscallCount
	d      DesignCount
	budget map[uint16]int64 // each loop's latest batch budget
}

func (s *syscallCounter) Consume(batch []trace.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range batch {
		e := &batch[i]
		if int(e.Loop) >= len(s.server) || !s.server[e.Loop] {
			continue
		}
		s.count(e)
	}
}

func (s *syscallCounter) count(e *trace.Event) {
	switch e.Kind {
	case trace.KindSelectBegin:
		s.c.Waits++
	case trace.KindRead:
		s.c.Reads++
	case trace.KindWrite:
		s.c.Writes++
	case trace.KindRegister, trace.KindInterest:
		s.c.Ctl++
	case trace.KindRingEnter:
		s.c.Enters++
		s.c.Submitted += max(e.A, 0)
		s.c.Completed += max(e.C, 0)
	}
	s.design(e)
}

// design counts what tells loop designs apart.
func (s *syscallCounter) design(e *trace.Event) {
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

func (s *syscallCounter) take() (*SyscallCount, *DesignCount) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, d := s.c, s.d
	return &c, &d
}

// CountSyscalls has the run count its server loops' system calls and its
// design's figures from their events (which it turns on), for the summary
// of a transport or flavour comparison. Call it before the run starts.
func (r *Run) CountSyscalls() {
	table := r.LoopTable()
	s := &syscallCounter{server: make([]bool, len(table))}
	for i, l := range table {
		s.server[i] = l.Group != scenarios.GroupClient
	}
	r.sysc = s
	r.coll.AddSink(s)
}
