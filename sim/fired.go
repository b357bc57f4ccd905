package sim

import (
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
)

// maxFired bounds the record of played actions; a scenario's timeline is
// far shorter, so this only guards a hand-written file.
const maxFired = 256

// Fired is one timeline action as the run played it: when on the run
// clock, and which loops it reached (trace loop indexes; none for an
// action on the wheel or the whole run).
type Fired struct {
	At     time.Duration
	Action scenarios.Action
	Loops  []int
}

// Fired returns the timeline actions played so far, oldest first. The
// timeline goroutine records them after applying each one, so reading
// them costs the loops nothing; the UI shows them as captions.
func (r *Run) Fired() []Fired {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Fired(nil), r.fired...)
}

// noteFired records action i of the timeline, just applied, and puts it
// in the stream with a sample of the moment.
func (r *Run) noteFired(i int, a scenarios.Action) {
	f := Fired{At: r.Elapsed(), Action: a, Loops: r.loopsOf(a)}
	r.mu.Lock()
	if len(r.fired) < maxFired {
		r.fired = append(r.fired, f)
	}
	r.mu.Unlock()
	r.sampler.take(sample.Fire, []sample.Fired{{Action: i, At: int64(f.At), Loops: f.Loops}})
}

// loopsOf returns the trace indexes of the loops an action names.
func (r *Run) loopsOf(a scenarios.Action) []int {
	names := make([]string, len(r.loops))
	for i, l := range r.loops {
		names[i] = l.Name()
	}
	return actionLoops(r.sc, a, names)
}

// FiredBy is the timeline of sc as a replay shows it at run time t: the
// actions due by then, each at its scenario time, reaching the loops of
// the trace's loop table that it names. A live run's Fired reports the
// same actions and loops, at the moments it applied them.
func FiredBy(sc *scenarios.Scenario, loops []trace.LoopInfo, t time.Duration) []Fired {
	if sc == nil {
		return nil
	}
	names := make([]string, len(loops))
	for i, l := range loops {
		names[i] = l.Name
	}
	var out []Fired
	for _, a := range sc.Timeline {
		if a.Time() <= t {
			out = append(out, Fired{At: a.Time(), Action: a, Loops: actionLoops(sc, a, names)})
		}
	}
	return out
}

// actionLoops returns the indexes in names of the loops an action names.
func actionLoops(sc *scenarios.Scenario, a scenarios.Action, names []string) []int {
	pattern := actionLoop(a)
	if pattern == "" {
		return nil
	}
	var out []int
	for _, name := range sc.MatchLoops(pattern) {
		for i, n := range names {
			if n == name {
				out = append(out, i)
			}
		}
	}
	return out
}

// actionLoop is the loop name or pattern of an action that has one, "" for
// an action on the wheel or the whole run.
func actionLoop(a scenarios.Action) string {
	switch a := a.(type) {
	case scenarios.Inject:
		return a.Loop
	case scenarios.Submit:
		return a.Loop
	case scenarios.Schedule:
		return a.Loop
	case scenarios.SetIORatio:
		return a.Loop
	case scenarios.Pause:
		return a.Loop
	}
	return ""
}
