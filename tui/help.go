package tui

import (
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// pane is one part of a screen and the Netty concepts it makes visible
// (seeds/README.md lists C1–C26).
type pane struct {
	name string
	text string
	on   screenKind
}

var panes = []pane{
	{name: "header", on: onLive | onReplay,
		text: "Scenario, Reactor model, run clock, whether the loops run or are paused (and why: a key, a step, or the breakpoint that fired), slow motion or replay speed, and the events dropped. Tracing never blocks a loop: when a loop's ring is full the event is dropped and counted. \"drop N\" counts those events the screen could not keep: the log and the mirrors miss them, but no task, read or write was lost; in a live run the tables' counters come from the loops themselves and stay exact."},
	{name: "caption", on: onLive | onReplay,
		text: "The lines under the header. \"▸ t=5.0s: ...\" is the latest action of the scenario's script (the timeline: list of its file), lit while it is recent, and the rows of the loops it reached are marked ◆. \"watch:\" is the scenario's note for this moment, its figures read from the table as it stands, and the loops whose figures it gives have their names underlined in the table and on the timeline; a note longer than its rows turns a page every 4 seconds while the run goes on, w turns one by hand (1/3 w), and this help has it whole."},
	{name: "groups C1 C2 C24", on: onLive | onReplay,
		text: "One panel per EventLoopGroup, a row per EventLoop. A group is a pool of loops; a loop is one thread with one selector (C1). The boss group accepts, the worker group does the channels' I/O: single = one loop does both, multi = one boss and a worker group, master-slave = several bosses and workers (C2). A client group drives connections through the engine's own bootstrap: connect → OP_CONNECT → finishConnect → OP_READ (C24)."},
	{name: "boss idle C3 C5", on: onLive | onReplay,
		text: "One listening port is bound to one boss loop, so the other boss loops of a group stay NOT_STARTED with no thread id; with SO_REUSEPORT the kernel spreads one port over all of them (C3). A group of size 0 gets 2 × CPU cores loops (C5)."},
	{name: "chooser C4 C26", on: onLive | onReplay,
		text: "The panel title names the group's chooser: a power-of-two size picks the next loop with idx & (n−1), any other size with idx % n (C4). The boss accepts ACCEPTS_PER_READ, the chooser picks a worker, and register0 runs as a task on that worker — the first one starts its thread (C12, C26): watch the worker's TID appear."},
	{name: "TID STATE C12 C23", on: onLive | onReplay,
		text: "The Linux thread id, \"-\" until the loop's thread starts on its first execute() (C12). STATE: NOT_STARTED → STARTED → SHUTTING_DOWN → SHUTDOWN → TERMINATED; a graceful shutdown waits for a quiet period, runs what is queued, cancels scheduled tasks and closes every channel (C23). \"paused\" means parked at its step gate; \"pausing\" means told to pause but still asleep in select. In a Netty 4.2 auto-scaling group an idle loop without channels goes SUSPENDING (\"susp…\") then SUSPENDED (\"susp'd\") and next() skips it until load resumes it."},
	{name: "PHASE C6 C20 C21", on: onLive | onReplay,
		text: "The loop, forever: select → processSelectedKeys (io) → runAllTasks (tsk). The lit phase is where the loop is; a paused loop lights, in the pause colour, the phase it waits before. The io phase walks the selected-key array in O(1) per key (C20), handling CONNECT, then WRITE, then READ/ACCEPT (C21). ITER counts iterations: every pass through select, I/O and tasks, whatever select returned. SELCNT counts only the premature returns in a row, so it can race to 512 while ITER moves slowly, or ITER climb while SELCNT stays at 1."},
	{name: "LAST 1s p50/p99 worst C18", on: onLive | onReplay,
		text: "Where the loop's last second went (█ tasks, ▒ I/O, · select, with the I/O and task percentages), the p50/p99 latency of the requests on the channels it serves over that second, and worst: the highest p99 its clients saw in any 250 ms window of the run so far, a request still unanswered at a window's end counted at its age. A batch that held the loop for half a second is gone from the last second and diluted in the run's p99; it stays in worst. A replay reads the same figures from its trace's samples; — where there are none: a serve run's clients are not the run's own, and a trace written before samples were kept (version 1) has none."},
	{name: "timeline C6 C15 C16", on: onLive | onReplay,
		text: "A swimlane per loop, time running left to right up to now (or, scrolled with h, to the moment named in its rule). Each column shows how much of it the loop was busy, and a mark when something happened there (a rare mark wins over a common one): " + widgets.TimelineLegend() + ". An idle loop is a row of dots (blocked in select); a loop whose clients suffer is solid. With ioRatio below 100 the tasks after each I/O slice are cut to its budget (C16), and the 64-task check that stops a batch shows as C (C15); a task past the whole budget as +. Zoom with z/Z from 100µs to 10s across; \"drops›\" on a lane says its ring dropped events there, so slices may be missing. Events from before the window's history show as blank. The run clock: every time on screen (header, log, timeline, LAST 1s, latencies, rates, the wheel's deadlines, captions) is wall time less the time the whole run was paused with space, so a pause is in no figure; a step adds exactly what the stepped phase took. A loop stopped on its own (a breakpoint, a step while the others run) does not stop the clock: its lane shows it stopped while the others move, and its clients feel the stall. A breakpoint holds the window where the loop stopped; l returns to now."},
	{name: "SELCNT C9 C10", on: onLive | onReplay,
		text: "selectCnt: select returns in a row that selected nothing, were not woken, found no task and came back before their timeout — the JDK epoll bug's symptom — against the rebuild threshold (512 by default). At the threshold the selector is rebuilt: a new epoll instance, every valid channel re-registered with its interest set, the old one closed, selectCnt back to 1 (C10). A real timeout resets it to 1."},
	{name: "QUEUE C13 C18 C19", on: onLive | onReplay,
		text: "Tasks waiting in the loop's multi-producer single-consumer queue, with a sparkline of the last seconds. Other threads hand work to a loop only through it, and it runs serially on the loop's thread, so a channel's pipeline needs no locks (C13, C18). A blocking handler or a slow task stalls every channel of its loop: ITER stops and QUEUE grows — send such work to a business pool (C19)."},
	{name: "SCHED CH C7 C14", on: onLive | onReplay,
		text: "Scheduled tasks in the loop's priority queue, ordered by (deadline, id), and the time to the nearest deadline. That deadline bounds the select timeout: (deadline − now + 0.5 ms) rounded to milliseconds; IDLE_SELECT (C7). Scheduling from another thread travels through the task queue (C14). CH: channels registered on the loop, bound to it for life (C18)."},
	{name: "wakeups C8 C11", on: onLive | onReplay,
		text: "Select returns on ready keys, a wakeup, pending tasks or a due timer (C8). WAKEUP_RULE"},
	{name: "tasks C15 C16 C25", on: onLive | onReplay,
		text: "ioRatio: after io took t, tasks get t × (100 − ioRatio) / ioRatio; 100 runs every task with no limit (C16). runAllTasks first moves due scheduled tasks to the queue, then reads the clock only after every 64th task, so it can overshoot its budget by up to 63 tasks: \"64-checks\" and \"hits\" (C15). Tail tasks run after every batch (C25). A task or handler that panics is recovered and counted (\"panic\"), and the loop goes on; \"exc\" counts exceptionCaught: an I/O error, after which the channel closes, or a handler's panic."},
	{name: "queue/heap C13 C14", on: onLive | onReplay,
		text: "The head of the focused loop's task queue in FIFO order (⏲ marks a scheduled task moved over when due), and the top of its scheduled heap with each deadline."},
	{name: "wheel C17", on: onLive | onReplay,
		text: "The HashedWheelTimer on its own thread, focused like a loop (tab past the last one) and drawn in its own detail pane: a ring of slots (several slots per cell when the wheel is large), the cursor advancing one slot per tick. A timeout lands in slot (deadline / tick) & mask and waits remainingRounds laps; a digit counts the timeouts in a slot, + more than nine. Netty's event loops keep scheduled tasks in the heap, not in a wheel; the wheel is a separate utility for things like idle timeouts."},
	{name: "concepts", on: onLive | onReplay,
		text: "The counters of the concepts the scenario is about, for the focused loop (the groups' for C1–C5, the wheel's for C17), each line led by its concept: ioRatio and the budget with its formula filled in from the latest I/O time, budget = ioTime × (100 − ioRatio) / ioRatio (C16; under 4.2 the task quantum); 64-task checks and deadline hits (C15); tail tasks (C25); wakeups written, coalesced and self (C11); selectCnt against the threshold, premature returns, rebuilds and migrated channels (C9, C10); the task queue and the heap's head (C13, C14); the wheel (C17); the chooser and where register0 ran (C4, C26); and so on for every concept. Below 100 columns or 30 rows it is the lesson layout's middle, with a sentence per concept when rows allow; on a larger screen it sits above the log, leaving out what the detail pane shows."},
	{name: "short labels", on: onLive | onReplay,
		text: "Below 86 columns the detail pane shortens its labels: selCnt selectCnt, prem premature selects, migr channels migrated by a rebuild, wakeup w / c eventfd wakeups written / coalesced, budget the task time budget, panic task and handler panics, 64-chk 64-task deadline checks, hits deadline hits, exc exceptionCaught, in / out bytes read / written, acc connections accepted."},
	{name: "events C9 C22", on: onLive | onReplay,
		text: "The latest events, filtered with /. Epoll ops read IN/OUT/RDHUP/ET; under nio semantics a channel with interest 0 whose peer resets makes select return 0 again and again (the JDK bug, C9); native epoll semantics close it. Level-triggered loops read what is there; edge-triggered ones drain to EAGAIN (C22)."},
	{name: "netty versions", on: onLive | onReplay,
		text: "The header names the loop design (netty 4.1.43, 4.1 or 4.2; docs/netty-versions.md). Under 4.1 an idle loop's select has no timeout, a producer writes the eventfd only when nextWakeupNanos was not AWAKE, and selectCnt is counted per iteration in run(). Under 4.2 there is no ioRatio (tasks run for a quantum, 1 s by default) and no edge-triggered epoll: the ioRatio (C16) and edge-trigger (C22) lessons are 4.1 only. 4.2's NIO handler keeps the 4.1.43 select, selectCnt and rebuild (C7–C10)."},
	{name: "replay", on: onReplay,
		text: "A recorded trace: the state shown is the fold of every event up to the one the bar names. Step, jump to an event or a time, or to the next event a breakpoint would stop at; play at 0.25×–8× of the recorded pace."},
	{name: "models C2", on: onCompare,
		text: "The same workload on single, multi and master-slave Reactors (or, with --flavours, Netty loop designs; with --transports, nio, epoll and io_uring), one run after another so they do not compete for the CPU: throughput and latency from the clients, loop utilisation (time in io and tasks over the run time), and the deepest worker queue. The running column is live, the finished ones frozen; the table at the bottom sums them up."},
	{name: "verdict", on: onCompare,
		text: "Computed from what was measured once every run is done. It ranks two runs only when one is ahead in every quarter second of its clients' figures, their shapes differ (master-slave with one port is multi), and other processes used less than a quarter of the machine's CPUs during each run; otherwise it says they are about the same. \"why they differ\" names the cause of each difference (the Netty change, the system calls a request cost); the compare clauses follow with what each read, and the expect column counts those that name each run."},
}

// helpEntries builds the help overlay of a screen from the key table and
// the pane list.
func helpEntries(on screenKind, sc *scenarios.Scenario, r scenarios.Resolver, now time.Duration) []widgets.HelpEntry {
	out := scenarioEntries(sc, r, now)
	out = append(out, widgets.HelpEntry{Heading: true, Text: "Keys"})
	for _, b := range helpKeys(on) {
		out = append(out, widgets.HelpEntry{Term: b.label, Text: b.help})
	}
	out = append(out, widgets.HelpEntry{Heading: true, Text: "Panes and the Netty concepts behind them"})
	for _, p := range panes {
		if p.on&on != 0 {
			text := strings.NewReplacer("ACCEPTS_PER_READ", acceptsPerRead(sc), "IDLE_SELECT", idleSelect(sc),
				"WAKEUP_RULE", wakeupRule(sc)).Replace(p.text)
			out = append(out, widgets.HelpEntry{Term: p.name, Text: text})
		}
	}
	return append(out, glossaryEntries()...)
}

// scenarioEntries open the help with what the scenario on screen is for:
// its summary, its notes and its "watch" captions with their times, the
// same text `reactorviz show` prints. The notes the run has reached by now
// have their figures filled from r, the run's so far; a later one is its
// text with its figures left as "?": today's figures would contradict what
// the screen shows when the run gets there.
func scenarioEntries(sc *scenarios.Scenario, r scenarios.Resolver, now time.Duration) []widgets.HelpEntry {
	if sc == nil || (sc.Summary == "" && sc.Notes == "" && len(sc.Watch) == 0) {
		return nil
	}
	out := []widgets.HelpEntry{{Heading: true, Text: "This scenario: " + sc.Name}}
	if sc.Summary != "" {
		out = append(out, widgets.HelpEntry{Term: "summary", Text: sc.Summary})
	}
	if sc.Notes != "" {
		out = append(out, widgets.HelpEntry{Term: "notes", Text: unwrap(sc.Notes)})
	}
	for _, c := range sc.Watch {
		if c.At > now || r == nil {
			out = append(out, widgets.HelpEntry{Term: "watch at " + seconds(c.At),
				Text: "(ahead: its figures, ?, are filled when the run is there) " + c.Render(nil, sc)})
			continue
		}
		out = append(out, widgets.HelpEntry{Term: "watch at " + seconds(c.At), Text: c.Render(r, sc)})
	}
	return out
}

// viewShown reads the figures of the frame a view shows and the run time
// of its caption, for the captions in its help; nil and 0 for a view
// without them.
func viewShown(v view) (scenarios.Resolver, time.Duration) {
	switch v := v.(type) {
	case *liveView:
		return frameValues(v.frame), v.caption.at
	case *replayView:
		return frameValues(v.frame), v.caption.at
	}
	return nil, 0
}

// unwrap joins the lines of each paragraph of a scenario's text, which the
// file wraps at its own width, so the help can wrap it at the screen's.
func unwrap(text string) string {
	var paras []string
	for _, p := range strings.Split(text, "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			paras = append(paras, p)
		}
	}
	return strings.Join(paras, "\n")
}

// acceptsPerRead says how many connections the boss takes per read under
// the scenario's loop design and transport (docs/netty-versions.md):
// 4.1.43's NioMessageUnsafe.read takes one; ServerChannelRecvByteBufAllocator
// (4.1.69+) lets NIO take up to maxMessagesPerRead, 16; epoll takes 16
// edge-triggered and one level-triggered; io_uring keeps one multishot
// accept armed.
func acceptsPerRead(sc *scenarios.Scenario) string {
	if sc == nil {
		return "one connection per read (NIO under 4.1.43) or up to 16 (NIO under 4.1 and 4.2, edge-triggered epoll)"
	}
	switch {
	case sc.Loop.Selector == scenarios.SelectorIOUring:
		return "connections through one multishot accept it keeps armed (io_uring)"
	case sc.Loop.Selector == scenarios.SelectorEpoll && sc.Loop.Trigger == scenarios.TriggerEdge && sc.Netty != scenarios.Netty42:
		return "up to 16 connections per read (edge-triggered epoll)"
	case sc.Loop.Selector == scenarios.SelectorEpoll:
		return "one connection per read (level-triggered epoll)"
	case sc.Netty == scenarios.Netty4143 || sc.Netty == "":
		return "one connection per read (NIO in Netty 4.1.43)"
	}
	return "up to 16 connections per read (NIO in Netty " + string(sc.Netty) + ")"
}

// design is the scenario's loop design; 4.1.43 when unknown.
func design(sc *scenarios.Scenario) scenarios.Netty {
	if sc == nil || sc.Netty == "" {
		return scenarios.Netty4143
	}
	return sc.Netty
}

// idleSelect says what bounds a select with nothing scheduled under the
// scenario's design (docs/netty-versions.md): 4.1.43's SCHEDULE_PURGE_INTERVAL
// of 1 s, none at all in 4.1 (nextWakeupNanos NONE), and 1 s again in 4.2,
// whose IoHandlerContext.deadlineNanos() is now + 1 s.
func idleSelect(sc *scenarios.Scenario) string {
	if design(sc) == scenarios.Netty41 {
		return "with nothing scheduled, Netty 4.1 blocks with no timeout at all (timeout -1) until a wakeup"
	}
	return "1 s when nothing is scheduled"
}

// wakeupRule says when a submission writes the loop's eventfd under the
// scenario's design and transport (C11).
func wakeupRule(sc *scenarios.Scenario) string {
	switch {
	case sc != nil && sc.Loop.Selector == scenarios.SelectorIOUring:
		return "execute() from another thread writes the eventfd only while no write is pending: the loop keeps a read of it in the ring and clears the latch when that read completes, so a flood costs a few writes, not exactly one (C11)."
	case design(sc) == scenarios.Netty4143 || design(sc) == scenarios.Netty42 && (sc.Loop.Selector == scenarios.SelectorNIO || sc.Loop.Selector == ""):
		return "execute() from another thread writes the loop's eventfd only when the wakenUp flag flips false → true: many submissions to a sleeping loop cost one write; the others are coalesced (C11). \"self\" counts the loop's own write after select, which the NIO loop makes when wakenUp was set while it selected, so a wakeup racing with clearing the flag is not lost."
	}
	return "execute() from another thread writes the loop's eventfd only when nextWakeupNanos was not AWAKE, i.e. the loop is (about to be) asleep in select: many submissions to a sleeping loop cost one write; the others are coalesced (C11)."
}
