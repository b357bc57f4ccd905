// Package reactor is a Netty-style multi-reactor engine on Linux epoll.
//
// Its vocabulary is Netty's: an EventLoopGroup is a pool of EventLoops; an
// EventLoop is one goroutine locked to one OS thread with one epoll instance
// (its "selector"), an eventfd to wake it, an MPSC task queue, a heap of
// scheduled tasks and a table of the channels registered with it for life.
// Each iteration is select → processSelectedKeys → runAllTasks, following
// Netty 4.1's classic NioEventLoop (4.1.43 and earlier: the wakenUp flag,
// select(oldWakenUp) with premature-return counting and the selector rebuild
// at 512), as docs/concepts.md (C6–C11) describes it. Config.Netty selects
// a later design instead, through the one seam in flavour.go: 4.1.44+'s
// nextWakeupNanos loop, or 4.2's SingleThreadIoEventLoop running an I/O
// handler with a task quantum (docs/netty-versions.md).
//
// Every phase boundary emits a typed event (package trace) into a ring only
// the loop writes, so watching the engine never blocks it. A step gate at the
// phase boundaries lets a UI pause, step and break; fault hooks inject the
// spurious wakeups and the JDK epoll bug the rebuild exists for.
//
// Threading rules: methods of EventLoop, EventLoopGroup and Channel that say
// "any goroutine" may be called from anywhere; Context methods and Handler
// callbacks run on the channel's loop thread only.
package reactor
