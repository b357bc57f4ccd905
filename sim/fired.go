package sim

import (
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"github.com/reactorviz/reactorviz/scenarios"
)

// Fired is one timeline action as the run played it: when on the run
// clock, and which loops it reached (trace loop indexes; none for an
// action on the wheel or the whole run). A run's samples carry it
// (sample.Fired, by the action's place in the timeline).
type Fired struct {
	At     time.Duration
	Action scenarios.Action
	Loops  []int
}

// noteFired puts action i of the timeline, just applied, in the run's
// stream with the next sample, which the sampler takes at once. The
// timeline goroutine notes it after applying the action, so it costs the
// loops nothing; the screens read it for their captions.
func (r *Run) noteFired(i int, a scenarios.Action) {
	r.sampler.fire(sample.Fired{Action: i, At: int64(r.Elapsed()), Loops: r.loopsOf(a)})
}

// loopsOf returns the trace indexes of the loops an action names.
func (r *Run) loopsOf(a scenarios.Action) []int {
	var out []int
	for _, l := range r.matching(actionLoop(a)) {
		out = append(out, r.index[l])
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
