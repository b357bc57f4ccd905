package model

import (
	"iter"
	"strconv"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// whyScan bounds how far back (and on) WhySelect looks around a
// select_end, for each log line on screen every frame: a loop asleep while
// others flood may have its select_begin further back than that, and its
// line then goes without a reason rather than cost the frame.
const whyScan = 1 << 11

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
	w := selectWait{end: end}
	rebuilt := false // the poll is the selectNow on a rebuilt selector
	n := 0
	for e := range older {
		if n++; n > whyScan {
			break
		}
		if e.Loop != end.Loop {
			continue
		}
		if w.begin != nil {
			rebuilt = e.Kind == trace.KindRebuildEnd
			break
		}
		w.note(e)
		if e.Kind == trace.KindSelectBegin {
			w.begin = e
			if e.Str != "select_now" {
				break
			}
		}
	}
	if rebuilt {
		return "selectNow on the new selector, right after the rebuild" + readyText(end.A, "; ")
	}
	w.after(newer)
	return w.text()
}

// selectWait is what is known of one select: its begin and end, what
// came in for its loop while it waited, and the loop's next event.
type selectWait struct {
	end, begin *trace.Event
	woke       *trace.Event // the newest wakeup written to the loop
	submitted  *trace.Event // the newest task submitted to it
	next       *trace.Event
}

// note keeps e if it is a wakeup written to the loop or a task submitted
// to it.
func (w *selectWait) note(e *trace.Event) {
	switch {
	case e.Kind == trace.KindWakeup && e.Flag && w.woke == nil:
		w.woke = e
	case e.Kind == trace.KindTaskSubmit && w.submitted == nil:
		w.submitted = e
	}
}

// after reads the events after end: the loop's next event of its own,
// and what came in for it by the time the select returned but arrived
// later. Events raised off the loop come through a ring of their own and
// are stamped after the eventfd write: a producer's wakeup can come after
// the select_end it caused.
func (w *selectWait) after(newer iter.Seq[*trace.Event]) {
	n := 0
	for e := range newer {
		if n++; n > whyScan || (w.next != nil && e.Time > w.end.Time) {
			break
		}
		switch {
		case e.Loop != w.end.Loop:
		case e.Kind == trace.KindWakeup || e.Kind == trace.KindTaskSubmit:
			if e.Time <= w.end.Time {
				w.note(e)
			}
		case w.next == nil:
			w.next = e
		}
	}
}

func (w *selectWait) text() string {
	end, begin := w.end, w.begin
	ready := end.A
	switch {
	case begin != nil && begin.Str == "select_now":
		return "polled without waiting: tasks queued or a timer due" + readyText(ready, "; ")
	case end.Flag:
		return "nothing to do: counts toward a rebuild"
	case ready > 0:
		s := readyText(ready, "")
		if why := w.woken(); why != "" {
			s += ", and " + why
		}
		return s
	case w.woken() != "":
		return w.woken()
	case begin != nil && begin.A > 0 && end.B >= begin.A-500_000:
		return "timed out: a timer due, or the idle cap"
	case begin == nil:
		return ""
	case w.next != nil && w.next.Kind == trace.KindPause:
		return "interrupted: the run was paused"
	}
	return "early, nothing ready: a task without a new wakeup, or a signal"
}

// woken says who woke the loop: the wakeup written to it, or else the
// task submitted to it while it waited, whose wakeup is yet to arrive.
func (w *selectWait) woken() string {
	switch {
	case w.woke != nil:
		return wokenText(w.woke)
	case w.submitted == nil:
		return ""
	case w.submitted.Flag:
		return "woken: a task came from outside the loops"
	}
	return "woken: a task came from another loop"
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
