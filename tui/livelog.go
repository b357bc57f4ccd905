package tui

import (
	"strconv"

	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// logScroll is where the live log stands: following the run, or held at a
// copy of the log taken when the user scrolled back, so what is read does
// not move while the run goes on.
type logScroll struct {
	held []model.LogLine // nil while following
	back int             // lines scrolled back from the newest held line
}

// scroll moves the log by delta lines (positive: older), holding it first
// when it follows; hold takes the copy. Back past the newest line, it
// follows again.
func (s *logScroll) scroll(delta, rows int, hold func() []model.LogLine) {
	if s.held == nil {
		if delta <= 0 {
			return
		}
		s.held, s.back = hold(), 0
	}
	s.back = min(max(s.back+delta, 0), max(len(s.held)-rows, 0))
	if s.back == 0 && delta < 0 {
		s.follow()
	}
}

// follow lets the log follow the run again.
func (s *logScroll) follow() { s.held, s.back = nil, 0 }

// lines returns the held lines up to where the log is scrolled; nil while
// the log follows the run.
func (s *logScroll) lines() []model.LogLine { return s.held[:len(s.held)-s.back] }

// title adds to the log's title where a held log stands.
func (s *logScroll) title(th *widgets.Theme) []widgets.Seg {
	if s.held == nil {
		return nil
	}
	return []widgets.Seg{widgets.S(" · held "+strconv.Itoa(s.back)+" back, End follows", th.Warn)}
}

// scrollLog handles the live log's keys.
func (v *liveView) scrollLog(a action) {
	page := max(v.body.logRows-1, 1)
	hold := func() []model.LogLine {
		run, mdl, _, _ := v.r.current()
		s := mdl.Snapshot(model.Query{Focus: v.focus, Log: model.LogCap, Filter: v.filter})
		if run != nil {
			onRunClock(run.ClockMap(), s.Log)
		}
		return s.Log
	}
	switch a {
	case actLogOlder:
		v.logAt.scroll(page, v.body.logRows, hold)
	case actLogNewer:
		v.logAt.scroll(-page, v.body.logRows, hold)
	case actLogOldest:
		v.logAt.scroll(model.LogCap, v.body.logRows, hold)
	case actLogLatest:
		v.logAt.follow()
	}
}
