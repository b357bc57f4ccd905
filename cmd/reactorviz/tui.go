package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui"
)

// The terminal UI behind run, compare, replay and serve when stdout is a
// terminal and no text output was asked for.
func init() {
	liveTUI = func(sc *scenarios.Scenario, opts sim.Options, ui uiFlags) error {
		return uiErr(tui.Live(sc, opts, ui.options()))
	}
	compareTUI = func(sc *scenarios.Scenario, axis string, variants []string) error {
		switch axis {
		case "transport":
			return uiErr(tui.CompareTransports(sc, variants, tui.Options{}))
		case "flavour":
			return uiErr(tui.CompareFlavours(sc, variants, tui.Options{}))
		}
		return uiErr(tui.Compare(sc, variants, tui.Options{Recorded: quietRecordings(sc.Name)}))
	}
	replayTUI = func(tr *jsonl.Trace, cut error, name, banner string, ui uiFlags) error {
		return uiErr(tui.RunReplayTrace(tr, cut, name, banner, ui.options()))
	}
	serveTUI = func(o sim.ServeOptions, d time.Duration, ui uiFlags, out io.Writer) error {
		sc, opts, err := serveRun(o, d)
		if err != nil {
			return err
		}
		to := ui.options()
		to.Serve = true
		to.Final = func(s tui.Session) {
			if sum := s.Summary(); sum != nil {
				fmt.Fprint(out, sum.Text())
			}
		}
		return uiErr(tui.Live(sc, opts, to))
	}
}

func (u uiFlags) options() tui.Options { return tui.Options{Mouse: u.mouse, Paused: u.paused} }

// uiErr marks a UI failure (no terminal, a bind error) as a runtime error.
func uiErr(err error) error {
	if err == nil {
		return nil
	}
	return runtimeErr(err)
}

// quietRecordings opens the built-in recording of a model's run of the
// workload, made on a quiet machine, for the compare screen to offer when
// this machine was too busy; each is read once.
func quietRecordings(workload string) func(model string) (*jsonl.Trace, bool) {
	var mu sync.Mutex
	cache := map[string]*jsonl.Trace{}
	return func(model string) (*jsonl.Trace, bool) {
		mu.Lock()
		defer mu.Unlock()
		if tr, ok := cache[model]; ok {
			return tr, tr != nil
		}
		cache[model] = nil
		name := workload + "-" + model
		if workload == recordings.CompareWorkload {
			name = recordings.ComparePrefix + model
		}
		ent, ok := recordings.Lookup(name)
		if !ok || ent.Scenario != workload || ent.Model != model {
			return nil, false
		}
		tr, err := openRecording(name)
		if err != nil {
			return nil, false
		}
		cache[model] = tr
		return tr, true
	}
}
