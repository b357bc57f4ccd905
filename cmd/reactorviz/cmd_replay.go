package main

import (
	"fmt"
	"os"

	"github.com/reactorviz/reactorviz/sim"
)

func cmdReplay(e *env, args []string) error {
	f := newFlags("replay", "FILE.jsonl", "Open a recorded trace: step through it in the TUI, or print the per-loop\ncounters it reproduces with --headless.")
	headless := f.Bool("headless", false, "no TUI: print the summary rebuilt from the trace")
	asJSON := f.Bool("json", false, "print that summary as JSON (implies --headless)")
	var ui uiFlags
	ui.register(f)
	pos, err := f.parse(e, args, 1, 1)
	if err != nil {
		return err
	}
	if _, err := os.Stat(pos[0]); err != nil {
		return usageErr("%v", err)
	}
	if !*headless && !*asJSON && e.stdoutTTY && replayTUI != nil {
		return replayTUI(pos[0], ui)
	}
	s, _, err := sim.Replay(pos[0])
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if *asJSON {
		e.stdout.Write(s.JSON())
	} else {
		fmt.Fprint(e.stdout, s.Text())
	}
	if s.Failed() > 0 {
		return &exitError{exitExpect, fmt.Errorf("%d expectation(s) failed", s.Failed())}
	}
	return nil
}
