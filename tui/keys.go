package tui

import (
	"cmp"
	"slices"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/tui/widgets"
)

// action names what a key does. Each screen maps the actions it supports
// to functions; the key table below says which keys trigger them.
type action int

const (
	actNone action = iota
	actHelp
	actQuit
	actPauseAll
	actStep
	actStepIter
	actStepAll
	actBreaks
	actFaster
	actSlower
	actNextLoop
	actPrevLoop
	actFilter
	actRestart
	actPlay
	actFwd
	actBack
	actFwdPage
	actBackPage
	actStart
	actEnd
	actGoto
	actNextBreak
	actPrevBreak
	actSkip
	actLogOlder
	actLogNewer
	actLogOldest
	actLogLatest
	actZoomIn
	actZoomOut
	actScrollBack
	actScrollFwd
	actLayout
	actLockstep
	actQuietRecording
	actCursor
	actCursorBack
	actCursorFwd
	actFollow
	actFollowHead
	actTurnCaption
	actSliceBack
	actSliceFwd
	actDismiss
)

// screenKind says which screen a key applies to.
type screenKind uint8

const (
	onLive screenKind = 1 << iota
	onReplay
	onCompare
)

// key is one physical key: a special key, or a rune.
type key struct {
	k tcell.Key
	r rune
}

func (k key) matches(ev *tcell.EventKey) bool {
	if k.k == tcell.KeyRune {
		return ev.Key() == tcell.KeyRune && ev.Rune() == k.r
	}
	return ev.Key() == k.k
}

func runeKey(c rune) key       { return key{k: tcell.KeyRune, r: c} }
func namedKey(c tcell.Key) key { return key{k: c} }
func keys(ks ...key) []key     { return ks }

// binding is one row of the key table.
type binding struct {
	act     action
	keys    []key
	label   string     // how the keys are written in the help (and the footer)
	footKey string     // the footer's label when it differs (one hint for a pair)
	hint    string     // the footer's word for it
	help    string     // the help overlay's sentence
	on      screenKind // the screens it applies to
	footer  int        // position in the footer (1 first); 0: help only
}

// keyTable is the one table of key actions: the dispatcher, the footer and
// the help overlay are all built from it, so they cannot disagree.
var keyTable = []binding{
	{act: actHelp, keys: keys(runeKey('?')), label: "?", hint: "help", on: onLive | onReplay | onCompare, footer: 1,
		help: "Open or close this help: what every pane shows and the Netty concept behind it."},
	{act: actPauseAll, keys: keys(runeKey(' ')), label: "space", hint: "pause/run", on: onLive, footer: 3,
		help: "Pause the whole run, or let it all run on. The run clock stops, and with it the clients (no request is sent), the scenario's timeline, the wheel's thread and every loop at its next phase boundary (one asleep in select is interrupted, as Thread.interrupt() does). Nothing moves until something runs: resuming continues every schedule as if no time had passed. If one loop is stopped on its own (a breakpoint), space lets everything run."},
	{act: actStep, keys: keys(runeKey('n')), label: "n", hint: "step", on: onLive, footer: 4,
		help: "Next phase of the focused loop: it runs to the next boundary of select → processSelectedKeys → runAllTasks and pauses again. A running loop is paused first."},
	{act: actStepIter, keys: keys(runeKey('N')), label: "N", hint: "iter", on: onLive, footer: 5,
		help: "Next iteration of the focused loop: one full turn of the ring, back to the phase it paused at."},
	{act: actStepAll, keys: keys(runeKey('a')), label: "a", hint: "step all", on: onLive, footer: 6,
		help: "Step every loop one phase (running loops are paused first), to watch boss and workers side by side."},
	{act: actBreaks, keys: keys(runeKey('b')), label: "b", hint: "breaks", on: onLive | onReplay, footer: 7,
		help: "Breakpoints: pause a loop at its next phase boundary after a selector rebuild, a 64-task deadline hit, a wakeup written by another thread, a task or handler panic, or when its task queue grows deeper than N; right after a premature select return. The header says which one fired, and a loop stopped so keeps the run from ending under you: at its end the whole run pauses, and space ends it. In a replay the same rule chooses the events < and > jump to."},
	{act: actPlay, keys: keys(runeKey(' ')), label: "space", hint: "play", on: onReplay, footer: 3,
		help: "Play the trace at the chosen speed, or stop playing."},
	{act: actBack, keys: keys(namedKey(tcell.KeyLeft), runeKey(',')), label: "←/,", hint: "back", on: onReplay, footer: 4,
		help: "One event back. The state is rebuilt from the nearest checkpoint, so going back is as quick as going forward. With the timeline's cursor on (c), the cursor moves a column back instead."},
	{act: actFwd, keys: keys(namedKey(tcell.KeyRight), runeKey('.')), label: "→/.", hint: "fwd", on: onReplay, footer: 5,
		help: "One event forward. With the timeline's cursor on, the cursor moves a column forward; at the right edge the replay moves on by a column's time."},
	{act: actPrevBreak, keys: keys(runeKey('<')), label: "<", on: onReplay,
		help: "Back to the previous event a breakpoint would stop at (choose them with b)."},
	{act: actNextBreak, keys: keys(runeKey('>')), label: ">", footKey: "< >", hint: "jump", on: onReplay, footer: 6,
		help: "On to the next event a breakpoint would stop at."},
	{act: actGoto, keys: keys(runeKey('g')), label: "g", hint: "go to", on: onReplay | onLive, footer: 8,
		help: "Replay: go to event N (the state right after it), or to a time such as 2.5s. Live: put the timeline's cursor on a run time such as 5s, with the window around it, and list that slice."},
	{act: actBackPage, keys: keys(namedKey(tcell.KeyPgUp), runeKey('[')), label: "PgUp/[", hint: "", on: onReplay,
		help: "1000 events back; with the timeline's cursor on, [ moves it to the start of the focused loop's previous slice."},
	{act: actFwdPage, keys: keys(namedKey(tcell.KeyPgDn), runeKey(']')), label: "PgDn/]", hint: "", on: onReplay,
		help: "1000 events forward; with the timeline's cursor on, ] moves it to the start of the next slice."},
	{act: actStart, keys: keys(namedKey(tcell.KeyHome)), label: "Home", on: onReplay | onCompare, help: "Go to the start of the trace (of every recording, in the lockstep replay)."},
	{act: actEnd, keys: keys(namedKey(tcell.KeyEnd)), label: "End", on: onReplay | onCompare, help: "Go to the end of the trace (of the longest recording, in the lockstep replay)."},
	{act: actFaster, keys: keys(runeKey('+'), runeKey('=')), label: "+", footKey: "+/-", hint: "speed", on: onLive | onReplay, footer: 9,
		help: "Faster: less slow motion in a live run (down to none), or a faster replay (up to 8×)."},
	{act: actSlower, keys: keys(runeKey('-')), label: "-", on: onLive | onReplay,
		help: "Slower: a live run sleeps at every phase boundary (slow motion, up to 1 s), a replay plays down to 0.25×. Slow motion slows the loops only: the scenario clock, its script and its clients keep real time, so queues grow and latency climbs as a loop falls behind."},
	{act: actNextLoop, keys: keys(namedKey(tcell.KeyTab), namedKey(tcell.KeyDown), runeKey('j')), label: "tab/↓", hint: "focus", on: onLive | onReplay, footer: 10,
		help: "Focus the next loop: the detail pane shows its task queue, scheduled heap and counters."},
	{act: actPrevLoop, keys: keys(namedKey(tcell.KeyBacktab), namedKey(tcell.KeyUp), runeKey('k')), label: "S-tab/↑", on: onLive | onReplay,
		help: "Focus the previous loop."},
	{act: actFilter, keys: keys(runeKey('/')), label: "/", hint: "filter", on: onLive | onReplay, footer: 11,
		help: "Filter the event log: a word that is part of a kind's name (\"wakeup\", \"task\") picks kinds, one that is part of a loop's name (\"worker-1\", \"boss\") picks loops, and any other word (\"premature\", \"epoll\", \"fault=spurious\") must appear in the event's details; \"worker-3 task\" is worker-3's task events. loop:NAME and kind:NAME say which is meant. An empty filter shows everything."},
	{act: actLogOlder, keys: keys(namedKey(tcell.KeyPgUp)), label: "PgUp", on: onLive,
		help: "Scroll the event log back a page. A scrolled log stands still while the run goes on (its title says so); End follows the run again."},
	{act: actLogNewer, keys: keys(namedKey(tcell.KeyPgDn)), label: "PgDn", on: onLive,
		help: "Scroll the event log forward a page; past the newest line it follows the run again."},
	{act: actLogOldest, keys: keys(namedKey(tcell.KeyHome)), label: "Home", on: onLive,
		help: "Scroll the event log to the oldest event it keeps."},
	{act: actLogLatest, keys: keys(namedKey(tcell.KeyEnd)), label: "End", on: onLive,
		help: "Let the event log follow the run again."},
	{act: actZoomIn, keys: keys(runeKey('z')), label: "z", footKey: "z/Z", hint: "zoom", on: onLive | onReplay | onCompare, footer: 13,
		help: "Zoom the timeline in: a shorter window, down to 100µs across the screen, to see single iterations."},
	{act: actZoomOut, keys: keys(runeKey('Z')), label: "Z", on: onLive | onReplay | onCompare,
		help: "Zoom the timeline out: a longer window, up to 10s across the screen, to see where a loop's time goes."},
	{act: actScrollBack, keys: keys(runeKey('h')), label: "h", footKey: "h/l", hint: "scroll", on: onLive | onReplay, footer: 14,
		help: "Scroll the timeline back a quarter of its window. Paused (space), or once the run has finished, the window stays put and scrolls back to the run's start."},
	{act: actScrollFwd, keys: keys(runeKey('l')), label: "l", on: onLive | onReplay,
		help: "Scroll the timeline forward, back to the latest event; a window held at a breakpoint returns to now."},
	{act: actCursor, keys: keys(runeKey('c')), label: "c", hint: "cursor", on: onLive | onReplay,
		help: "Show or hide the timeline's cursor, a column whose slice the event pane lists: every event of the focused loop in it (task names and durations, why a select returned, the budget and where a batch was cut), with its busy share and marks. Zooming keeps the cursor's time under it."},
	{act: actCursorBack, keys: keys(namedKey(tcell.KeyLeft), runeKey(',')), label: "←/,", footKey: "←→", hint: "cursor", on: onLive,
		help: "Move the timeline's cursor one column back (showing it first); at the left edge the window scrolls."},
	{act: actCursorFwd, keys: keys(namedKey(tcell.KeyRight), runeKey('.')), label: "→/.", on: onLive,
		help: "Move the timeline's cursor one column forward; at the right edge the window scrolls towards now."},
	{act: actSliceBack, keys: keys(runeKey('[')), label: "[", on: onLive,
		help: "Move the timeline's cursor back to the start of the previous slice of the focused loop: a run of columns spent alike (select, I/O, tasks, stopped), or a marked column."},
	{act: actSliceFwd, keys: keys(runeKey(']')), label: "]", on: onLive,
		help: "Move the timeline's cursor forward to the start of the next slice of the focused loop."},
	{act: actFollow, keys: keys(runeKey('f')), label: "f", hint: "follow", on: onLive | onReplay,
		help: "Follow the task or channel of the newest line in the event pane (the cursor's slice when it is on): its events on every loop are marked ◆ on the lanes and listed, in order — a task from its submit (queued behind how many) to the batch that ran it and for how long; a channel from the boss's accept to register0 on its worker, its reads and writes. f again stops following."},
	{act: actFollowHead, keys: keys(runeKey('F')), label: "F", on: onLive | onReplay,
		help: "Follow the task at the head of the focused loop's task queue, the next it will run: where it came from, the wakeup it rode on, how many it queued behind, and once it runs, its batch and how long it took. F again (or f) stops following."},
	{act: actTurnCaption, keys: keys(runeKey('w')), label: "w", on: onLive | onReplay,
		help: "Turn the page of a long watch note (its last line ends with the page, 1/2 w). While the run goes on the pages also turn by themselves every few seconds; paused, finished or stopped, the note stays on its page until w."},
	{act: actLayout, keys: keys(runeKey('t')), label: "t", hint: "layout", on: onLive | onReplay, footer: 15,
		help: "Cycle the layouts: timeline with the detail pane, every loop's lane in place of the detail pane, no timeline, lesson. Below 100 columns or 30 rows a screen opens in the lesson layout (the caption whole, a compact row per loop with its lane beside it, the focused loop's queue and heap heads, the scenario's concept counters, the log) until t picks another."},
	{act: actDismiss, keys: keys(runeKey('x')), label: "x", on: onLive | onReplay,
		help: "Dismiss the warnings line under the header: the settings of the scenario or of --set that have no effect (reactorviz validate FILE prints them too)."},
	{act: actFwdPage, keys: keys(namedKey(tcell.KeyPgDn), runeKey(']')), label: "]", footKey: "] [", hint: "verdict", on: onCompare, footer: 8,
		help: "(or PgDn) Scroll the verdict and why the runs differ on, when they are longer than their rows (the line under them says which are shown)."},
	{act: actBackPage, keys: keys(namedKey(tcell.KeyPgUp), runeKey('[')), label: "[", on: onCompare,
		help: "(or PgUp) Scroll the verdict back."},
	{act: actLockstep, keys: keys(runeKey('p')), label: "p", hint: "lockstep", on: onCompare, footer: 4,
		help: "Once every run is done: replay the recordings in lockstep on one clock, their timelines stacked, opened at the zoom and the moment where they differ most, with each lane's busy share, task queue (q) and blocking selects begun in the window (sel: an idle loop's wakes) and each run's client p50/p99 beside it. p again goes back to the columns."},
	{act: actQuietRecording, keys: keys(runeKey('R')), label: "R", hint: "recording", on: onCompare, footer: 7,
		help: "The built-in recording of the same comparison, made on a quiet machine, in the lockstep replay: when this machine was too busy for what its clients saw to rank the models (the verdict says so), the lesson is there. Its lanes, busy shares and queues are the recording's, and its status line says so; the columns and the verdict stay this machine's runs. R again goes back to them."},
	{act: actPlay, keys: keys(runeKey(' ')), label: "space", hint: "play", on: onCompare, footer: 5,
		help: "In the lockstep replay: play every recording at its recorded pace, or stop."},
	{act: actBack, keys: keys(namedKey(tcell.KeyLeft), runeKey(',')), label: "←", footKey: "←/→", hint: "step", on: onCompare, footer: 6,
		help: "In the lockstep replay: every recording a twentieth of the window back (, does the same)."},
	{act: actFwd, keys: keys(namedKey(tcell.KeyRight), runeKey('.')), label: "→", on: onCompare,
		help: "In the lockstep replay: every recording a twentieth of the window forward (. does the same)."},
	{act: actSkip, keys: keys(runeKey('s')), label: "s", hint: "skip run", on: onCompare, footer: 3,
		help: "End the running model early (graceful shutdown) and go on to the next."},
	{act: actRestart, keys: keys(runeKey('r')), label: "r", hint: "restart", on: onLive, footer: 12,
		help: "Restart the scenario: the run shuts down gracefully and a fresh one starts with the same breakpoints and speed."},
	{act: actQuit, keys: keys(runeKey('q'), namedKey(tcell.KeyCtrlC)), label: "q", hint: "quit", on: onLive | onReplay | onCompare, footer: 2,
		help: "Quit: the run shuts down gracefully and the terminal is restored."},
}

// lookup returns the action of a key on a screen.
func lookup(on screenKind, ev *tcell.EventKey) action {
	for _, b := range keyTable {
		if b.on&on == 0 {
			continue
		}
		for _, k := range b.keys {
			if k.matches(ev) {
				return b.act
			}
		}
	}
	return actNone
}

// footerHints returns a screen's footer hints in footer order.
func footerHints(on screenKind) []widgets.Hint {
	var bs []binding
	for _, b := range keyTable {
		if b.on&on != 0 && b.footer > 0 {
			bs = append(bs, b)
		}
	}
	slices.SortStableFunc(bs, func(a, b binding) int { return a.footer - b.footer })
	hints := make([]widgets.Hint, 0, len(bs))
	for _, b := range bs {
		hints = append(hints, widgets.Hint{Key: cmp.Or(b.footKey, b.label), Desc: b.hint})
	}
	return hints
}

// helpKeys returns a screen's bindings in table order, for the help.
func helpKeys(on screenKind) []binding {
	var out []binding
	for _, b := range keyTable {
		if b.on&on != 0 {
			out = append(out, b)
		}
	}
	return out
}
