package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

//go:embed *.yaml
var builtinFS embed.FS

// workloadFS holds the compare workloads: scenarios built so that the three
// Reactor models differ, each with compare clauses that say how.
//
//go:embed compare/*.yaml
var workloadFS embed.FS

// workloadOrder is the order `reactorviz list` shows the compare workloads
// in.
var workloadOrder = []string{"cpu-bound", "accept-storm", "blocking-handler"}

// Default is the scenario reactorviz runs with no arguments.
const Default = "tour"

// builtinOrder is the order of `reactorviz list`: the tour, the three
// models, then the mechanisms roughly in the order a loop iteration meets
// them. TestBuiltinOrder checks it against the embedded files.
var builtinOrder = []string{
	"tour",
	"single-reactor", "multi-reactor", "master-slave",
	"boss-idle", "chooser", "lazy-start",
	"spurious-wakeup", "jdk-epoll-bug",
	"wakeup-coalescing", "io-ratio", "task-deadline-64", "scheduled-timers",
	"blocking-handler", "panics", "edge-vs-level", "client-bootstrap", "graceful-shutdown",
	"http-plaintext", "resp-ping",
	"netty-versions", "task-quantum", "auto-scaling", "io-uring",
}

// Info describes a built-in scenario for `reactorviz list`.
type Info struct {
	Name     string
	Model    Model
	Summary  string
	Concepts []string
}

// ErrUnknownScenario is returned (wrapped) by Load for a name that is
// neither a built-in nor a file.
var ErrUnknownScenario = errors.New("unknown scenario")

// Builtin lists the built-in scenarios in presentation order. A built-in
// that fails to parse is left out; TestBuiltinsParse keeps that from
// happening.
func Builtin() []Info {
	var out []Info
	for _, name := range builtinOrder {
		s, err := loadBuiltin(name)
		if err != nil {
			continue
		}
		out = append(out, Info{Name: s.Name, Model: s.Model, Summary: s.Summary, Concepts: append([]string(nil), s.Concepts...)})
	}
	return out
}

// Workloads lists the compare workloads in presentation order.
func Workloads() []Info {
	var out []Info
	for _, name := range workloadOrder {
		s, err := LoadWorkload(name)
		if err != nil {
			continue
		}
		out = append(out, Info{Name: s.Name, Model: s.Model, Summary: s.Summary, Concepts: append([]string(nil), s.Concepts...)})
	}
	return out
}

// WorkloadSource returns a compare workload's YAML.
func WorkloadSource(name string) ([]byte, bool) {
	if strings.ContainsAny(name, `/\`) {
		return nil, false
	}
	data, err := workloadFS.ReadFile("compare/" + name + ".yaml")
	if err != nil {
		return nil, false
	}
	return data, true
}

// LoadWorkload returns the compare workload of that name. Compare looks
// its argument up here first, so `compare blocking-handler` runs the
// workload built for three models while `run blocking-handler` keeps the
// scenario of that name.
func LoadWorkload(name string) (*Scenario, error) {
	data, ok := WorkloadSource(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownScenario, name)
	}
	return parseWith(workloadFile+name, data, nil, runtime.NumCPU())
}

// workloadFile starts the File of a scenario LoadWorkload returns.
const workloadFile = "builtin:compare/"

// IsWorkload reports whether s is a compare workload (LoadWorkload), which
// may share its name with a built-in scenario that runs something else.
func (s *Scenario) IsWorkload() bool { return strings.HasPrefix(s.File, workloadFile) }

// BuiltinSource returns a built-in scenario's YAML, for `reactorviz show`.
func BuiltinSource(name string) ([]byte, bool) {
	if strings.ContainsAny(name, `/\`) {
		return nil, false
	}
	data, err := builtinFS.ReadFile(name + ".yaml")
	if err != nil {
		return nil, false
	}
	return data, true
}

// LoadBuiltin returns the built-in scenario or compare workload of that
// name, and never reads a file: for a name that comes from a file (a trace
// header), which must not make reactorviz open a path it chose.
func LoadBuiltin(name string) (*Scenario, error) {
	if _, ok := BuiltinSource(name); ok {
		return loadBuiltin(name)
	}
	if _, ok := WorkloadSource(name); ok {
		return LoadWorkload(name)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownScenario, name)
}

func loadBuiltin(name string) (*Scenario, error) {
	data, ok := BuiltinSource(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownScenario, name)
	}
	return parseWith("builtin:"+name, data, nil, runtime.NumCPU())
}

// Load returns the built-in scenario of that name or, when the argument
// contains a path separator or ends in .yaml or .yml, or names no built-in,
// the scenario in that file. A built-in wins over a file of the same bare
// name in the working directory; write ./tour to mean the file.
func Load(nameOrPath string) (*Scenario, error) {
	looksLikePath := strings.ContainsAny(nameOrPath, `/\`) ||
		strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml")
	if !looksLikePath {
		if _, ok := BuiltinSource(nameOrPath); ok {
			return loadBuiltin(nameOrPath)
		}
		if _, ok := WorkloadSource(nameOrPath); ok {
			return LoadWorkload(nameOrPath)
		}
	}
	data, err := readLimited(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !looksLikePath {
			return nil, fmt.Errorf("%w %q: not a built-in (see reactorviz list) and no such file", ErrUnknownScenario, nameOrPath)
		}
		return nil, err
	}
	return Parse(nameOrPath, data)
}

// readLimited reads a file but never more than one byte past MaxFileSize,
// so a huge or endless file (a device, a FIFO) is refused without reading
// it into memory; Parse then reports the size.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a scenario file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, &ErrorList{Problems: []Problem{{File: path, Msg: tooLarge}}}
	}
	return data, nil
}
