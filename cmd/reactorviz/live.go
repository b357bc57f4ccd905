package main

import (
	"fmt"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
)

// needLive refuses a command that runs the engine in a build without it
// (macOS, Windows, or Linux built with the nolive tag), once and plainly,
// pointing at what does work there.
func needLive(cmd string) error {
	if reactor.Live {
		return nil
	}
	return runtimeErr(fmt.Errorf("%s: live runs need Linux (the engine is epoll and eventfd); "+
		"this build replays the built-in recordings: reactorviz replay %s (see 'reactorviz list')", cmd, scenarios.Default))
}

// defaultCommand is reactorviz with no arguments: the tour, live where the
// engine runs, else its recording, in the TUI on a terminal and as a
// summary otherwise. On a terminal the tour opens paused at its start, as
// the tutorial begins: the first screen can be read before anything moves.
func defaultCommand(e *env) error {
	if !reactor.Live {
		return replay(e, scenarios.Default, e.stdoutTTY, false, uiFlags{})
	}
	if e.stdoutTTY {
		return cmdRun(e, []string{"--paused", scenarios.Default})
	}
	return cmdRun(e, []string{scenarios.Default, "--headless"})
}
