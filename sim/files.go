package sim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/tracefile/chrome"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// traceFlushInterval bounds what a killed run loses of its JSONL trace:
// the writer writes what it holds at least this often (README, "a trace
// cut short replays up to its last complete event").
const traceFlushInterval = 200 * time.Millisecond

// traceStreamFlush is how late a streamed trace (Options.TraceTo) may
// deliver an event: a page drawing the run live 30 times a second wants
// each frame's events.
const traceStreamFlush = 20 * time.Millisecond

// traceFiles are the run's trace recordings, if any were asked for.
type traceFiles struct {
	closers []func() error
}

// attachSinks connects the caller's sinks and the trace files. Any sink
// turns instrumentation on; with none the engine emits nothing.
func (r *Run) attachSinks() error {
	r.files = &traceFiles{}
	for _, s := range r.opts.Sinks {
		r.coll.AddSink(s)
	}
	if p := r.opts.TracePath; p != "" {
		err := r.files.open(p, func(file *os.File) io.Closer { return r.jsonlWriter(file, traceFlushInterval) })
		if err != nil {
			return err
		}
	}
	if w := r.opts.TraceTo; w != nil {
		jw := r.jsonlWriter(w, traceStreamFlush)
		r.files.closers = append(r.files.closers, jw.Close)
	}
	if p := r.opts.ChromePath; p != "" {
		err := r.files.open(p, func(file *os.File) io.Closer {
			x := chrome.New(file, chrome.Options{Process: string(r.sc.Model), Loops: r.coll})
			r.coll.AddSink(x)
			return x
		})
		if err != nil {
			// Start gives up without reaching finish, which is what
			// closes the files, so close the JSONL file opened above now.
			// The open error is the one to report.
			_ = r.files.close()
			return err
		}
	}
	return nil
}

func (f *traceFiles) close() error {
	if f == nil {
		return nil
	}
	var err error
	for _, cl := range f.closers {
		err = errors.Join(err, cl())
	}
	return err
}

// open creates the file at path and the sink that writes it, which
// closes before the file.
func (f *traceFiles) open(path string, sink func(*os.File) io.Closer) error {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	w := sink(file)
	f.closers = append(f.closers, func() error {
		return errors.Join(w.Close(), file.Close())
	})
	return nil
}

// jsonlWriter adds a JSONL writer onto out to the run's sinks.
func (r *Run) jsonlWriter(out io.Writer, flush time.Duration) *jsonl.Writer {
	cfg := fmt.Sprintf("io_ratio=%d rebuild_threshold=%d selector=%s trigger=%s",
		r.sc.Loop.IORatio, r.RebuildThreshold(), r.sc.Loop.Selector, r.sc.Loop.Trigger)
	if n := r.sc.Netty; n != "" && n != scenarios.Netty4143 {
		cfg += " netty=" + string(n) // the default design goes unsaid, as in older traces
	}
	if r.sc.Server.ReusePort {
		cfg += " reuseport=true" // a replay's captions say what the run did
	}
	if r.sc.IsWorkload() {
		// blocking-handler is a workload and a scenario: a replay checks
		// the workload's expectations, not the scenario's.
		cfg += " workload=true"
	}
	w := jsonl.NewWriter(out, jsonl.Header{Scenario: r.sc.Name, Model: string(r.sc.Model),
		Started: r.coll.Clock().Epoch(), Config: cfg, Engine: reactor.EngineVersion}, jsonl.Options{Source: r.coll, FlushInterval: flush})
	r.coll.AddSink(w)
	return w
}
