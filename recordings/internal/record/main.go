// Command record makes the built-in recordings: it runs every built-in
// scenario, and the compare workload under each model, on the live engine
// with a trace, and writes each trace gzipped next to the recordings
// package with a manifest. `go generate ./recordings` runs it, on Linux.
//
// Usage: record [-dir DIR] [-only NAME,...]
package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

func main() {
	dir := flag.String("dir", ".", "the recordings package's directory")
	only := flag.String("only", "", "re-record only these names, comma-separated (the manifest keeps the others)")
	flag.Parse()
	if err := record(*dir, *only); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func record(dir, only string) error {
	if !reactor.Live {
		return errors.New("recordings are made on the live engine: " + reactor.ErrNoLive.Error())
	}
	old, _ := readManifest(filepath.Join(dir, recordings.ManifestName))
	var names []string
	if only != "" {
		names = strings.Split(only, ",")
	}
	var entries []recordings.Entry
	for _, p := range recordings.Plans(compare.Models) {
		if names != nil && !slices.Contains(names, p.Name) {
			if e, ok := find(old, p.Name); ok {
				entries = append(entries, e)
			}
			continue
		}
		e, err := recordOne(dir, p)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		entries = append(entries, e)
	}
	return writeManifest(filepath.Join(dir, recordings.ManifestName), entries)
}

// recordOne runs one plan with a JSONL trace and compresses the trace.
func recordOne(dir string, p recordings.Plan) (recordings.Entry, error) {
	src, ok := p.Source()
	if !ok {
		return recordings.Entry{}, fmt.Errorf("no built-in scenario or workload %q", p.Scenario)
	}
	sc, err := p.Load()
	if err != nil {
		return recordings.Entry{}, err
	}
	if p.Model != "" && p.Model != string(sc.Model) {
		if sc, err = compare.ForModel(sc, p.Model); err != nil {
			return recordings.Entry{}, err
		}
	}
	if p.Duration != 0 {
		if err := sc.Set("duration", p.Duration.String()); err != nil {
			return recordings.Entry{}, err
		}
	}
	tmp, err := os.CreateTemp("", "recording-*.jsonl")
	if err != nil {
		return recordings.Entry{}, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	fmt.Fprintf(os.Stderr, "record %s (%s, %s, %v)\n", p.Name, sc.Name, sc.Model, sc.Duration)
	r, err := sim.New(sc, sim.Options{TracePath: tmp.Name()})
	if err != nil {
		return recordings.Entry{}, err
	}
	s, err := r.Wait()
	if err != nil {
		return recordings.Entry{}, err
	}
	if s.Failed() > 0 {
		return recordings.Entry{}, fmt.Errorf("%d expectation(s) failed: a recording shows a run that did what the scenario says", s.Failed())
	}
	if s.Events.Dropped > 0 {
		return recordings.Entry{}, fmt.Errorf("the run dropped %d events: its replay would show short counters", s.Events.Dropped)
	}
	if err := sameCounters(s, tmp.Name()); err != nil {
		// Worth knowing, not a reason to refuse the recording: the fold
		// of events into counters is the replay's, and improves with it.
		fmt.Fprintf(os.Stderr, "  warning: %v\n", err)
	}
	n, size, err := compress(tmp.Name(), filepath.Join(dir, recordings.FileName(p.Name)))
	if err != nil {
		return recordings.Entry{}, err
	}
	fmt.Fprintf(os.Stderr, "  %d events, %d bytes gzipped\n", n, size)
	return recordings.Entry{Name: p.Name, Scenario: p.Scenario, Model: string(sc.Model), Duration: sc.Duration,
		Source: recordings.Fingerprint(src), Events: n}, nil
}

// compress checks that the trace reads back whole and writes it gzipped.
// The gzip header carries no name or time, so that the same trace always
// compresses to the same bytes.
func compress(from, to string) (events uint64, size int64, err error) {
	in, err := os.Open(from)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	tr, err := jsonl.ReadAll(in, from)
	if err != nil {
		return 0, 0, err
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return 0, 0, err
	}
	out, err := os.Create(to)
	if err != nil {
		return 0, 0, err
	}
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	_, err = io.Copy(zw, bufio.NewReader(in))
	err = errors.Join(err, zw.Close())
	if st, serr := out.Stat(); serr == nil {
		size = st.Size()
	}
	err = errors.Join(err, out.Close())
	return uint64(len(tr.Events)), size, err
}

func readManifest(path string) ([]recordings.Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return recordings.ParseManifest(f)
}

func find(es []recordings.Entry, name string) (recordings.Entry, bool) {
	for _, e := range es {
		if e.Name == name {
			return e, true
		}
	}
	return recordings.Entry{}, false
}

func writeManifest(path string, es []recordings.Entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(recordings.WriteManifest(f, es), f.Close())
}

// sameCounters checks that the trace's events rebuild the per-loop
// counters the live run read from its loops (its samples carry them too,
// but a fold of the events that fell short would show in the replay's
// frames between two samples).
func sameCounters(live *sim.Summary, path string) error {
	_, tally, err := sim.Replay(path)
	if err != nil {
		return err
	}
	if len(tally.Counters) < len(live.Loops) {
		return fmt.Errorf("the trace rebuilds %d loops, the run had %d", len(tally.Counters), len(live.Loops))
	}
	for i, l := range live.Loops {
		// selectCnt and the queue depth are values of the moment, not
		// totals; a trace has no reason to end on them.
		l.SelectCnt, l.QueueDepth = 0, 0
		r := tally.Counters[i].Stats
		r.SelectCnt, r.QueueDepth = 0, 0
		// The events cannot rebuild the engine-only counters (an EAGAIN
		// read has no event): compare what they can.
		l.Stats = l.Stats.Replayable()
		if !reflect.DeepEqual(r, l.Stats) {
			return fmt.Errorf("%s: the trace rebuilds other counters than the run's:\n  run:   %+v\n  trace: %+v", l.Name, l.Stats, r)
		}
	}
	return nil
}
