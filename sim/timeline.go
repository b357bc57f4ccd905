package sim

import (
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
)

// playTimeline applies the scenario's actions at their times until the run
// stops.
func (r *Run) playTimeline() {
	for i, a := range r.sc.Timeline {
		if !r.sleepUntil(a.Time()) {
			return
		}
		r.apply(a)
		r.noteFired(i, a)
	}
}

// sleepUntil waits for the run clock to reach at; false if the run
// stopped. While the run is held it waits for the release, so the
// schedule continues as if no time had passed.
func (r *Run) sleepUntil(at time.Duration) bool {
	for {
		if held := r.coll.Clock().Held(); held != nil {
			select {
			case <-r.stop:
				return false
			case <-held:
			}
			continue
		}
		rem := at - r.Elapsed()
		if rem <= 0 {
			select {
			case <-r.stop:
				return false
			default:
				return true
			}
		}
		// In steps: a hold that begins meanwhile is seen within one.
		t := time.NewTimer(min(rem, 50*time.Millisecond))
		select {
		case <-r.stop:
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

func (r *Run) matching(pattern string) []*reactor.EventLoop {
	var out []*reactor.EventLoop
	for _, name := range r.sc.MatchLoops(pattern) {
		if l := r.byName[name]; l != nil {
			out = append(out, l)
		}
	}
	return out
}

func (r *Run) apply(a scenarios.Action) {
	switch a := a.(type) {
	case scenarios.Inject:
		for _, l := range r.matching(a.Loop) {
			r.inject(l, a)
		}
	case scenarios.Submit:
		for _, l := range r.matching(a.Loop) {
			submitTasks(l, a)
		}
	case scenarios.Schedule:
		for _, l := range r.matching(a.Loop) {
			scheduleTasks(l, a)
		}
	case scenarios.WheelTimeouts:
		r.wheelTimeouts(a)
	case scenarios.SetIORatio:
		for _, l := range r.matching(a.Loop) {
			_ = l.SetIORatio(a.IORatio)
		}
	case scenarios.Offload:
		r.setOffload(a.On, a.Pool)
	case scenarios.Shutdown:
		for _, g := range r.groups {
			g.ShutdownGracefully(a.Quiet, a.Timeout)
		}
	case scenarios.Pause:
		r.pauseFor(r.matching(a.Loop), a.For)
	}
}

func (r *Run) inject(l *reactor.EventLoop, a scenarios.Inject) {
	switch a.Fault {
	case scenarios.FaultSpuriousWakeups:
		_ = l.InjectSpuriousWakeups()
	case scenarios.FaultJDKEpollBug:
		_ = r.injectJDKEpollBug(l)
	case scenarios.FaultSlowTask:
		_ = l.ExecuteNamed("slow-task", func() { burn(a.Duration) })
		l.CountInjection(string(a.Fault))
	case scenarios.FaultBlockingHandler:
		r.faults[l].blockNanos.Store(int64(a.Duration))
		l.CountInjection(string(a.Fault))
	case scenarios.FaultPanicHandler:
		r.faults[l].panics.Add(int64(a.Count))
		l.CountInjection(string(a.Fault))
	case scenarios.FaultPanicTask:
		for i := 0; i < a.Count; i++ {
			_ = l.ExecuteNamed("panic-task", func() { panic("injected task panic") })
		}
		l.CountInjection(string(a.Fault))
	}
}

// submitTasks submits Count tasks that each burn Cost of CPU. From the loop
// itself they go in from one seeding task, and need no wakeup (C12).
func submitTasks(l *reactor.EventLoop, a scenarios.Submit) {
	name := "task"
	if a.Tail {
		name = "tail-task"
	}
	submit := func() {
		for i := 0; i < a.Count; i++ {
			fn := func() { burn(a.Cost) }
			if a.Tail {
				_ = l.ExecuteAfterEventLoopIteration(name, fn)
			} else {
				_ = l.ExecuteNamed(name, fn)
			}
		}
	}
	if a.From == scenarios.FromLoop {
		_ = l.ExecuteNamed("submit from loop", submit)
		return
	}
	submit()
}

// scheduleTasks puts Count tasks on the loop's scheduled-task heap.
func scheduleTasks(l *reactor.EventLoop, a scenarios.Schedule) {
	schedule := func() {
		for i := 0; i < a.Count; i++ {
			fn := func() { burn(a.Cost) }
			switch a.Mode {
			case scenarios.ScheduleFixedRate:
				_, _ = l.ScheduleAtFixedRate("fixed-rate", a.Delay, a.Period, fn)
			case scenarios.ScheduleFixedDelay:
				_, _ = l.ScheduleWithFixedDelay("fixed-delay", a.Delay, a.Period, fn)
			default:
				_, _ = l.Schedule("timer", a.Delay, fn)
			}
		}
	}
	if a.From == scenarios.FromLoop {
		_ = l.ExecuteNamed("schedule from loop", schedule)
		return
	}
	schedule()
}

func (r *Run) wheelTimeouts(a scenarios.WheelTimeouts) {
	for i := 0; i < a.Count; i++ {
		to, err := r.wheel.NewTimeout("timeout", a.Delay, func() {})
		if err == nil && i < a.Cancel {
			to.Cancel()
		}
	}
}

// pauseFor stops the loops at their step gates for d of the run clock.
// Their clients' bytes wait in the kernel and their timers fall due
// meanwhile: the clock runs on, as only some loops stopped.
func (r *Run) pauseFor(loops []*reactor.EventLoop, d time.Duration) {
	for _, l := range loops {
		l.Pause("timeline pause")
	}
	until := r.Elapsed() + d
	go func() {
		r.sleepUntil(until)
		for _, l := range loops {
			l.Resume()
		}
	}()
}

// burn keeps the CPU busy for d: a task's cost is work, not a sleep, so a
// flood of them really fills the loop's time budget.
func burn(d time.Duration) {
	if d <= 0 {
		return
	}
	end := time.Now().Add(d)
	for time.Now().Before(end) {
	}
}
