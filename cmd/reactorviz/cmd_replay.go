package main

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
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
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, usageErr("%s: %v", arg, err)
		}
		src.Reader = &gunzipCap{r: zr, left: maxGunzipBytes}
	}
	return src, nil
}

// recordingBanner says what a built-in recording is, and why it is shown
// when the live engine is not there.
func recordingBanner(ent recordings.Entry) string {
	b := "recording of " + ent.Scenario + " (" + ent.Model + ") made on the Linux engine"
	if !reactor.Live {
		b += "; live runs need Linux"
	}
	return b
}

// Limits on what a replay reads (docs/security.md). A gzipped trace may
// inflate a thousandfold: it is read up to maxGunzipBytes. The TUI replay
// holds every event in memory (about 80 bytes each, plus strings); it reads
// at most tuiMaxEvents events and tuiMaxStringBytes of string fields, which
// keeps it under 500 MB, and refuses a bigger trace saying that the
// headless replay, which streams, reads it. Variables so tests can lower
// them.
var (
	maxGunzipBytes    int64 = 1 << 30
	tuiMaxEvents            = 1_000_000
	tuiMaxStringBytes       = 64 << 20
)

// gunzipCap passes at most left bytes of a decompressed stream and fails
// past them: a gzip bomb is refused at the cap, not when memory or patience
// runs out.
type gunzipCap struct {
	r    io.Reader
	left int64
}

func (g *gunzipCap) Read(p []byte) (int, error) {
	if g.left <= 0 {
		var one [1]byte
		if n, err := g.r.Read(one[:]); n == 0 && err != nil {
			return 0, err // the stream ended exactly at the cap
		}
		limit := fmt.Sprintf("%d MiB", maxGunzipBytes>>20)
		if maxGunzipBytes%(1<<30) == 0 {
			limit = fmt.Sprintf("%d GiB", maxGunzipBytes>>30)
		}
		return 0, fmt.Errorf("decompresses to more than %s, the limit for a gzipped trace (gunzip it and replay the .jsonl)", limit)
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n, err := g.r.Read(p)
	g.left -= int64(n)
	return n, err
}

// readForTUI reads a whole trace for the TUI replay, with the headless
// replay's contract: a trace cut short is shown up to its last complete
// event (cut says where it stops); any other bad line, and a trace beyond
// the TUI's limits, is bad input (exit 2) before the screen opens.
func readForTUI(r io.Reader, name string) (tr *jsonl.Trace, cut error, err error) {
	rd, err := jsonl.NewReader(r, name)
	if err != nil {
		return nil, nil, &exitError{exitUsage, err}
	}
	tr = &jsonl.Trace{Header: rd.Header()}
	// Events go into fixed chunks and are copied once into a slice of the
	// exact size: growing one slice by append would leave its earlier
	// arrays, several times the trace, for the collector.
	const chunk = 1 << 16
	var chunks [][]trace.Event
	n, strs := 0, 0
	for {
		ev, err := rd.Next()
		if err != nil {
			tr.Header.Loops = rd.Loops()
			tr.End, _ = rd.End()
			switch {
			case errors.Is(err, io.EOF):
			case errors.Is(err, jsonl.ErrTruncated):
				cut = err
			default:
				return nil, nil, &exitError{exitUsage, err}
			}
			tr.Events = make([]trace.Event, 0, n)
			for _, c := range chunks {
				tr.Events = append(tr.Events, c...)
			}
			return tr, cut, nil
		}
		strs += len(ev.Str)
		if n == tuiMaxEvents || strs > tuiMaxStringBytes {
			return nil, nil, usageErr("%s:%d: the trace is larger than the TUI replay holds in memory (%d events, %d MiB of strings); 'reactorviz replay --headless %s' reads a trace of any size",
				name, rd.Line(), tuiMaxEvents, tuiMaxStringBytes>>20, name)
		}
		if n%chunk == 0 {
			chunks = append(chunks, make([]trace.Event, 0, chunk))
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], ev)
		n++
	}
}
