package learn

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Outcome is how a learner did on one lesson: the first question right,
// or wrong and then the second right or wrong.
type Outcome struct {
	First  bool `json:"first_right"`
	Again  bool `json:"second_right,omitempty"`
	Second bool `json:"second_asked,omitempty"`
}

// Right reports whether the lesson ended on a right answer.
func (o Outcome) Right() bool { return o.First || o.Again }

// Word says the outcome in a word or two for the summary.
func (o Outcome) Word() string {
	switch {
	case o.First:
		return "right"
	case o.Again:
		return "right the second time"
	}
	return "wrong twice"
}

// ErrNoAnswer is returned when the input ends before an answer.
var ErrNoAnswer = errors.New("the input ended before an answer")

// Walk plays a lesson on text: it prints the scene and the first
// question, reads an answer from in, prints the run's figure at the
// moment, the verdict, the why and the log lines that show it, and on a
// wrong answer does the same with the second question. It is the
// headless lesson, and the interactive one in a plain terminal.
func Walk(l Lesson, pos, of int, m Moments, in *bufio.Reader, out io.Writer) (Outcome, error) {
	var o Outcome
	first, again, err := l.Questions(m)
	if err != nil {
		return o, err
	}
	fmt.Fprintf(out, "== lesson %d of %d: %s — %s (%s)\n", pos, of, l.Name, l.Title, strings.Join(l.Concepts, ", "))
	fmt.Fprintf(out, "   on the recording of the %s scenario\n\n", l.Scenario)
	fmt.Fprintln(out, strings.TrimSpace(l.Scene))
	right, err := ask(first, "question", in, out)
	if err != nil {
		return o, err
	}
	o.First = right
	if right {
		return o, nil
	}
	o.Second = true
	o.Again, err = ask(again, "second question", in, out)
	return o, err
}

// ask puts one question, reads answers until one is an answer, and gives
// the verdict.
func ask(q Question, what string, in *bufio.Reader, out io.Writer) (bool, error) {
	fmt.Fprintf(out, "\n-- %s: the run stops before %s\n%s\n", what, Seconds(q.At), q.Prompt())
	for {
		fmt.Fprintf(out, "answer (%s)> ", q.Hint())
		line, err := in.ReadString('\n')
		if line == "" && err != nil {
			fmt.Fprintln(out)
			return false, ErrNoAnswer
		}
		right, ok := q.Check(line, q.Figure)
		if !ok {
			fmt.Fprintf(out, "%q is not an answer here; %s\n", strings.TrimSpace(line), q.Hint())
			if err != nil {
				return false, ErrNoAnswer
			}
			continue
		}
		fmt.Fprintln(out, strings.TrimSpace(line))
		verdict := "wrong"
		if right {
			verdict = "right"
		}
		fmt.Fprintf(out, "the run goes on to %s.\nfigure: %s\nverdict: %s\nwhy: %s\n", Seconds(q.At), q.FigureText(), verdict, q.Why)
		if len(q.Log) > 0 {
			fmt.Fprintln(out, "the log at the moment:")
			for _, l := range q.Log {
				fmt.Fprintln(out, "  "+l)
			}
		}
		return right, nil
	}
}
