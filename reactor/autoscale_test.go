package reactor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

func testAutoScale() AutoScale {
	return AutoScale{MinThreads: 1, MaxThreads: 4, Window: time.Hour, ScaleDown: 0.1, ScaleUp: 0.7,
		MaxRampUp: 1, MaxRampDown: 4, Patience: 1}
}

func TestAutoScaleValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*AutoScale)
		want string
	}{
		{func(a *AutoScale) { a.MinThreads = 5 }, "must not be greater than maxThreads"},
		{func(a *AutoScale) { a.Window = 0 }, "utilizationWindow"},
		{func(a *AutoScale) { a.ScaleDown = 0.8 }, "scaleDownThreshold must be less than scaleUpThreshold"},
		{func(a *AutoScale) { a.ScaleUp = 1.5 }, "scaleUpThreshold"},
		{func(a *AutoScale) { a.MaxRampUp = 0 }, "maxRampUpStep"},
		{func(a *AutoScale) { a.Patience = -1 }, "scalingPatienceCycles"},
	} {
		a := testAutoScale()
		tc.edit(&a)
		if err := a.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", a, err, tc.want)
		}
	}
	if err := testAutoScale().Validate(); err != nil {
		t.Fatal(err)
	}
}

// Only Netty 4.2 groups scale; the others refuse with a clear error.
func TestAutoScaleNeeds42(t *testing.T) {
	leakCheck(t)
	for _, f := range []Flavour{Netty4143, Netty41} {
		g, err := NewEventLoopGroup("worker", 4, Config{Netty: f})
		if err != nil {
			t.Fatal(err)
		}
		err = g.AutoScale(testAutoScale())
		g.ShutdownGracefully(0, 0)
		if !errors.Is(err, ErrAutoScaleFlavour) {
			t.Fatalf("netty %s: error %v, want ErrAutoScaleFlavour", f, err)
		}
	}
	g, err := NewEventLoopGroup("worker", 2, Config{Netty: Netty42})
	if err != nil {
		t.Fatal(err)
	}
	defer g.ShutdownGracefully(0, 0)
	if err := g.AutoScale(testAutoScale()); err == nil || !strings.Contains(err.Error(), "size 2") {
		t.Fatalf("maxThreads 4 on a group of 2: error %v", err)
	}
}

// hourClock is the monitor's clock double: every reading is an hour after
// the last, so a window's real I/O and task time is negligible and a loop is
// idle unless a test credits it with active time.
func hourClock() func() int64 {
	var t int64
	return func() int64 { t += int64(time.Hour); return t }
}

// busyFor credits l with a whole window of task time, on its own thread.
func busyFor(t *testing.T, l *EventLoop) {
	onLoop(t, l, func() { add(&l.stats.TaskNanos, int64(time.Hour)) })
}

// The monitor suspends exactly the idle loops without channels, Next()
// then skips them, and load resumes them one ramp step per window.
func TestAutoScaleSuspendsIdleLoopsAndResumesUnderLoad(t *testing.T) {
	leakCheck(t)
	coll, rec := newTraced(t)
	srv := startServer(t, 1, 4, Config{Netty: Netty42, Collector: coll}, echoInit)
	sc, err := srv.worker.enableAutoScale(testAutoScale())
	if err != nil {
		t.Fatal(err)
	}
	sc.now = hourClock()
	loops := srv.worker.Loops()
	c := dial(t, srv.addr()) // the first Next(): worker-0
	echoOnce(t, c, "x")
	for _, l := range loops[1:3] { // worker-3 never starts
		onLoop(t, l, func() {})
	}

	sc.check() // first idle window: patience not yet spent
	for _, l := range loops {
		if l.State().Suspended() {
			t.Fatalf("%s suspended after one idle window, patience 1", l.Name())
		}
	}
	sc.check()
	for _, l := range loops[1:] {
		waitFor(t, l.Name()+" suspended", func() bool { return l.State() == trace.StateSuspended })
	}
	if s := loops[0].State(); s != trace.StateStarted {
		t.Fatalf("worker-0, with a channel, is %s", s)
	}
	if loops[3].TID() != 0 {
		t.Fatal("a never-started loop was started to suspend it")
	}
	if n := srv.worker.ActiveCount(); n != 1 {
		t.Fatalf("%d active loops, want 1", n)
	}
	for i := 0; i < 8; i++ {
		if l := srv.worker.Next(); l != loops[0] {
			t.Fatalf("Next() chose suspended %s", l.Name())
		}
	}

	busyFor(t, loops[0])
	sc.check() // first busy window: patience
	if n := srv.worker.ActiveCount(); n != 1 {
		t.Fatalf("scaled up after one busy window: %d active", n)
	}
	busyFor(t, loops[0])
	sc.check()
	if n := srv.worker.ActiveCount(); n != 2 {
		t.Fatalf("%d active after a busy window, want 2 (ramp step 1)", n)
	}
	if s := loops[1].State(); s != trace.StateStarted {
		t.Fatalf("worker-1 is %s after the resume, want STARTED", s)
	}
	st := loops[1].Stats()
	if st.Suspensions != 1 || st.Resumes != 1 {
		t.Fatalf("worker-1 suspensions=%d resumes=%d, want 1 and 1", st.Suspensions, st.Resumes)
	}
	busyFor(t, loops[0])
	sc.check()
	waitFor(t, "worker-2 resumed next, ramp order", func() bool {
		return srv.worker.ActiveCount() == 3 && loops[2].State() == trace.StateStarted
	})
	checkScaleTrace(t, rec, loopIndex(t, coll, "worker-1"))
}

// The trace shows the whole round trip of worker-1: its utilisation each
// window, the decision to suspend it, the two steps of its suspension and
// its resume, so the UI and a replay can draw them.
func checkScaleTrace(t *testing.T, rec *recorder, w1 uint16) {
	t.Helper()
	want := []string{"STARTED>SUSPENDING", "SUSPENDING>SUSPENDED", "SUSPENDED>STARTED"}
	waitFor(t, "worker-1's state events", func() bool {
		var got []string
		for _, e := range rec.ofKind(w1, trace.KindState) {
			got = append(got, trace.State(e.A).String()+">"+trace.State(e.B).String())
		}
		return strings.Contains(strings.Join(got, ","), strings.Join(want, ","))
	})
	waitFor(t, "worker-1's scaling events", func() bool {
		return len(rec.ofKind(w1, trace.KindLoopSuspend)) == 1 && len(rec.ofKind(w1, trace.KindLoopResume)) == 1 &&
			len(rec.ofKind(w1, trace.KindUtilisation)) == 3 // two idle windows, then one after its resume
	})
}

// The real monitor, on its own ticker: idle loops without channels are
// suspended down to minThreads, and shutting the group down stops the
// monitor (leakCheck sees its goroutine gone).
func TestAutoScaleMonitor(t *testing.T) {
	leakCheck(t)
	g, err := NewEventLoopGroup("worker", 3, Config{Netty: Netty42})
	if err != nil {
		t.Fatal(err)
	}
	onLoop(t, g.Loops()[0], func() {})
	a := testAutoScale()
	a.MaxThreads, a.Window, a.Patience = 3, 10*time.Millisecond, 0
	if err := g.AutoScale(a); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two of three idle loops suspended", func() bool { return g.ActiveCount() == 1 })
	suspended := 0
	for _, l := range g.Loops() {
		if l.State().Suspended() {
			suspended++
		}
	}
	if suspended != 2 {
		t.Fatalf("%d loops suspended, want 2 (minThreads 1)", suspended)
	}
	g.ShutdownGracefully(0, time.Second)
	if !g.AwaitTermination(10 * time.Second) {
		t.Fatal("group did not terminate")
	}
}

// Every scale change gives AutoScalingState a new chooser over its active
// loops (DefaultEventExecutorChooserFactory.newChooser): the round-robin
// starts from the first active loop again. A scale-down lists the loops
// left in group order; a scale-up appends the loops it resumed at the end
// of the old list, in the order it resumed them.
func TestAutoScaleNewChooserPerScaleChange(t *testing.T) {
	leakCheck(t)
	g, err := NewEventLoopGroup("worker", 4, Config{Netty: Netty42})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.ShutdownGracefully(0, time.Second); g.AwaitTermination(10 * time.Second) })
	a := testAutoScale()
	a.MaxRampUp = 2
	sc, err := g.enableAutoScale(a)
	if err != nil {
		t.Fatal(err)
	}
	sc.now = hourClock()
	w := g.Loops()
	for _, l := range w {
		onLoop(t, l, func() {})
	}
	names := func(n int) string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, g.Next().Name())
		}
		return strings.Join(out, " ")
	}
	if got := names(3); got != "worker-0 worker-1 worker-2" {
		t.Fatalf("before scaling: %s", got)
	}
	for i := 0; i < 2; i++ { // patience 1: the second idle window suspends
		busyFor(t, w[0])
		busyFor(t, w[2])
		sc.check()
	}
	for _, l := range []*EventLoop{w[1], w[3]} {
		waitFor(t, l.Name()+" suspended", func() bool { return l.State() == trace.StateSuspended })
	}
	if got := names(3); got != "worker-0 worker-2 worker-0" {
		t.Fatalf("after the scale-down: %s, want the new chooser from worker-0", got)
	}
	busyFor(t, w[0])
	busyFor(t, w[2])
	sc.check() // both busy beyond the patience: resume two
	if got := names(5); got != "worker-0 worker-2 worker-1 worker-3 worker-0" {
		t.Fatalf("after the scale-up: %s, want the resumed loops appended", got)
	}
}

// 4.2's startThread resumes only NOT_STARTED and SUSPENDED loops. A task
// submitted to a SUSPENDING loop keeps canSuspend() false until it has
// run; then the loop suspends all the same.
func TestSuspendingLoopRunsATaskAndSuspends(t *testing.T) {
	leakCheck(t)
	l := startedLoop(t, Config{Netty: Netty42})
	running, release := make(chan struct{}), make(chan struct{})
	if err := l.Execute(func() { close(running); <-release }); err != nil {
		t.Fatal(err)
	}
	<-running
	if !l.trySuspend() || l.State() != trace.StateSuspending {
		t.Fatalf("trySuspend on a running loop: state %v", l.State())
	}
	ran := make(chan struct{})
	if err := l.Execute(func() { close(ran) }); err != nil {
		t.Fatal(err)
	}
	if s := l.State(); s != trace.StateSuspending {
		t.Fatalf("a submission moved a SUSPENDING loop to %v", s)
	}
	close(release)
	<-ran
	waitFor(t, "the loop suspended after the task", func() bool { return l.State() == trace.StateSuspended })
}
