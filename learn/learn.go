// Package learn is reactorviz's path of short lessons: each sets the scene
// in a few lines, stops a recorded run before a moment, asks the learner to
// predict what the screen will show there, runs on to the moment, points
// at the answer and says right or wrong with the run's own figure and why.
// A wrong answer brings a second question on the same concept.
//
// The questions are the predict: items of the built-in scenarios
// (scenarios/predict.go); a lesson names which ones it asks, and the
// run it plays is the scenario's built-in recording, so every learner
// sees the same figures and a test can check every lesson's answers.
// docs/tutorial.md is the same path in prose.
package learn

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
)

// Lesson is one step of the path.
type Lesson struct {
	Name     string   // as on the command line: learn chooser
	Title    string   // one line
	Concepts []string // the checklist ids it teaches (C1..C26)
	// Scenario is the built-in the lesson plays, through its recording.
	Scenario string
	// Scene sets the scene in a few lines, every term defined at its first
	// use on the path.
	Scene string
	// Ask and Again are the scenario's predict items (0-based): the first
	// question, and the second, different one a wrong answer brings.
	Ask, Again int
	// Log is the log pane's filter that shows the answer's events at the
	// moment (kind:timer_due), "" for none.
	Log string
}

// Moments is a run a lesson plays: its figures and log lines at any
// moment. tui.Recorded is one, read from a built-in recording.
type Moments interface {
	Scenario() *scenarios.Scenario
	At(t time.Duration) scenarios.Resolver
	Log(t time.Duration, filter string, n int) []string
}

// Index returns the place in Path of the lesson of that name, or -1.
func Index(name string) int {
	return slices.IndexFunc(Path, func(l Lesson) bool { return l.Name == name })
}

// Names lists the lessons in the path's order.
func Names() []string {
	out := make([]string, 0, len(Path))
	for _, l := range Path {
		out = append(out, l.Name)
	}
	return out
}

// Question is one predict item as a lesson asks it, with what the run
// says at its moment.
type Question struct {
	*scenarios.Predict
	Figure scenarios.Figure
	Why    string   // the why, its figures filled from the run
	Log    []string // the log lines that show the answer, oldest first
}

// ErrNoQuestion is returned for a lesson whose scenario lacks the predict
// item it names.
var ErrNoQuestion = errors.New("the scenario has no such predict item")

// Questions reads a lesson's two questions from its run: each one's
// figure, its why filled in, and the log lines at its moment.
func (l Lesson) Questions(m Moments) (first, again Question, err error) {
	sc := m.Scenario()
	if sc == nil {
		return first, again, fmt.Errorf("lesson %s: the recording names no built-in scenario", l.Name)
	}
	qs := make([]Question, 0, 2)
	for _, i := range []int{l.Ask, l.Again} {
		if i < 0 || i >= len(sc.Predict) {
			return first, again, fmt.Errorf("lesson %s: predict item %d of %s: %w", l.Name, i+1, l.Scenario, ErrNoQuestion)
		}
		p := &sc.Predict[i]
		r := m.At(p.At)
		q := Question{Predict: p, Figure: p.Figure(r), Why: p.Why.Render(r, sc)}
		if !q.Figure.OK() {
			return first, again, fmt.Errorf("lesson %s: %s at %s: %s", l.Name, p.Answer, Seconds(p.At), q.Figure.Reason())
		}
		if l.Log != "" {
			q.Log = m.Log(p.At, l.Log, 6)
		}
		qs = append(qs, q)
	}
	return qs[0], qs[1], nil
}

// Prompt is the question as it is put, with its choices numbered.
func (q Question) Prompt() string {
	var b strings.Builder
	b.WriteString(q.Question)
	for i, c := range q.Choices {
		b.WriteString("\n  " + strconv.Itoa(i+1) + ") " + c)
	}
	return b.String()
}

// Hint says what kind of answer is wanted.
func (q Question) Hint() string {
	if len(q.Choices) > 0 {
		return "type 1-" + strconv.Itoa(len(q.Choices))
	}
	if _, err := strconv.ParseFloat(q.Figure.Value, 64); err == nil {
		return "type a number"
	}
	return "type a word"
}

// RightAnswer is what a learner types to be right: the choice's number,
// or the figure.
func (q Question) RightAnswer() string {
	if q.Figure.Choice > 0 {
		return strconv.Itoa(q.Figure.Choice)
	}
	return q.Figure.Value
}

// WrongAnswer is an answer that is surely wrong, for tests and for
// teachers checking the second question.
func (q Question) WrongAnswer() string {
	if n := len(q.Choices); n > 0 {
		return strconv.Itoa(q.Figure.Choice%n + 1)
	}
	if v, err := strconv.ParseFloat(q.Figure.Value, 64); err == nil {
		return strconv.FormatFloat(v*2+7, 'f', -1, 64)
	}
	return "none-of-these"
}

// FigureText is the run's figure as the verdict states it: the value, and
// the figures it was read from.
func (q Question) FigureText() string {
	s := q.Figure.Value
	if len(q.Figure.Read) > 0 && !(len(q.Figure.Read) == 1 && strings.HasSuffix(q.Figure.Read[0], " = "+s)) || len(q.Choices) > 0 {
		s += " (" + strings.Join(q.Figure.Read, ", ") + ")"
	} else if len(q.Figure.Read) == 1 {
		s = q.Figure.Read[0]
	}
	return s
}

// Concepts lists the concepts the path covers, in order, each once.
func Concepts() []string {
	var out []string
	for _, l := range Path {
		for _, c := range l.Concepts {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		x, _ := strconv.Atoi(strings.TrimPrefix(a, "C"))
		y, _ := strconv.Atoi(strings.TrimPrefix(b, "C"))
		return x - y
	})
	return out
}

// Seconds formats a moment as "1.5s".
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
