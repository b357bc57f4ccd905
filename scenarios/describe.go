package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Describe says in one line what a timeline action does, for the TUI's
// caption line when it happens: "20 000 tasks of 20µs submitted to
// worker-3 from outside".
func Describe(a Action) string {
	switch a := a.(type) {
	case Inject:
		return describeInject(a)
	case Submit:
		what := "tasks"
		if a.Tail {
			what = "tail tasks"
		}
		return fmt.Sprintf("%s %s%s submitted to %s %s", thousands(a.Count), what, costOf(a.Cost), a.Loop, origin(a.From))
	case Schedule:
		s := fmt.Sprintf("%s task(s) scheduled on %s, due in %s", thousands(a.Count), a.Loop, durationString(a.Delay))
		if a.Period > 0 {
			s += fmt.Sprintf(", then %s every %s", a.Mode, durationString(a.Period))
		}
		return s + " " + origin(a.From)
	case WheelTimeouts:
		s := fmt.Sprintf("%s timeouts on the HashedWheelTimer, due in %s", thousands(a.Count), durationString(a.Delay))
		if a.Cancel > 0 {
			s += fmt.Sprintf(", %s cancelled at once", thousands(a.Cancel))
		}
		return s
	case SetIORatio:
		return fmt.Sprintf("ioRatio set to %d on %s", a.IORatio, a.Loop)
	case Offload:
		if a.On {
			return fmt.Sprintf("handlers offload their work to a business pool of %d goroutines", a.Pool)
		}
		return "handlers run on their event loop again (offload off)"
	case Shutdown:
		return fmt.Sprintf("graceful shutdown of every group (quiet %s, timeout %s)", durationString(a.Quiet), durationString(a.Timeout))
	case Pause:
		return fmt.Sprintf("%s paused at its gate for %s", a.Loop, durationString(a.For))
	}
	return fmt.Sprintf("%T", a)
}

func describeInject(a Inject) string {
	switch a.Fault {
	case FaultSpuriousWakeups:
		return "spurious wakeups injected into " + a.Loop + "'s selector: select returns with nothing ready"
	case FaultJDKEpollBug:
		return "the JDK epoll bug injected on " + a.Loop + ": a reset connection with no interest makes select spin"
	case FaultSlowTask:
		return "a task that runs for " + durationString(a.Duration) + " submitted to " + a.Loop
	case FaultBlockingHandler:
		return a.Loop + "'s handlers now block for " + durationString(a.Duration) + " on every read"
	case FaultPanicHandler:
		return fmt.Sprintf("the next %d reads on %s panic in the handler", a.Count, a.Loop)
	case FaultPanicTask:
		return fmt.Sprintf("%d panicking tasks submitted to %s", a.Count, a.Loop)
	}
	return string(a.Fault) + " injected into " + a.Loop
}

func origin(o Origin) string {
	if o == FromLoop {
		return "from the loop itself"
	}
	return "from outside"
}

func costOf(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " of " + durationString(d)
}

// thousands writes n with thin groups of three digits: 20 000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[0] != '-' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}
