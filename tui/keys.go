package tui

import (
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
		help: "Pause every loop, or let them all run. A paused loop stops at its next phase boundary; one asleep in select is not woken for it (\"pausing\") and stops when select returns. While paused its clients' bytes wait in the kernel and its timers fall due."},
	{act: actStep, keys: keys(runeKey('n')), label: "n", hint: "step", on: onLive, footer: 4,
		help: "Next phase of the focused loop: it runs to the next boundary of select → processSelectedKeys → runAllTasks and pauses again. A running loop is paused first."},
	{act: actStepIter, keys: keys(runeKey('N')), label: "N", hint: "iter", on: onLive, footer: 5,
		help: "Next iteration of the focused loop: one full turn of the ring, back to the phase it paused at."},
	{act: actStepAll, keys: keys(runeKey('a')), label: "a", hint: "step all", on: onLive, footer: 6,
		help: "Step every loop one phase (running loops are paused first), to watch boss and workers side by side."},
	{act: actBreaks, keys: keys(runeKey('b')), label: "b", hint: "breaks", on: onLive | onReplay, footer: 7,
		help: "Breakpoints: pause a loop at its next phase boundary after a selector rebuild, a 64-task deadline hit, a wakeup written by another thread, a task or handler panic, or when its task queue grows deeper than N; right after a premature select return. The header says which one fired. In a replay the same rule chooses the events < and > jump to."},
	{act: actPlay, keys: keys(runeKey(' ')), label: "space", hint: "play", on: onReplay, footer: 3,
		help: "Play the trace at the chosen speed, or stop playing."},
	{act: actBack, keys: keys(namedKey(tcell.KeyLeft), runeKey(',')), label: "←/,", hint: "back", on: onReplay, footer: 4,
		help: "One event back. The state is rebuilt from the nearest checkpoint, so going back is as quick as going forward."},
	{act: actFwd, keys: keys(namedKey(tcell.KeyRight), runeKey('.')), label: "→/.", hint: "fwd", on: onReplay, footer: 5,
		help: "One event forward."},
	{act: actPrevBreak, keys: keys(runeKey('<')), label: "<", on: onReplay,
		help: "Back to the previous event a breakpoint would stop at (choose them with b)."},
	{act: actNextBreak, keys: keys(runeKey('>')), label: ">", footKey: "< >", hint: "jump", on: onReplay, footer: 6,
		help: "On to the next event a breakpoint would stop at."},
	{act: actGoto, keys: keys(runeKey('g')), label: "g", hint: "go to", on: onReplay, footer: 8,
		help: "Go to event N (the state right after it), or to a time such as 2.5s."},
	{act: actBackPage, keys: keys(namedKey(tcell.KeyPgUp), runeKey('[')), label: "PgUp/[", hint: "", on: onReplay,
		help: "1000 events back."},
	{act: actFwdPage, keys: keys(namedKey(tcell.KeyPgDn), runeKey(']')), label: "PgDn/]", hint: "", on: onReplay,
		help: "1000 events forward."},
	{act: actStart, keys: keys(namedKey(tcell.KeyHome)), label: "Home", on: onReplay | onCompare, help: "Go to the start of the trace (of every recording, in the lockstep replay)."},
	{act: actEnd, keys: keys(namedKey(tcell.KeyEnd)), label: "End", on: onReplay | onCompare, help: "Go to the end of the trace (of the longest recording, in the lockstep replay)."},
	{act: actFaster, keys: keys(runeKey('+'), runeKey('=')), label: "+", footKey: "+/-", hint: "speed", on: onLive | onReplay, footer: 9,
		help: "Faster: less slow motion in a live run (down to none), or a faster replay (up to 8×)."},
	{act: actSlower, keys: keys(runeKey('-')), label: "-", on: onLive | onReplay,
		help: "Slower: a live run sleeps at every phase boundary (slow motion, up to 1 s), a replay plays down to 0.25×. Slow motion slows the loops only: the scenario clock, its timeline and its clients keep real time, so queues grow and latency climbs as a loop falls behind."},
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
		help: "Scroll the timeline back a quarter of its window. Pause first (space) to look back at a moment that has passed; the window then stays put."},
	{act: actScrollFwd, keys: keys(runeKey('l')), label: "l", on: onLive | onReplay,
		help: "Scroll the timeline forward, back to the latest event."},
	{act: actLayout, keys: keys(runeKey('t')), label: "t", hint: "layout", on: onLive | onReplay, footer: 15,
		help: "Cycle the layouts: timeline with the detail pane, every loop's lane in place of the detail pane, no timeline."},
	{act: actLockstep, keys: keys(runeKey('p')), label: "p", hint: "lockstep", on: onCompare, footer: 4,
		help: "Once every model has run: replay the three recordings in lockstep on one clock, their timelines stacked, to watch one model fall behind where another keeps up. p again goes back to the columns."},
	{act: actPlay, keys: keys(runeKey(' ')), label: "space", on: onCompare,
		help: "In the lockstep replay: play every recording at its recorded pace, or stop."},
	{act: actBack, keys: keys(namedKey(tcell.KeyLeft), runeKey(',')), label: "←/,", on: onCompare,
		help: "In the lockstep replay: every recording a twentieth of the window back."},
	{act: actFwd, keys: keys(namedKey(tcell.KeyRight), runeKey('.')), label: "→/.", on: onCompare,
		help: "In the lockstep replay: every recording a twentieth of the window forward."},
	{act: actSkip, keys: keys(runeKey('s')), label: "s", hint: "skip model", on: onCompare, footer: 3,
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
		label := b.label
		if b.footKey != "" {
			label = b.footKey
		}
		hints = append(hints, widgets.Hint{Key: label, Desc: b.hint})
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
