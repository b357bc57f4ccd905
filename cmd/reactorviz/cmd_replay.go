package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui"
)

func cmdReplay(e *env, args []string) error {
	f := newFlags("replay", "NAME|FILE.jsonl", "Open a recorded trace: step through it in the TUI, or print the per-loop\ncounters it reproduces with --headless. NAME is a built-in recording: every\nbuilt-in scenario (see 'reactorviz list'), and compare-single, compare-multi,\ncompare-master-slave, the compare workload under each model, and\ncpu-bound-single, accept-storm-multi, ... for each compare workload and model.\nA trace cut short (the run was killed) is replayed up to its last complete event.")
	headless := f.Bool("headless", false, "no TUI: print the summary rebuilt from the trace")
	asJSON := f.Bool("json", false, "print that summary as JSON (implies --headless)")
	var ui uiFlags
	ui.register(f)
	pos, err := f.parse(e, args, 1, 1)
	if err != nil {
		return err
	}
	return replay(e, pos[0], !*headless && !*asJSON && e.stdoutTTY, *asJSON, ui)
}

// replay opens a built-in recording or a trace file, in the TUI or as a
// summary.
func replay(e *env, arg string, tui, asJSON bool, ui uiFlags) error {
	src, err := openTrace(arg)
	if err != nil {
		return err
	}
	defer src.Close()
	if tui && replayTUI != nil {
		tr, cut, err := readForTUI(src, src.name)
		if err != nil {
			return err
		}
		return replayTUI(tr, cut, src.name, src.banner, ui)
	}
	if src.banner != "" {
		fmt.Fprintf(e.stderr, "reactorviz: %s: %s\n", src.name, src.banner)
	}
	s, _, err := sim.ReplayFrom(src, src.name)
	if errors.Is(err, jsonl.ErrTruncated) && s != nil {
		// A killed run leaves what it wrote: what led up to the end is
		// what the learner wants to see.
		fmt.Fprintf(e.stderr, "reactorviz: warning: %v; replaying the events before it\n", err)
	} else if err != nil {
		return &exitError{exitUsage, err}
	}
	if asJSON {
		e.stdout.Write(s.JSON())
	} else {
		fmt.Fprint(e.stdout, s.Text())
	}
	if s.Failed() > 0 {
		return &exitError{exitExpect, fmt.Errorf("%d expectation(s) failed", s.Failed())}
	}
	return nil
}

// traceSource is an opened trace: a file, gunzipped if its name ends in
// .gz, or a built-in recording.
type traceSource struct {
	io.Reader
	name   string
	banner string // set for a built-in recording
	close  func() error
}

func (t *traceSource) Close() error { return t.close() }

// openTrace opens arg as Load opens a scenario: a bare name that is a
// built-in recording is that recording, anything else is a file; write
// ./tour to mean a file named tour.
func openTrace(arg string) (*traceSource, error) {
	looksLikePath := strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") || strings.HasSuffix(arg, ".gz")
	if !looksLikePath {
		if ent, ok := recordings.Lookup(arg); ok {
			rc, err := recordings.Open(arg)
			if err != nil {
				return nil, runtimeErr(err)
			}
			return &traceSource{Reader: rc, name: arg, banner: recordingBanner(ent), close: rc.Close}, nil
		}
	}
	f, err := os.Open(arg)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !looksLikePath {
			return nil, usageErr("%s: no such file, and not a built-in recording (see 'reactorviz list')", arg)
		}
		return nil, usageErr("%v", err)
	}
	src := &traceSource{Reader: f, name: arg, close: f.Close}
	if strings.HasSuffix(arg, ".gz") {
		zr, err := tui.Gunzip(f)
		if err != nil {
			f.Close()
			return nil, usageErr("%s: %v", arg, err)
		}
		src.Reader = zr
	}
	return src, nil
}

// recordingBanner says what a built-in recording is, and why it is shown
// when the live engine is not there.
func recordingBanner(ent recordings.Entry) string {
	b := ent.Banner()
	if !reactor.Live {
		b += "; live runs need Linux"
	}
	return b
}

// readForTUI reads a whole trace for the TUI replay, within the replay's
// limits (tui.ReadReplay), with the headless replay's contract: a bad
// line, and a trace beyond the limits, is bad input (exit 2) before the
// screen opens.
func readForTUI(r io.Reader, name string) (tr *jsonl.Trace, cut error, err error) {
	tr, cut, err = tui.ReadReplay(r, name)
	if err != nil {
		return nil, nil, &exitError{exitUsage, err}
	}
	return tr, cut, nil
}
