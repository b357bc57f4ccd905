package learn

import (
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
)

// Lead is how far before its moment a question holds the run: long enough
// to see the scene, short enough that the answer is still to come.
const Lead = 400 * time.Millisecond

// HoldAt is where a question about moment at holds the run while the
// learner answers: Lead before it, or just before the last scripted action
// since the previous question's moment (since; 0 for a lesson's first)
// when that comes later. A question names the action it is about ("at 1s
// another goroutine submits 10 000 tasks... how many writes by 1.5s?"),
// and a screen held after it would show its count already. An action at
// the run's start sets the scene and does not move the hold.
func HoldAt(sc *scenarios.Scenario, at, since time.Duration) time.Duration {
	hold := at - min(at, Lead)
	if sc == nil {
		return hold
	}
	var last time.Duration
	for _, a := range sc.Timeline {
		if t := a.Time(); t > since && t <= at {
			last = max(last, t)
		}
	}
	if last > 0 {
		hold = min(hold, last-time.Millisecond)
	}
	return hold
}
