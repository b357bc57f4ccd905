package sim

import (
	"time"

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

// noteFired records an action just applied.
func (r *Run) noteFired(a scenarios.Action) {
	f := Fired{At: r.Elapsed(), Action: a, Loops: r.loopsOf(a)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fired) < maxFired {
		r.fired = append(r.fired, f)
	}
}

// loopsOf returns the trace indexes of the loops an action names.
func (r *Run) loopsOf(a scenarios.Action) []int {
	pattern := ActionLoop(a)
	if pattern == "" {
		return nil
	}
	var out []int
	for _, l := range r.matching(pattern) {
		for i, rl := range r.loops {
			if rl == l {
				out = append(out, i)
			}
		}
	}
	return out
}

// ActionLoop is the loop name or pattern of an action that has one, "" for
// an action on the wheel or the whole run.
func ActionLoop(a scenarios.Action) string {
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
