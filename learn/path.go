package learn

// Path is the lessons in order, about two or three minutes each. Each
// lesson's scene defines the terms it is the first to use; docs/tutorial.md
// walks the same path, a section per lesson, and says which recording each
// plays.
var Path = []Lesson{
	{Name: "groups", Title: "Groups, loops, boss and workers", Concepts: []string{"C1", "C2", "C6", "C18"},
		Scenario: "multi-reactor", Ask: 0, Again: 1, Scene: `
An event loop (EventLoop) is one thread with one selector, here an epoll instance: it waits
for ready sockets (select), handles them (I/O), runs queued tasks, and goes round again.
A group (EventLoopGroup) is a pool of such loops. A server has two groups: the boss group
accepts connections, the worker group does their reads and writes. This run has one boss
loop, boss-0, and two workers; eight clients echo small messages.`},
	{Name: "boss-idle", Title: "One port, one accepting boss", Concepts: []string{"C3", "C12"},
		Scenario: "boss-idle", Ask: 0, Again: 1, Scene: `
A listening port is one server channel, and a channel is registered on one loop. Here the
boss group has four loops and the server listens on one port. A loop's thread is started
lazily, by its first task: execute() checks the loop's state (NOT_STARTED) and starts the
thread with a compare-and-set.`},
	{Name: "chooser", Title: "How a group picks its next loop", Concepts: []string{"C4", "C26"},
		Scenario: "chooser", Ask: 0, Again: 1, Log: "kind:register", Scene: `
Each new channel goes to the next loop of the group, picked by the group's chooser: a bit
mask, idx & (n - 1), when the group's size n is a power of two, a modulo, idx % n,
otherwise. Both deal in strict turn. The boss hands an accepted connection over as a
task, register0, run on the chosen worker. Here three bosses (one per port) sit beside
four workers.`},
	{Name: "lazy-start", Title: "The default size, and threads that start late", Concepts: []string{"C5", "C12", "C26"},
		Scenario: "lazy-start", Ask: 0, Again: 1, Log: "kind:state", Scene: `
A group made with size 0 gets Netty's default: twice the cores the process may use. Its
loops do not start their threads at once: each starts on its first task. One client
connects, at 1s.`},
	{Name: "wakeups", Title: "Waking a sleeping loop", Concepts: []string{"C8", "C11", "C13"},
		Scenario: "wakeup-coalescing", Ask: 0, Again: 1, Scene: `
A loop with nothing to do sleeps in epoll_wait. A task submitted from another thread goes
into the loop's task queue, a multi-producer single-consumer (MPSC) queue, and must wake
the loop: execute() writes the loop's eventfd, which epoll reports as ready. The wakenUp
flag says whether a write is already on its way.`},
	{Name: "timers", Title: "Scheduled tasks and the select timeout", Concepts: []string{"C7", "C8", "C14", "C17"},
		Scenario: "scheduled-timers", Ask: 0, Again: 1, Log: "kind:timer_due loop:worker-0", Scene: `
A scheduled task (a timer) waits in the loop's heap, ordered by deadline and then by id. A
loop with timers sleeps in select only until the nearest deadline (rounded up by 0.5ms; 1s
when there is none); due timers move to the task queue before the tasks run. The hashed
wheel timer, a separate thread ticking every 100ms, is not how loops keep their timers.`},
	{Name: "deadline-64", Title: "Running tasks against a budget", Concepts: []string{"C13", "C15", "C25"},
		Scenario: "task-deadline-64", Ask: 0, Again: 1, Scene: `
runAllTasks runs the queued tasks, one after another on the loop's thread. With a time
budget, it must notice when the budget is spent, and reading the clock is not free. Tail
tasks are a second queue, run after each batch of tasks.`},
	{Name: "io-ratio", Title: "ioRatio: I/O time against task time", Concepts: []string{"C16"},
		Scenario: "io-ratio", Ask: 0, Again: 1, Scene: `
ioRatio (1 to 100, 50 by default) splits a loop's time between I/O and tasks: after an I/O
phase of ioTime, tasks may run for ioTime × (100 - ioRatio) / ioRatio; 100 means no limit.
A batch stopped by that budget is a deadline hit. Three workers get the same task flood
with ioRatio 10, 50 and 100.`},
	{Name: "rebuild", Title: "The epoll bug and the selector rebuild", Concepts: []string{"C8", "C9", "C10"},
		Scenario: "spurious-wakeup", Ask: 0, Again: 1, Log: "kind:rebuild_end", Scene: `
A select that returns before its timeout with nothing selected is premature; the loop
counts them in selectCnt. The JDK's epoll bug makes select return at once forever, and
Netty's defence is to rebuild the selector when selectCnt reaches a threshold. At 1s this
run makes worker-0's epoll return at once.`},
	{Name: "blocking", Title: "Never block the I/O thread", Concepts: []string{"C18", "C19", "C20"},
		Scenario: "blocking-handler", Ask: 0, Again: 1, Log: "kind:select_end loop:worker-0", Scene: `
A select returns the ready keys (a key is a channel's registration with the selector) in
the selected-key array, which Netty fills in place (O(1) per key); the I/O phase then walks
the array. A handler runs on its channel's loop thread, so a handler that blocks stops
everything else that loop does.`},
	{Name: "edge-level", Title: "Level- and edge-triggered reads", Concepts: []string{"C21", "C22"},
		Scenario: "edge-vs-level", Ask: 0, Again: 1, Log: "kind:task_run loop:worker-0", Scene: `
Level-triggered epoll (JDK NIO) reports a socket as long as bytes remain; edge-triggered
epoll (Netty's native transport) reports it once per arrival. A read reads at most 16
times per event. Each ready key is handled in Netty's order: a pending connect, then a
pending write, then reads. This run is edge-triggered, with a 1KiB read buffer and 64KiB
requests.`},
	{Name: "client", Title: "The client side: connect, finishConnect, read", Concepts: []string{"C21", "C24"},
		Scenario: "client-bootstrap", Ask: 0, Again: 1, Log: "kind:register kind:connect kind:interest loop:client-0", Scene: `
A client has one group. Its channel connects without blocking: registered with interest
OUT (OP_CONNECT), it is selected when the connect completes; finishConnect checks the
result, drops OUT, turns on IN (OP_READ) and fires channelActive, whose write goes out
at once, in the same processSelectedKey call. The key was ready for CONNECT only: the read
waits for the next select. Here two client loops connect two channels each.`},
	{Name: "shutdown", Title: "Graceful shutdown", Concepts: []string{"C23"},
		Scenario: "graceful-shutdown", Ask: 0, Again: 1, Log: "kind:state", Scene: `
shutdownGracefully moves a loop to SHUTTING_DOWN: it keeps running its queued tasks until
none arrive for a quiet period (confirmShutdown), cancels its timers, closes its channels
(closeAll) and ends TERMINATED. Tasks submitted after that are rejected.`},
}
