package model

import (
	"iter"
	"strconv"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// whyScan bounds how far back WhySelect looks for the select's begin: a
// loop asleep for a long time under a flood on other loops can be many
// events back, and a log line is not worth more.
const whyScan = 1 << 14

// WhySelect says in a few words why the select that end (a select_end)
// closes returned, from the events before it, newest first: its
// select_begin (the mode and the timeout asked for) and the wakeups
// written to its loop while it waited. The order of the checks is
// Netty's own in NioEventLoop.select (4.1.43): a key ready, then woken
// (wakenUp, a task, a due timer), then the timeout; what is left came
// back early with nothing to do, the premature return that selectCnt
// counts toward a rebuild.
//
// newer iterates the events after end, oldest first: a pause of the loop
// right after a return with nothing ready is what cut the wait short (a
// whole-run pause interrupts a loop asleep in epoll_wait).
func WhySelect(end *trace.Event, older, newer iter.Seq[*trace.Event]) string {
	var begin *trace.Event
	var woke *trace.Event // the newest wakeup written to this loop while it waited
	rebuilt := false      // the poll is the selectNow on a rebuilt selector
	n := 0
	for e := range older {
		if n++; n > whyScan {
			break
		}
		if e.Loop != end.Loop {
			continue
		}
		if begin != nil {
			rebuilt = e.Kind == trace.KindRebuildEnd
			break
		}
		if e.Kind == trace.KindWakeup && e.Flag && woke == nil {
			woke = e
		}
		if e.Kind == trace.KindSelectBegin {
			begin = e
			if begin.Str != "select_now" {
				break
			}
		}
	}
	if rebuilt {
		return "selectNow on the new selector, right after the rebuild" + readyText(end.A, "; ")
	}
	return whyText(end, begin, woke, nextOf(end, newer))
}

// nextOf is the first event of end's loop in newer, or nil.
func nextOf(end *trace.Event, newer iter.Seq[*trace.Event]) *trace.Event {
	n := 0
	for e := range newer {
		if n++; n > whyScan {
			break
		}
		if e.Loop == end.Loop {
			return e
		}
	}
	return nil
}

func whyText(end, begin, woke, next *trace.Event) string {
	ready := end.A
	switch {
	case begin != nil && begin.Str == "select_now":
		return "polled without waiting: tasks queued or a timer due" + readyText(ready, "; ")
	case end.Flag:
		return "nothing to do: counts toward a rebuild"
	case ready > 0:
		s := readyText(ready, "")
		if woke != nil {
			s += ", and " + wokenText(woke)
		}
		return s
	case woke != nil:
		return wokenText(woke)
	case begin != nil && begin.A > 0 && end.B >= begin.A-500_000:
		return "timed out: a timer due, or the idle cap"
	case begin == nil:
		return ""
	case next != nil && next.Kind == trace.KindPause:
		return "interrupted: the run was paused"
	}
	return "early, nothing ready: a task without a new wakeup, or a signal"
}

func readyText(ready int64, lead string) string {
	switch {
	case ready <= 0:
		return ""
	case ready == 1:
		return lead + "1 ready key"
	}
	return lead + strconv.FormatInt(ready, 10) + " ready keys"
}

func wokenText(w *trace.Event) string {
	switch w.Str {
	case "":
		return "woken by an eventfd write"
	case "external":
		return "woken by an eventfd write from outside the loops"
	}
	return "woken by " + clean(w.Str, 24) + "'s eventfd write"
}

// older iterates the log's events older than the one age events back
// from the newest, newest first.
func (g *eventLog) older(age int) iter.Seq[*trace.Event] {
	return func(yield func(*trace.Event) bool) {
		for j := age + 1; j < g.n; j++ {
			if !yield(&g.buf[(g.next-1-j+2*len(g.buf))%len(g.buf)]) {
				return
			}
		}
	}
}

// newer iterates the log's events newer than the one age events back
// from the newest, oldest first.
func (g *eventLog) newer(age int) iter.Seq[*trace.Event] {
	return func(yield func(*trace.Event) bool) {
		for j := age - 1; j >= 0; j-- {
			if !yield(&g.buf[(g.next-1-j+2*len(g.buf))%len(g.buf)]) {
				return
			}
		}
	}
}

// eventsBetween iterates events[from:to] oldest first.
func eventsBetween(events []trace.Event, from, to int) iter.Seq[*trace.Event] {
	return func(yield func(*trace.Event) bool) {
		for j := from; j < to; j++ {
			if !yield(&events[j]) {
				return
			}
		}
	}
}

// eventsBefore iterates events[:i] newest first.
func eventsBefore(events []trace.Event, i int) iter.Seq[*trace.Event] {
	return func(yield func(*trace.Event) bool) {
		for j := i - 1; j >= 0; j-- {
			if !yield(&events[j]) {
				return
			}
		}
	}
}
