package sim

import (
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
)

// startHoldRun starts a single-reactor run (8 clients at 500/s each) that
// lasts a minute unless stopped.
func startHoldRun(t *testing.T, sinks ...trace.Sink) *Run {
	t.Helper()
	sc, err := scenarios.Load("single-reactor")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = time.Minute
	r, err := New(sc, Options{Sinks: sinks})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop(); <-r.Done() })
	return r
}

// holdRun pauses the whole run as the UI's space does: the clock first,
// then every loop, and waits until each has parked.
func holdRun(t *testing.T, r *Run) {
	t.Helper()
	r.HoldClock(true)
	for _, l := range r.Loops() {
		l.PauseRun("test")
	}
	waitFor(t, "every loop parked", func() bool {
		for _, l := range r.Loops() {
			if !l.GateStatus().Waiting {
				return false
			}
		}
		return true
	})
}

func releaseRun(r *Run) {
	for _, l := range r.Loops() {
		l.Resume()
	}
	r.HoldClock(false)
}

// waitFor polls ok until it holds, failing after ten seconds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A whole-run pause stands the run clock exactly still, the clock the
// events carry with it; the release runs it on from there.
func TestWholeRunPauseHoldsTheRunClock(t *testing.T) {
	leaktest.Check(t)
	r := startHoldRun(t)
	waitFor(t, "the clock past 100ms", func() bool { return r.Elapsed() > 100*time.Millisecond })
	holdRun(t, r)
	e1, tr1 := r.Elapsed(), r.TraceNow()
	wall := time.Now()
	for time.Since(wall) < 20*time.Millisecond {
		if e, tr := r.Elapsed(), r.TraceNow(); e != e1 || tr != tr1 {
			t.Fatalf("held run: clock moved from %v/%d to %v/%d", e1, tr1, e, tr)
		}
	}
	if got := r.ClockMap()(tr1); got != e1 {
		t.Errorf("ClockMap(now) = %v, want the header's %v", got, e1)
	}
	rel := time.Now()
	releaseRun(r)
	waitFor(t, "the clock to run again", func() bool { return r.Elapsed() > e1 })
	// The clock can only have moved since the release, however slow the
	// machine: a hold that leaked into it adds its 20 ms or more.
	if e, since := r.Elapsed(), time.Since(rel); e-e1 > since {
		t.Errorf("the hold is in the clock: %v after %v, %v since the release", e, e1, since)
	}
}

// A loop stopped on its own (a breakpoint, a step while the others run)
// does not stop the clock: the others and the clients run on.
func TestOneLoopStoppedLeavesTheClockRunning(t *testing.T) {
	leaktest.Check(t)
	r := startHoldRun(t)
	l := r.Loops()[0]
	l.Pause("breakpoint")
	waitFor(t, "the loop parked", func() bool { return l.GateStatus().Waiting })
	e1 := r.Elapsed()
	waitFor(t, "the clock to move", func() bool { return r.Elapsed() > e1+10*time.Millisecond })
	if r.Collector().Clock().Held() != nil {
		t.Error("a loop stopped on its own held the clock")
	}
	l.Resume()
}

// A step of a held run lets the clock run for the stepped phase only: it
// has advanced, and is held again once the loop parks.
func TestStepAdvancesAHeldClockByThePhase(t *testing.T) {
	leaktest.Check(t)
	r := startHoldRun(t, trace.SinkFunc(func([]trace.Event) {}))
	waitFor(t, "the clock past 100ms", func() bool { return r.Elapsed() > 100*time.Millisecond })
	holdRun(t, r)
	l := r.Loops()[0]
	for range 3 {
		e1 := r.Elapsed()
		r.Step(l, l.Step)
		waitFor(t, "the stepped loop parked again", func() bool {
			return l.GateStatus().Waiting && r.Collector().Clock().Held() != nil
		})
		e2 := r.Elapsed()
		if e2 <= e1 {
			t.Fatalf("a step left the clock at %v", e1)
		}
		wall := time.Now()
		for time.Since(wall) < 5*time.Millisecond {
			if e := r.Elapsed(); e != e2 {
				t.Fatalf("after the step the clock runs on: %v then %v", e2, e)
			}
		}
	}
	releaseRun(r)
}

// Paused at the start for a while, the clients and the timeline keep
// their schedule on the run clock: they do not catch up on the pause.
func TestClientsKeepTheirScheduleThroughAHold(t *testing.T) {
	leaktest.Check(t)
	r := startHoldRun(t)
	holdRun(t, r)
	time.Sleep(time.Second) // a pause of a second of wall time
	releaseRun(r)
	waitFor(t, "300ms of run clock", func() bool { return r.Elapsed() >= 300*time.Millisecond })
	got := r.Clients().Requests
	// 8 connections at 500/s for 0.3 s is 1200; catching up on the pause
	// would have sent 5200. Twice the schedule is the bound.
	if want := int64(2 * 8 * 500 * 3 / 10); got > want {
		t.Errorf("%d requests by 300ms of run clock after a 1 s pause: more than %d, the clients caught up on the pause", got, want)
	}
	if p := r.Clients().LatencyUS.Max; p >= 1e6 {
		t.Errorf("max latency %v µs: the pause counted", p)
	}
}

// A run whose end comes while one loop is stopped on its own (a
// breakpoint, a step) does not end under the learner: the whole run is
// paused there, the stopped loop where it stood, and ends once let go.
func TestRunEndWaitsForAStoppedLoop(t *testing.T) {
	leaktest.Check(t)
	sc, err := scenarios.Load("single-reactor")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = 400 * time.Millisecond
	r, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	l := r.Loops()[0]
	l.Pause("breakpoint")
	waitFor(t, "the loop parked", func() bool { return l.GateStatus().Waiting })
	waitFor(t, "the run's end held", r.ClockHeld)
	select {
	case <-r.Done():
		t.Fatal("the run ended with a loop stopped")
	case <-time.After(300 * time.Millisecond):
	}
	if g := l.GateStatus(); !g.Waiting || g.Reason != "breakpoint" {
		t.Errorf("the stopped loop's gate at the end: %+v", g)
	}
	releaseRun(r)
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end once let go")
	}
}
