// Package recordings holds a trace of every built-in scenario, and of the
// compare workload under each model, recorded on the Linux engine and
// embedded gzipped, so that `reactorviz replay NAME` shows them anywhere:
// on macOS and Windows, where the live engine does not run, and on Linux
// without waiting for a run.
//
// The traces are made by `go generate ./recordings` (on Linux). A trace is
// current while its header's engine version equals reactor.EngineVersion
// and the scenario it ran is the built-in one of today; the manifest keeps
// a fingerprint of that scenario's YAML. TestCurrent checks both, so CI
// tells a stale recording without re-recording anything.
package recordings

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/scenarios"
	"go.yaml.in/yaml/v3"
)

//go:generate go run ./internal/record -dir .

// data holds the gzipped traces and manifest.txt.
//
//go:embed data
var files embed.FS

// CompareWorkload is the workload `reactorviz compare` runs by default; it
// is recorded under every model as "compare-MODEL".
const CompareWorkload = "master-slave"

// ComparePrefix starts the name of a compare workload's recording.
const ComparePrefix = "compare-"

// Plan is one recording to make: a built-in scenario, run under a model.
type Plan struct {
	Name     string // what `reactorviz replay` takes
	Scenario string // the built-in scenario, or compare workload when Workload
	Workload bool
	Model    string        // empty: the scenario's own model
	Duration time.Duration // empty: the scenario's own duration
}

// caps shortens the recordings of runs that stream events for their whole
// duration: a second of steady echo traffic shows what three do, at a third
// of the size. Every capped run still meets its scenario's expectations
// (the recorder refuses one that does not). jdk-epoll-bug spins from 500ms
// on at a million events a second; 20ms of it shows the spin and the
// rebuilds. The tour and the task-driven scenarios run in full.
var caps = map[string]time.Duration{
	"jdk-epoll-bug":  520 * time.Millisecond,
	"single-reactor": time.Second, "multi-reactor": time.Second, "master-slave": time.Second,
	"http-plaintext": time.Second, "resp-ping": time.Second, "client-bootstrap": time.Second,
	"edge-vs-level":  1500 * time.Millisecond,
	"compare-single": time.Second, "compare-multi": time.Second, "compare-master-slave": time.Second,
	// The compare workloads: long enough for each to show what sets the
	// models apart (blocking-handler's handler starts blocking at 1s).
	"cpu-bound": time.Second, "accept-storm": 1500 * time.Millisecond, "blocking-handler-workload": 2 * time.Second,
}

// Plans lists the recordings there should be: every built-in scenario, in
// `reactorviz list` order, then the compare workload under each model.
func Plans(models []string) []Plan {
	var out []Plan
	for _, s := range scenarios.Builtin() {
		out = append(out, Plan{Name: s.Name, Scenario: s.Name, Duration: caps[s.Name]})
	}
	for _, m := range models {
		out = append(out, Plan{Name: ComparePrefix + m, Scenario: CompareWorkload, Model: m, Duration: caps[ComparePrefix+m]})
	}
	for _, w := range scenarios.Workloads() {
		capKey := w.Name
		if _, ok := scenarios.BuiltinSource(w.Name); ok {
			capKey += "-workload" // blocking-handler is a scenario and a workload
		}
		for _, m := range models {
			out = append(out, Plan{Name: w.Name + "-" + m, Scenario: w.Name, Workload: true, Model: m, Duration: caps[capKey]})
		}
	}
	return out
}

// Load parses the scenario a plan runs, before its model and duration are
// applied.
func (p Plan) Load() (*scenarios.Scenario, error) {
	if p.Workload {
		return scenarios.LoadWorkload(p.Scenario)
	}
	return scenarios.Load(p.Scenario)
}

// Source returns the YAML a plan runs: a built-in scenario's, or a compare
// workload's.
func (p Plan) Source() ([]byte, bool) {
	if p.Workload {
		return scenarios.WorkloadSource(p.Scenario)
	}
	return scenarios.BuiltinSource(p.Scenario)
}

// Entry is a line of the manifest: one embedded recording.
type Entry struct {
	Name     string
	Scenario string
	Model    string        // as recorded
	Duration time.Duration // the run's duration, a cap included
	Source   string        // fingerprint of the scenario's YAML when recorded
	Events   uint64
}

// Banner says what the recording is, as a replay's header shows it.
func (e Entry) Banner() string {
	return "recording of " + e.Scenario + " (" + e.Model + ") made on the Linux engine"
}

// FileName is the embedded file of a recording.
func FileName(name string) string { return "data/" + name + ".jsonl.gz" }

// textOnly are the top-level fields that change what a scenario says, not
// what it runs (compare clauses judge finished runs): editing them leaves a
// recording current.
var textOnly = map[string]bool{"summary": true, "notes": true, "watch": true, "concepts": true, "compare": true, "predict": true}

// Fingerprint identifies what a scenario's YAML runs: a recording made from
// other YAML may show another run. Comments and the text-only fields are
// left out, so rewording a caption does not call for a new recording.
func Fingerprint(src []byte) string {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		top := doc.Content[0]
		var kept []*yaml.Node
		for i := 0; i+1 < len(top.Content); i += 2 {
			if !textOnly[top.Content[i].Value] {
				kept = append(kept, top.Content[i], top.Content[i+1])
			}
		}
		top.Content = kept
		dropComments(&doc)
		if out, err := yaml.Marshal(&doc); err == nil {
			src = out
		}
	}
	sum := sha256.Sum256(src)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

func dropComments(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		dropComments(c)
	}
}

// List returns the manifest: the recordings embedded, in order.
func List() []Entry {
	data, err := files.ReadFile(ManifestName)
	if err != nil {
		return nil
	}
	out, _ := ParseManifest(strings.NewReader(string(data)))
	return out
}

// Lookup returns the recording of that name.
func Lookup(name string) (Entry, bool) {
	for _, e := range List() {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Open returns a recording's trace, decompressed. The caller closes it.
func Open(name string) (io.ReadCloser, error) {
	if _, ok := Lookup(name); !ok {
		return nil, fmt.Errorf("no built-in recording %q", name)
	}
	f, err := files.Open(FileName(name))
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("recording %s: %w", name, err)
	}
	return readCloser{zr, func() error { zr.Close(); return f.Close() }}, nil
}

// CompressedSize is what a recording adds to the binary.
func CompressedSize(name string) (int64, bool) {
	if _, ok := Lookup(name); !ok {
		return 0, false
	}
	st, err := fs.Stat(files, FileName(name))
	if err != nil {
		return 0, false
	}
	return st.Size(), true
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// ManifestName is the manifest's file.
const ManifestName = "data/manifest.txt"

// manifestHeader is the manifest's first line.
const manifestHeader = "# name scenario model duration source events"

// ParseManifest reads a manifest: a comment line, then one line per
// recording, fields separated by spaces.
func ParseManifest(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var e Entry
		var d string
		if _, err := fmt.Sscan(line, &e.Name, &e.Scenario, &e.Model, &d, &e.Source, &e.Events); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", ManifestName, n, err)
		}
		var err error
		if e.Duration, err = time.ParseDuration(d); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", ManifestName, n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// WriteManifest writes entries as ParseManifest reads them.
func WriteManifest(w io.Writer, entries []Entry) error {
	if _, err := fmt.Fprintln(w, manifestHeader); err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := fmt.Fprintf(w, "%s %s %s %v %s %d\n", e.Name, e.Scenario, e.Model, e.Duration, e.Source, e.Events); err != nil {
			return err
		}
	}
	return nil
}

// OpenCompressed returns a recording's trace as embedded, gzipped: what a
// web page fetches and unzips itself. The caller closes it.
func OpenCompressed(name string) (fs.File, error) {
	if _, ok := Lookup(name); !ok {
		return nil, fmt.Errorf("no built-in recording %q", name)
	}
	return files.Open(FileName(name))
}
