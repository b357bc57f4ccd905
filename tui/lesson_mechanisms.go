package tui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// What the concept block shows of the mechanisms a counter cannot show:
// who feeds a loop's task queue (C13), the heap's order (C14), the
// selected-key array and each key's ops (C20, C21) and the quiet period
// counting down (C23). Each is computed from the focused loop's events.

// producersText lists who submitted to the loop's queue, most first:
// "outside 200 · boss-0 32 · self 3".
func producersText(p model.Producers) string {
	return strings.Join(producerParts(p), " · ")
}

// producersFit is producersText in w cells: the parts that fit whole,
// then how many more producers there were.
func producersFit(p model.Producers, w int) string {
	parts := producerParts(p)
	out := ""
	for i, part := range parts {
		next := out
		if i > 0 {
			next += " · "
		}
		next += part
		rest := ""
		if i < len(parts)-1 {
			rest = " +" + strconv.Itoa(len(parts)-1-i)
		}
		if widgets.Width(next+rest) > w && i > 0 {
			return out + " +" + strconv.Itoa(len(parts)-i)
		}
		out = next
	}
	return out
}

func producerParts(p model.Producers) []string {
	type part struct {
		name string
		n    int64
	}
	var parts []part
	for _, l := range p.Loops {
		parts = append(parts, part{l.Name, l.N})
	}
	for _, x := range []part{{"outside", p.Outside}, {"self", p.Self}, {"other loops", p.Others}} {
		if x.n > 0 {
			parts = append(parts, x)
		}
	}
	if len(parts) == 0 {
		return []string{"none yet"}
	}
	// Most submissions first; a tie keeps the order above.
	slices.SortStableFunc(parts, func(a, b part) int { return cmp.Compare(b.n, a.n) })
	out := make([]string, len(parts))
	for i, x := range parts {
		out[i] = x.name + " " + c(x.n)
	}
	return out
}

// mpscWords says what the producers and the one consumer are.
func mpscWords(lc *lessonCtx) string {
	l := lc.info.loop
	return "An MPSC queue: " + producersText(l.Producers) + " offered tasks; only " + l.Name +
		" polls them, one at a time, in the order they came."
}

// heapOrder is the top of the scheduled heap in the order the loop takes
// them, earliest deadline first and, for one deadline, the lower id (the
// sequence number ScheduledFutureTask compares on).
func heapOrder(in detailInfo, n int) string {
	top := in.loop.TimerHead
	if len(top) == 0 {
		return "-"
	}
	var parts []string
	for _, t := range top[:min(n, len(top))] {
		parts = append(parts, "#"+strconv.FormatInt(t.ID, 10)+" "+dueText(t.Deadline, in.now))
	}
	if len(top) > n || in.loop.Timers > int64(n) {
		parts = append(parts, "…")
	}
	return strings.Join(parts, " · ")
}

// keyText is one selected key: "ch7 read→reply", or a listening channel's
// "accept×3".
func keyText(k model.Key) string {
	if k.Accepts > 0 {
		if k.Accepts == 1 {
			return "accept"
		}
		return "accept×" + strconv.Itoa(k.Accepts)
	}
	ops := make([]string, len(k.Ops))
	for i, o := range k.Ops {
		ops[i] = o.String()
	}
	return "ch" + strconv.FormatInt(k.Channel, 10) + " " + strings.Join(ops, "→")
}

// keysText is the selected-key array of the loop's latest I/O phase, up
// to n keys by index: "[0] ch7 read→reply [1] ch9 read→reply +3".
func keysText(ks model.Keys, n int) string {
	if len(ks.List) == 0 {
		switch {
		case ks.Selected == 1:
			return "1 key, no event"
		case ks.Selected > 1:
			return strconv.FormatInt(ks.Selected, 10) + " keys, no event"
		}
		return "none yet"
	}
	var b strings.Builder
	for i, k := range ks.List[:min(n, len(ks.List))] {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("[" + strconv.Itoa(i) + "] " + keyText(k))
	}
	if more := len(ks.List) + ks.Unlisted - n; more > 0 {
		b.WriteString(" +" + strconv.Itoa(more))
	}
	return b.String()
}

// arrayName is what the I/O phase walks: the JDK selector's selected keys,
// which Netty swaps for an array (SelectedSelectionKeySet), or the native
// epoll's events array (EpollEventLoop.processReady).
func arrayName(lc *lessonCtx) string {
	if lc.sc != nil && lc.sc.Loop.Selector == scenarios.SelectorEpoll {
		return "events[]"
	}
	return "selectedKeys"
}

// keysWords says how the array is walked, with the latest phase's keys.
func keysWords(lc *lessonCtx) string {
	ks := lc.info.loop.Keys
	if len(ks.List) == 0 {
		return "The select fills an array of ready keys, which the I/O phase walks by index."
	}
	since := ""
	switch {
	case ks.EmptyAfter == 1:
		since = "; the one select since returned none"
	case ks.EmptyAfter > 1:
		since = "; the " + c(ks.EmptyAfter) + " selects since returned none"
	}
	return "The select filled " + arrayName(lc) + " with " + strconv.Itoa(len(ks.List)+ks.Unlisted) +
		" keys, and the I/O phase at " + model.Clock(ks.Time) + " walked it by index: " + keysText(ks, 4) + since + "."
}

// opsKey is the key of the latest I/O phase that did the most ops, which
// shows their order best.
func opsKey(ks model.Keys) string {
	best := -1
	for i, k := range ks.List {
		if k.Accepts == 0 && (best < 0 || len(k.Ops) > len(ks.List[best].Ops)) {
			best = i
		}
	}
	if best < 0 {
		if len(ks.List) > 0 {
			return keyText(ks.List[0])
		}
		return "-"
	}
	return keyText(ks.List[best])
}

func readyOpsWords(*lessonCtx) string {
	return "processSelectedKey handles a key's ready ops in a fixed order: CONNECT first (finishConnect, then " +
		"channelActive, which may write), then WRITE (flush what waits), then READ or ACCEPT; a reply written " +
		"after a read is its flush."
}

// quietText is the quiet period counting down: "1.3s of 2s"; "-" when no
// shutdown waits on it.
func quietText(in detailInfo) string {
	sd := in.loop.Shutdown
	left, ok := sd.QuietLeft(in.now)
	switch {
	case sd.End != 0:
		return "passed"
	case !ok:
		return "-"
	}
	return model.Duration(left) + " of " + model.Duration(sd.Quiet)
}

// shutdownWords tells the graceful shutdown with its figures.
func shutdownWords(lc *lessonCtx) string {
	sd := lc.info.loop.Shutdown
	if sd.Start == 0 || sd.Quiet == 0 {
		return "shutdownGracefully: the loop goes on running tasks until none has run for the quiet period, " +
			"or the timeout passes; then SHUTDOWN, and a submission is rejected."
	}
	return "SHUTTING_DOWN: tasks still run; when none has run for " + model.Duration(sd.Quiet) +
		" (each batch starts the count again), or " + model.Duration(sd.Timeout) +
		" after the start, the loop is SHUTDOWN and rejects what comes."
}
