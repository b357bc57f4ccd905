package reactor

import (
	"fmt"
	"time"
)

// Flavour is the Netty loop design an EventLoop follows
// (docs/netty-versions.md). The zero value is the classic 4.1.43 loop.
type Flavour uint8

// The loop designs.
const (
	// Netty4143 is NioEventLoop of Netty ≤4.1.43: the wakenUp flag,
	// select(oldWakenUp) counting premature returns, ioRatio.
	Netty4143 Flavour = iota
	// Netty41 is NioEventLoop of Netty 4.1.44 and later (netty#9799):
	// nextWakeupNanos, selectCnt counted in run(), no I/O phase and
	// runAllTasks(0) when nothing was selected, scheduling from outside by
	// deadline, 16 accepts per read under NIO (4.1.69+).
	Netty41
	// Netty42 is SingleThreadIoEventLoop of Netty 4.2 running an IoHandler:
	// runIo(), prepareToDestroy() when shutting down, then
	// runAllTasks(quantum); ioRatio is gone, and every handler waits at most
	// 1 s when idle.
	Netty42
)

var flavourNames = [...]string{"4.1.43", "4.1", "4.2"}

func (f Flavour) String() string {
	if int(f) < len(flavourNames) {
		return flavourNames[f]
	}
	return fmt.Sprintf("Flavour(%d)", f)
}

// ParseFlavour reads "4.1.43", "4.1" or "4.2".
func ParseFlavour(s string) (Flavour, error) {
	for i, n := range flavourNames {
		if n == s {
			return Flavour(i), nil
		}
	}
	return 0, fmt.Errorf("netty: %q (expected one of 4.1.43, 4.1, 4.2)", s)
}

// Task quantum of Netty 4.2: SingleThreadIoEventLoop runs tasks for at most
// maxTaskProcessingQuantumNs per iteration; the system property
// io.netty.eventLoop.maxTaskProcessingQuantumMs defaults to 1000 and is
// floored at 100.
const (
	DefaultTaskQuantum = time.Second
	MinTaskQuantum     = 100 * time.Millisecond
)

// Values of nextWakeupNanos (NioEventLoop of 4.1.44+, EpollIoHandler of
// 4.2): AWAKE while the loop runs, NONE while a 4.1 loop blocks with
// nothing scheduled (4.2's never publishes it), otherwise the deadline it
// blocks until.
const (
	wakeAwake int64 = -1
	wakeNone  int64 = 1<<63 - 1
)

// ioHandler is how a loop waits for I/O and is woken: Netty 4.2's IoHandler
// (run and wakeup), also the part of 4.1's NioEventLoop that 4.2 moved into
// one. selectPhase blocks or polls (a readiness handler leaves the ready
// keys in l.selected, the io_uring handler the completions it reaped); it
// returns the clock reading taken when a blocking wait returned, or 0.
// wake is the producer side of wakeup(inEventLoop=false): it reports
// whether it wrote the eventfd.
//
// processIO is the I/O phase: the readiness handlers dispatch the selected
// keys (each channel then reads or writes); the completion-based handler
// (uringHandler, IoUringIoHandler) processes completions whose bytes are
// already read. It returns how many keys or completions it handled.
type ioHandler interface {
	selectPhase(handoff int64) int64
	wake() bool
	processIO() int
}

// loopDesign is the one seam between the loop skeleton (run) and what
// differs per Flavour: how the loop blocks and is woken (the ioHandler) and
// how the time given to tasks is bounded, with whatever accounting the
// design does after its tasks (4.1 counts selectCnt there).
type loopDesign interface {
	ioHandler
	// runTasks runs the iteration's tasks after keys were processed in
	// ioTime nanoseconds.
	runTasks(ioTime int64, keys int)
	// ioPhase reports whether the iteration has an I/O phase once the
	// select found keys ready: always, but in 4.1.44+ only when the
	// strategy is > 0.
	ioPhase(keys int) bool
	// closesBeforeTasks reports whether a loop shutting down closes its
	// channels between the I/O phase and the tasks (4.2's
	// IoHandler.prepareToDestroy) rather than after the tasks (4.1's
	// closeAll before confirmShutdown).
	closesBeforeTasks() bool
}

// newDesign picks the loop design for cfg.
func newDesign(l *EventLoop) loopDesign {
	switch l.cfg.Netty {
	case Netty41:
		return &design41{nextWakeupSelect: nextWakeupSelect{l: l}}
	case Netty42:
		var h ioHandler = nioHandler{l}
		ioIfReady := false
		switch l.cfg.Selector {
		case SelectorEpoll:
			h = nextWakeupSelect{l: l, idleCap: true} // EpollIoHandler: level-triggered only
			ioIfReady = true
		case SelectorIOUring:
			l.uring = &uringHandler{l: l, held: -1}
			h = l.uring
		}
		return design42{ioHandler: h, l: l, ioIfReady: ioIfReady}
	}
	return design4143{nioHandler{l}}
}

// Flavour returns the loop design the loop follows.
func (l *EventLoop) Flavour() Flavour { return l.cfg.Netty }

// nioHandler is the classic select of NioEventLoop ≤4.1.43, which Netty 4.2
// keeps inside NioIoHandler.run and NioIoHandler.select(context, oldWakenUp).
type nioHandler struct{ l *EventLoop }

func (h nioHandler) selectPhase(handoff int64) int64 { return h.l.selectPhase(handoff) }

func (h nioHandler) processIO() int { return h.l.processKeys() }

// wake is NioEventLoop.wakeup (≤4.1.43) and NioIoHandler.wakeup (4.2):
// write only if wakenUp flips false → true.
func (h nioHandler) wake() bool {
	return h.l.wakenUp.CompareAndSwap(false, true) && h.l.wakeSelector()
}

// design4143 is NioEventLoop.run of Netty 4.1.43: ioRatio bounds tasks.
type design4143 struct{ nioHandler }

func (d design4143) runTasks(ioTime int64, _ int) { d.l.runTasksForIteration(ioTime) }

// ioPhase: NioEventLoop.run of 4.1.43 calls processSelectedKeys every
// iteration, with or without keys.
func (design4143) ioPhase(int) bool { return true }

func (design4143) closesBeforeTasks() bool { return false }

// design42 is SingleThreadIoEventLoop.run of Netty 4.2: runIo() through the
// handler, then runAllTasks(maxTaskProcessingQuantumNs), whatever the I/O
// took. ioRatio is not read: NioEventLoop.setIoRatio is a no-op in 4.2.
type design42 struct {
	ioHandler
	l *EventLoop
	// ioIfReady: the handler processes only what its wait returned
	// (EpollIoHandler.run: processReady only if strategy > 0).
	ioIfReady bool
}

func (d design42) runTasks(int64, int) { d.l.runAllTasks(int64(d.l.cfg.TaskQuantum)) }

// ioPhase: SingleThreadIoEventLoop.runIo always calls IoHandler.run, which
// waits and processes in one; what it processes depends on the handler.
// NioIoHandler.run calls processSelectedKeys whatever the select returned,
// and IoUringIoHandler.run calls processCompletionsAndHandleOverflow after
// every wait, so both have an I/O phase in every iteration.
// EpollIoHandler.run calls processReady only if strategy > 0 (the events
// epoll_wait returned): an iteration that found nothing ready has none.
func (d design42) ioPhase(keys int) bool { return !d.ioIfReady || keys > 0 }

// closesBeforeTasks: SingleThreadIoEventLoop.run is runIo(), then
// ioHandler.prepareToDestroy() when shutting down (it closes every
// registered channel), then runAllTasks. A task queued during the
// shutdown finds its channels closed.
func (design42) closesBeforeTasks() bool { return true }
