package learn

import (
	"strings"

	"github.com/reactorviz/reactorviz/reactor/trace/counters"
)

// Term is one word of the glossary: what the screens, the log and the
// lessons call something, and what it means.
type Term struct {
	Word, Meaning string
}

// Glossary defines the words of the screens: the loop table's column
// headers, the detail pane's labels (long and short), the timeline's
// glyphs, the loop states and the words the lessons use, then every
// counter of the run summary from the counters' own table. The help
// overlay shows it, and docs/glossary.md is written from it (a test keeps
// them equal).
func Glossary() []Term {
	out := append([]Term(nil), words...)
	for _, c := range counters.Table() {
		out = append(out, Term{Word: c.Name, Meaning: "counter: " + c.Doc + "."})
	}
	return out
}

var words = []Term{
	// The loop table's columns.
	{"LOOP", "column: the loop's name, its group and index: boss-0, worker-3, reactor-0 (the single model's one loop), client-1."},
	{"TID", "column: the Linux thread id of the loop's thread; - until the thread starts on the loop's first task."},
	{"STATE", "column: the loop's life: NOT_STARTED, STARTED, SHUTTING_DOWN, SHUTDOWN, TERMINATED, and in a Netty 4.2 auto-scaling group SUSPENDING, SUSPENDED; a table too narrow for them writes new, started, stopping, shutdown, ended, susp…, susp'd; paused or pausing when stopped at its step gate."},
	{"PHASE", "column: the ring sel›io›tsk with the phase the loop is in lit: select, I/O (processSelectedKeys), tasks (runAllTasks)."},
	{"ITER", "column: loop iterations, each one select, I/O and tasks."},
	{"SELCNT", "column: selectCnt, the premature select returns in a row, against the rebuild threshold (512 by default)."},
	{"QUEUE", "column: tasks waiting in the loop's task queue, with a sparkline of its depth in the last seconds."},
	{"SCHED", "column: scheduled tasks (timers) waiting in the loop's heap, and the time to the nearest deadline."},
	{"CH", "column: channels registered on the loop now."},
	{"LAST 1s io/tsk", "column: the share of the last second the loop spent in I/O and in tasks, as a bar and in per cent."},
	{"p50/p99", "column: the median and 99th-percentile latency of the requests on the loop's channels over the last second."},
	{"worst", "column: the highest p99 the loop's clients saw in any 250 ms window of the run so far, a request still unanswered counted at its age: a stall the last second has forgotten."},
	// The detail pane's labels, long and short.
	{"selectCnt, selCnt", "detail: SELCNT's figure; max the highest it reached; premature (short: prem) the premature returns in all."},
	{"rebuilds, migrated", "detail: selector rebuilds, and the channels they moved to a new epoll instance (short: migr)."},
	{"select, selectNow", "detail: blocking selects (epoll_wait with a timeout) and non-blocking ones (timeout 0)."},
	{"wakeups written", "detail: eventfd writes that woke the loop (short: wakeup w); coalesced (short: c) those skipped because a wakeup was already on its way; self those the loop wrote to itself."},
	{"ioRatio", "detail: the share of a loop's time for I/O, 1 to 100 (50 by default; 100 runs tasks without a limit); none under Netty 4.2, which gives tasks a quantum instead."},
	{"task budget", "detail (short: budget): how long the latest task batch could run: ioTime × (100 − ioRatio) / ioRatio; unlimited at ioRatio 100."},
	{"tasks run, tail", "detail: tasks run on the loop (short: tasks), and tail tasks run after batches."},
	{"64-task checks", "detail: clock reads runAllTasks makes after every 64th task (short: 64-chk); deadline hits (short: hits) the batches they stopped."},
	{"panics, exceptions", "detail: tasks and handlers that panicked and were recovered (short: panic); the exceptionCaught calls (short: exc)."},
	{"channels, accepted", "detail: channels on the loop, and connections its server channels accepted (short: acc)."},
	{"read, written", "detail: bytes read from and written to the loop's channels (short: in, out)."},
	{"quiet left", "detail: during a graceful shutdown, the quiet period still to wait; timeout in, the time left before the shutdown gives up waiting."},
	{"ring SQ, CQ", "detail, io_uring loops: submission and completion queue entries; in flight, operations in the kernel; enters/iter, io_uring_enter calls per iteration."},
	{"netty, fault", "detail: the loop design when it is not the default 4.1.43 (4.1, 4.2), and the fault injected into the loop, if any."},
	{"task queue", "detail: the head of the loop's task queue, oldest first."},
	{"heap", "detail: the top of the loop's scheduled-task heap, nearest deadline first."},
	{"wheel", "detail: the HashedWheelTimer drawn as a ring of slots, its cursor on the current tick."},
	// The timeline.
	{"· ▒ █", "timeline: blocked in select, in I/O, running tasks (a lighter shade or a shorter block is a less busy column)."},
	{"! R S p w x C +", "timeline marks: a panic, a selector rebuild, the loop terminated, a premature select, a wakeup written, events dropped, a 64-task deadline cut, a task over the ioRatio budget."},
	// The words of the lessons.
	{"event loop", "one thread with one selector, running select → I/O → tasks forever (Netty's EventLoop)."},
	{"group", "a pool of event loops (EventLoopGroup); boss, worker, client."},
	{"boss", "a loop of the group that accepts connections."},
	{"worker", "a loop of the group that does the connections' reads and writes."},
	{"channel", "one socket (a connection or a listening port) registered on one loop for life."},
	{"server channel", "a listening socket: one port, on one boss loop."},
	{"pipeline", "the chain of handlers a channel's events pass through, run on its loop's thread."},
	{"selector", "what a loop waits on for ready sockets: an epoll instance here, java.nio's Selector in Netty."},
	{"key", "a channel's registration with a selector, with its interest set and its ready ops."},
	{"interest set, ops", "the events a channel waits for: IN (OP_READ, OP_ACCEPT), OUT (OP_WRITE, or OP_CONNECT while connecting)."},
	{"selected-key array", "the array the I/O phase walks: the keys select found ready, added in O(1) each."},
	{"premature", "a select that returned before its timeout with nothing selected, no wakeup, no task and no timer due."},
	{"rebuild", "replacing a loop's selector with a new one, every valid channel re-registered, when selectCnt reaches the threshold."},
	{"eventfd, wakeup", "the file descriptor a thread writes to wake a loop asleep in select (Selector.wakeup())."},
	{"wakenUp", "the flag that says a wakeup is on its way, so only one execute() of many writes the eventfd."},
	{"task", "a piece of work queued on a loop (execute()), run in its tasks phase."},
	{"MPSC", "multi-producer single-consumer: the task queue, filled by any thread, emptied by its loop."},
	{"tail task", "a task of a second queue, run after every batch of tasks."},
	{"timer", "a scheduled task: one due at a deadline, kept in the loop's heap ordered by (deadline, id)."},
	{"execute()", "the call that hands a loop a task; from another thread it may wake the loop, on a NOT_STARTED loop it starts the thread."},
	{"register0", "the task that registers a new channel on its worker, run on that worker."},
	{"chooser", "how a group picks its next loop: power-of-two (idx & (n − 1)) or generic (idx % n)."},
	{"deadline hit", "a task batch stopped because a 64-task check found the ioRatio budget spent."},
	{"level-triggered", "epoll reports a socket as long as bytes remain (the JDK's NIO selector)."},
	{"edge-triggered", "epoll reports a socket once per arrival, so the loop reads until EAGAIN (Netty's native transport)."},
	{"finishConnect", "completing a non-blocking connect when the key is selected for OP_CONNECT: then interest turns to OP_READ."},
	{"quiet period", "how long a shutting-down loop waits with no new task before it stops (confirmShutdown)."},
	{"run clock", "time since the run started, minus the time the whole run was paused; every time on screen is on it."},
	{"recording", "a run of a built-in scenario on the Linux engine, kept in the binary: replay and learn play it."},
}

// GlossaryMarkdown is docs/glossary.md.
func GlossaryMarkdown() string {
	var b strings.Builder
	b.WriteString("# Glossary\n\n")
	b.WriteString("Every word the screens use: the loop table's column headers, the detail pane's labels (long, and\n" +
		"short on a narrow terminal), the timeline's glyphs, the words of the lessons\n" +
		"([tutorial.md](tutorial.md)), and every counter of the run summary, which expectations, captions and\n" +
		"predictions name after a loop (`worker-0.rebuilds`). The help (`?`) shows the same list. This page\n" +
		"is written from the code (`go test ./learn -run Glossary -update`).\n\n")
	b.WriteString("| term | meaning |\n|---|---|\n")
	for _, t := range Glossary() {
		b.WriteString("| `" + t.Word + "` | " + strings.ReplaceAll(t.Meaning, "|", "\\|") + " |\n")
	}
	return b.String()
}
