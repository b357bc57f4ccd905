package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// While the loops are paused the wheel ticks on: its ticks fold into one
// counted line, so the stepped loop's events stay on screen. PgUp holds
// the log where it is while events arrive; End follows the run again.
func TestLiveLogFoldsTicksAndScrolls(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 100, 32)
	f := lf.session(0)
	hs.press(runeEv(' '))
	wheel := loopIndex(fakeTopology, "wheel")
	var ticks []trace.Event
	for i := range 40 {
		ticks = append(ticks, trace.Event{Time: 2400e6 + int64(i)*1e6, Loop: wheel, Kind: trace.KindWheelTick, A: int64(100 + i), B: int64(i % 8)})
	}
	f.feed(ticks...)
	f.feed(trace.Event{Time: 2500e6, Loop: 1, Kind: trace.KindPause, A: int64(trace.PhaseIO), Str: "step"})
	golden(t, "live_log_folded", hs.frame())

	hs.press(keyEv(tcell.KeyPgUp))
	scr := hs.frame()
	if !strings.Contains(scr, "held ") {
		t.Errorf("PgUp did not hold the log:\n%s", scr)
	}
	f.feed(trace.Event{Time: 2600e6, Loop: 2, Kind: trace.KindInject, A: 99, Str: "slow-task"})
	if scr := hs.frame(); strings.Contains(scr, "fault=slow-task") {
		t.Errorf("a held log took a new event:\n%s", scr)
	}
	hs.press(keyEv(tcell.KeyEnd))
	if scr := hs.frame(); !strings.Contains(scr, "fault=slow-task") || strings.Contains(scr, "held ") {
		t.Errorf("End did not follow the run again:\n%s", scr)
	}
	hs.press(runeEv(' '))
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}

// The log shows times on the run clock, as the header does: a run held for
// two seconds logs an event at 2.4 s of trace time at 0.4 s.
func TestLiveLogOnTheRunClock(t *testing.T) {
	checkGoroutines(t)
	hs, lf := startLive(t, 100, 32)
	f := lf.session(0)
	f.held.Store(2e9)
	f.feed(trace.Event{Time: 2450e6, Loop: 2, Kind: trace.KindInject, A: 99, Str: "slow-task"},
		trace.Event{Time: 2460e6, Loop: 2, Kind: trace.KindTimerSchedule, A: 7, B: 3060e6, Str: "probe"})
	scr := hs.frame()
	if !strings.Contains(scr, "00:00.450 worker-1 inject") {
		t.Errorf("the log does not show the run clock:\n%s", scr)
	}
	if !strings.Contains(scr, "deadline=@00:01.060") {
		t.Errorf("a deadline is not on the run clock:\n%s", scr)
	}
	if err := hs.quit(); err != nil {
		t.Fatal(err)
	}
}
