package reactor

import (
	"github.com/reactorviz/reactorviz/reactor/internal/poll"
	"github.com/reactorviz/reactorviz/reactor/trace"
)

// Fault names, as they appear in inject events.
const (
	FaultSpuriousWakeups = "spurious-wakeups"
	FaultJDKEpollBug     = "jdk-epoll-bug"
)

// InjectSpuriousWakeups makes the loop's current epoll instance report
// readiness that maps to no selected key (E17a): an eventfd with a non-zero
// counter, registered level-triggered in that instance only. Every select
// then returns at once with nothing selected, a premature return, until the
// loop rebuilds its selector and the fd stays behind with the old instance.
// Under epoll semantics the loop deletes the unknown fd instead, on the
// first report. Any goroutine: the injection runs as a task on the loop.
func (l *EventLoop) InjectSpuriousWakeups() error {
	return l.ExecuteNamed("inject "+FaultSpuriousWakeups, l.injectSpurious)
}

func (l *EventLoop) injectSpurious() {
	if l.uring != nil {
		return // a ring has no readiness to fake: nothing is selected
	}
	fd, err := poll.NewEventFD()
	if err != nil {
		return
	}
	if err := poll.WriteEventFD(fd); err != nil || l.epollAdd(l.poller, fd, poll.In) != nil {
		closeFD(fd)
		return
	}
	l.injected = append(l.injected, fd)
	add(&l.stats.Injected, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindInject, A: int64(fd), Str: FaultSpuriousWakeups})
	}
}

// InjectInterestZero sets up the JDK epoll bug on a channel (E17b): its
// interest set becomes 0 (autoRead off). If its peer then resets, epoll
// reports EPOLLHUP|EPOLLERR whatever was asked for; under nio semantics the
// masked ready set is empty, nothing is selected and select spins. Loop
// thread (use the channel's loop Execute from elsewhere).
func (ch *Channel) InjectInterestZero() {
	l := ch.loop
	add(&l.stats.Injected, 1)
	if l.tracing() {
		l.emit(trace.Event{Kind: trace.KindInject, A: int64(ch.fd), Str: FaultJDKEpollBug})
	}
	ch.SetAutoRead(false)
}

// CountInjection records a fault injected from outside the engine (a slow
// task, a blocking or panicking handler) in the loop's injected counter and
// its trace. Any goroutine.
func (l *EventLoop) CountInjection(fault string) {
	add(&l.stats.Injected, 1)
	if l.tracing() {
		l.emitExternal(trace.Event{Kind: trace.KindInject, Str: fault})
	}
}
