package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reactorviz/reactorviz/learn"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui"
)

// learnTUI plays the path in the terminal UI.
var learnTUI = func(start int, progress *learn.Progress, save func() error) error {
	return uiErr(tui.RunLearn(tui.LearnConfig{Start: start, Progress: progress, Save: save, Open: openRecording}, tui.Options{}))
}

// stdin is where learn reads answers; tests replace it.
var stdin io.Reader = os.Stdin

func cmdLearn(e *env, args []string) error {
	f := newFlags("learn", "[NAME]", "Learn by predicting: a path of short lessons (docs/tutorial.md), each on a\nbuilt-in recording. A lesson sets the scene, stops the run before a moment and\nasks what the screen will show; the run goes on to the moment, and the lesson\nsays right or wrong with the run's own figure and why. A wrong answer brings a\nsecond question. Progress is kept in the user's configuration directory, so\n'reactorviz learn' resumes where it stopped; NAME starts at that lesson.")
	list := f.Bool("list", false, "list the lessons and the concepts each teaches")
	headless := f.Bool("headless", false, "no TUI and no progress kept: read answers from standard input, print\nthe questions, the figures and the verdicts (NAME alone, or the whole path)")
	summary := f.Bool("summary", false, "print each concept with the learner's result, and stop")
	reset := f.Bool("reset", false, "forget the progress and start the path again")
	pos, err := f.parse(e, args, 0, 1)
	if err != nil {
		return err
	}
	// Each of these does one thing: a second one named with it would be
	// silently dropped (--headless --summary walked the path).
	switch {
	case *list && (*headless || *summary || *reset):
		return usageErr("learn: --list prints the lessons and does nothing else")
	case *headless && (*summary || *reset):
		return usageErr("learn: --headless keeps no progress, which --summary prints and --reset forgets")
	}
	if *list {
		printLessons(e.stdout)
		return nil
	}
	start := -1
	if len(pos) == 1 {
		start = learn.Index(pos[0])
		if start < 0 {
			return usageErr("learn: no lesson %q; the lessons are %s", pos[0], strings.Join(learn.Names(), ", "))
		}
	}
	in := bufio.NewReader(stdin)
	if *headless {
		first, end := 0, len(learn.Path)
		if start >= 0 {
			first, end = start, start+1
		}
		for i := first; i < end; i++ {
			l := learn.Path[i]
			m, err := openMoments(l.Scenario)
			if err != nil {
				return runtimeErr(err)
			}
			if _, err := learn.Walk(l, i+1, len(learn.Path), m, in, e.stdout); err != nil {
				if errors.Is(err, learn.ErrNoAnswer) {
					return usageErr("learn: %v", err)
				}
				return runtimeErr(err)
			}
			fmt.Fprintln(e.stdout)
		}
		return nil
	}
	path, err := learn.ProgressFile()
	if err != nil {
		return runtimeErr(fmt.Errorf("learn: no configuration directory to keep progress in: %v", err))
	}
	progress, err := learn.LoadProgress(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "reactorviz: warning: %v\n", err)
	}
	if *reset {
		progress = learn.NewProgress()
		if err := progress.Save(path); err != nil {
			return runtimeErr(err)
		}
	}
	if *summary {
		printSummary(e.stdout, progress)
		return nil
	}
	save := func() error { return progress.Save(path) }
	if start < 0 {
		next, ok := progress.Next()
		if !ok {
			fmt.Fprintln(e.stdout, "Every lesson is done (--reset starts again). Your results:")
			printSummary(e.stdout, progress)
			return nil
		}
		start = next
	}
	if e.stdoutTTY && learnTUI != nil {
		return learnTUI(start, progress, save)
	}
	for i := start; i < len(learn.Path); i++ {
		l := learn.Path[i]
		m, err := openMoments(l.Scenario)
		if err != nil {
			return runtimeErr(err)
		}
		o, err := learn.Walk(l, i+1, len(learn.Path), m, in, e.stdout)
		if errors.Is(err, learn.ErrNoAnswer) {
			fmt.Fprintf(e.stdout, "\nStopped; 'reactorviz learn' resumes at %s.\n", l.Name)
			return nil
		}
		if err != nil {
			return runtimeErr(err)
		}
		progress.Lessons[l.Name] = o
		if err := save(); err != nil {
			fmt.Fprintf(e.stderr, "reactorviz: warning: progress not kept: %v\n", err)
		}
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintln(e.stdout, "The path is done. Your results:")
	printSummary(e.stdout, progress)
	return nil
}

func printLessons(w io.Writer) {
	for i, l := range learn.Path {
		fmt.Fprintf(w, "%2d  %-11s %-48s %s  (recording: %s)\n", i+1, l.Name, l.Title, strings.Join(l.Concepts, " "), l.Scenario)
	}
}

func printSummary(w io.Writer, p *learn.Progress) {
	for _, c := range p.Summary() {
		fmt.Fprintf(w, "  %-4s %-28s %s\n", c.Concept, c.Result, strings.Join(c.Lessons, ", "))
	}
}

// openMoments reads a built-in scenario's recording for a lesson.
func openMoments(scenario string) (learn.Moments, error) {
	tr, err := openRecording(scenario)
	if err != nil {
		return nil, err
	}
	return tui.NewRecorded(tr), nil
}

// openRecording reads a built-in recording whole.
func openRecording(name string) (*jsonl.Trace, error) {
	rc, err := recordings.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return jsonl.ReadAll(rc, name)
}
