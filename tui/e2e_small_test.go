package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// loopRow is a compact row of the lesson layout: the mark, the loop's
// name and its state by Netty's name (⏸ after it while it waits at its
// gate), then the phase ring.
var loopRow = regexp.MustCompile(`^[ ▶◆](\S+)\s+(NOT_STARTED|STARTED|SUSPENDING|SUSPENDED|SHUTTING_DOWN|SHUTDOWN|TERMINATED)( ⏸…?)?\s+\S*(?i:sel)`)

// rowStates reads the lesson layout's loops block: each loop's state by
// its name.
func rowStates(screen string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(lessonLanes(screen), "\n") {
		if m := loopRow.FindStringSubmatch(line); m != nil {
			out[m[1]] = m[2]
		}
	}
	return out
}

// At 80×24 the tour keeps every loop on screen: at 3.5 s boss-0 and the
// four workers each have a row with its state, the timeline beside them.
func TestE2ETourAt80x24KeepsEveryLoop(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 80, 24, bin+" run tour --duration 60s")
	at := regexp.MustCompile(`00:0(3\.[5-9]|[4-9]\.\d)/`)
	p.waitUntil("the clock at 3.5 s", func(s string) bool { return at.MatchString(s) })
	p.keys("Space")
	scr := p.waitFor("PAUSED")
	states := rowStates(scr)
	for _, name := range []string{"boss-0", "worker-0", "worker-1", "worker-2", "worker-3"} {
		if states[name] == "" {
			t.Errorf("no row with %s's state at 80×24:\n%s", name, scr)
		}
	}
	if !strings.Contains(scr, "── timeline · ") {
		t.Errorf("no timeline beside the rows:\n%s", scr)
	}
	p.keys("q")
	p.waitFor("EXIT=0")
}

// A breakpoint that stops a loop at 80×24 is named in the header: the
// scenario's description gives way first.
func TestE2EBreakpointNamedAt80x24(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 80, 24, bin+" run --paused spurious-wakeup")
	p.waitFor("at the start")
	p.keys("b")
	p.waitFor("selector rebuilt (C10)")
	p.keys("Space")
	p.waitFor("[x] selector rebuilt")
	// b closes the menu: an escape followed at once by a space reads as
	// alt-space.
	p.keys("b")
	p.waitFor("─ loops · ")
	p.keys("Space")
	scr := p.waitFor("breakpoint: selector rebuilt (worker-0)")
	if header := strings.Split(scr, "\n")[0]; !strings.Contains(header, "breakpoint: selector rebuilt (worker-0)") {
		t.Errorf("the header does not name the breakpoint:\n%s", scr)
	}
	p.keys("q")
	p.waitFor("EXIT=0")
}

// compare's verdict at 80×24: "why they differ" is on screen, and scrolled
// to its end, its last bullet, the one the headless summary ends with.
func TestE2ECompareWhyTheyDifferAt80x24(t *testing.T) {
	bin := buildCLI(t)
	p := newPane(t, 80, 24, bin+" compare --flavours 4.1.43,4.1,4.2 netty-versions")
	scr := p.waitForWithin("all flavours done", 60*time.Second)
	if !strings.Contains(scr, " of ") || !strings.Contains(scr, "] [ scroll") {
		t.Fatalf("the verdict does not say it scrolls:\n%s", scr)
	}
	// A long verdict (a worst window named per run) pushes the heading down
	// a page or two: the learner scrolls to it.
	for range 10 {
		if strings.Contains(p.capture(), "why they differ:") {
			break
		}
		p.keys("]")
		time.Sleep(300 * time.Millisecond)
	}
	p.waitFor("why they differ:")
	for range 20 {
		p.keys("]")
	}
	scr = p.waitUntil("the verdict's last lines", func(s string) bool {
		m := verdictAtEnd.FindStringSubmatch(s)
		return m != nil && m[1] == m[2]
	})
	// The runs' figures pick the bullets; the last is a "4.1 → 4.2" one,
	// as the flavours are compared in order.
	if !strings.Contains(scr, "· 4.1 → 4.2: ") {
		t.Errorf("the last bullet is not on screen at the verdict's end:\n%s", scr)
	}
	p.keys("q")
	p.waitFor("EXIT=0")
}

// verdictAtEnd is the verdict's mark once its last line is shown.
var verdictAtEnd = regexp.MustCompile(`↑ lines \d+–(\d+) of (\d+)`)
