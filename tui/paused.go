package tui

// startPause is the gate reason of a run opened paused; the header shows
// it, so it says what to do.
const startPause = "at the start: space runs, n steps"

// clockHolder is a session whose run clock can be held (*sim.Run).
type clockHolder interface {
	HoldClock(hold bool)
}

// pauseAtStart parks every loop at its next step gate as soon as the run
// has started, and holds the run clock there, so the timeline and the
// captions wait too. A loop that has no thread yet parks at its first
// boundary once it starts. The run holds its clock itself while any loop
// is paused, and lets it go on the resume.
func pauseAtStart(run Session) {
	for _, l := range run.Loops() {
		l.Pause(startPause)
	}
	if h, ok := run.(clockHolder); ok {
		h.HoldClock(true)
	}
}
