package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/reactorviz/reactorviz/internal/safetext"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// runFlags are the flags run and compare share.
type runFlags struct {
	headless bool
	json     bool
	duration time.Duration
	sets     setFlags
}

// uiFlags are the flags of the commands whose TUI has loop rows to click:
// run, replay and serve.
type uiFlags struct {
	mouse  bool
	paused bool // run only: open the run paused at its start
}

func (u *uiFlags) register(f *flags) {
	f.BoolVar(&u.mouse, "mouse", false, "TUI: click a loop row to focus it (the terminal's own text selection then needs Shift)")
}

func (r *runFlags) register(f *flags) {
	f.BoolVar(&r.headless, "headless", false, "no TUI: run, then print a summary")
	f.BoolVar(&r.json, "json", false, "print the summary as one JSON object on stdout (implies --headless)")
	f.DurationVar(&r.duration, "duration", 0, "override the scenario's duration (e.g. 5s)")
	f.Var(&r.sets, "set", "override a scenario field by its dotted path, e.g. --set loop.io_ratio=100 (repeatable)")
}

// tui reports whether the TUI should run: a terminal on stdout and no
// request for text.
func (r *runFlags) tui(e *env) bool { return !r.headless && !r.json && e.stdoutTTY }

func cmdRun(e *env, args []string) error {
	f := newFlags("run", "NAME|FILE", "Run a built-in scenario (see 'reactorviz list') or a scenario file.")
	var rf runFlags
	rf.register(f)
	var ui uiFlags
	ui.register(f)
	f.BoolVar(&ui.paused, "paused", false, "TUI: open the run paused at its start (space runs it, n steps the focused loop)")
	tracePath := f.String("trace", "", "record every event to a JSONL trace `file` (replay reads it)")
	chromePath := f.String("chrome", "", "write a Chrome/Perfetto trace `file` (open it in ui.perfetto.dev)")
	var wf webFlags
	wf.register(f, 8080)
	pos, err := f.parse(e, args, 1, 1)
	if err != nil {
		return err
	}
	if sameFile(*tracePath, *chromePath) {
		return usageErr("--trace %s and --chrome %s are the same file: the two writers would interleave into a file that is neither", *tracePath, *chromePath)
	}
	sc, err := loadScenario(pos[0], rf.sets, rf.duration)
	if err != nil {
		return err
	}
	printWarnings(e, sc)
	if err := needLive("run"); err != nil {
		return err
	}
	opts := sim.Options{TracePath: *tracePath, ChromePath: *chromePath}
	if wf.on {
		if rf.headless || rf.json {
			return usageErr("run: --web shows the run in the browser; --headless and --json print it here")
		}
		// The tour opens paused in the browser, as reactorviz alone
		// opens it on a terminal: its first lesson, the lazy start, is
		// gone once it runs.
		return liveInBrowser(e, wf, sc, opts, ui.paused || sc.Name == scenarios.Default, false)
	}
	if rf.tui(e) && liveTUI != nil {
		return liveTUI(sc, opts, ui)
	}
	return runHeadless(e, sc, opts, rf.json)
}

// sameFile reports whether two output paths name one file: equal once
// cleaned, or once their symbolic links are followed (a link to a file
// not yet written included), or, when both exist, the same inode.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	if ab, err := filepath.Abs(a); err == nil {
		if bb, err := filepath.Abs(b); err == nil && ab == bb {
			return true
		}
	}
	if resolvePath(a) == resolvePath(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// resolvePath is p absolute, with its directory's symbolic links followed
// and then its own, hop by hop, even when the last points to nothing yet:
// where a file written to p would land.
func resolvePath(p string) string {
	p, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	for range 40 { // as the kernel's bound on links followed (ELOOP)
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p
		}
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = filepath.Clean(t)
	}
	return p
}

// liveTUI, compareTUI and replayTUI open the terminal UI; they are set by
// tui.go.
var (
	liveTUI    func(sc *scenarios.Scenario, opts sim.Options, ui uiFlags) error
	compareTUI func(sc *scenarios.Scenario, axis string, variants []string) error
	replayTUI  func(tr *jsonl.Trace, cut error, name, banner string, ui uiFlags) error
)

func runHeadless(e *env, sc *scenarios.Scenario, opts sim.Options, asJSON bool) error {
	r, err := sim.New(sc, opts)
	if err != nil {
		return runtimeErr(err)
	}
	// SIGINT and SIGTERM stop the run as serve stops: gracefully, so the
	// summary is printed and the trace files get their end. Caught before
	// Start, so a signal at once is not lost to the default (kill) action.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := r.Start(); err != nil {
		return runtimeErr(err)
	}
	// One line first, on stderr so --json stays clean: a run prints its
	// summary only at the end, and the tour takes over 20 s.
	fmt.Fprintf(e.stderr, "running %s headless for %v ...\n", sc.Name, r.Duration())
	stop := progress(e, sc.Name, r)
	var interrupted os.Signal
	select {
	case <-r.Done():
	case interrupted = <-sig:
		r.Stop()
		<-r.Done()
	}
	stop()
	s := r.Summary()
	if err := r.Err(); err != nil {
		s.Error = err.Error()
	}
	if asJSON {
		e.stdout.Write(s.JSON())
	} else {
		fmt.Fprint(e.stdout, s.Text())
		if opts.TracePath != "" {
			fmt.Fprintf(e.stdout, "trace: %s (%d events", opts.TracePath, s.Events.Emitted)
			if s.Events.Dropped > 0 {
				fmt.Fprintf(e.stdout, ", %d dropped", s.Events.Dropped)
			}
			fmt.Fprintln(e.stdout, ")")
		}
	}
	switch {
	case r.Err() != nil:
		return &exitError{exitRuntime, r.Err()}
	case interrupted != nil:
		// The run did not complete: its expectations judged a part of it.
		return &exitError{exitRuntime, fmt.Errorf("stopped by %s after %v; the summary and trace files cover the run until then",
			signalName(interrupted), time.Duration(s.DurationNS).Round(time.Millisecond))}
	case s.Failed() > 0:
		return &exitError{exitExpect, fmt.Errorf("%d expectation(s) failed", s.Failed())}
	}
	return nil
}

// signalName is SIGINT or SIGTERM, as a user sends it.
func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// progress shows the run clock on stderr while a headless run goes, when
// stderr is a terminal; the returned func clears the line.
func progress(e *env, name string, r *sim.Run) func() {
	if !e.stderrTTY {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(e.rawStderr, "\r\033[K")
				return
			case <-t.C:
				c := r.Clients()
				fmt.Fprintf(e.rawStderr, "\r\033[K%s: %v / %v · %d requests · %d errors",
					safetext.Line(name), r.Elapsed().Round(100*time.Millisecond), r.Duration(), c.Requests, c.Errors)
			}
		}
	}()
	return func() { close(done); <-finished }
}

// loadScenario reads a built-in or a file and applies --duration and --set.
// Every problem is a usage error (exit 2), printed FILE:LINE:COL: message.
func loadScenario(nameOrPath string, sets []string, d time.Duration) (*scenarios.Scenario, error) {
	return configure(scenarios.Load, nameOrPath, sets, d)
}

// loadWorkload is loadScenario for compare: a compare workload's name
// (cpu-bound, accept-storm, blocking-handler) wins over a scenario's.
func loadWorkload(nameOrPath string, sets []string, d time.Duration) (*scenarios.Scenario, error) {
	load := scenarios.Load
	if _, ok := scenarios.WorkloadSource(nameOrPath); ok {
		load = scenarios.LoadWorkload
	}
	return configure(load, nameOrPath, sets, d)
}

func configure(load func(string) (*scenarios.Scenario, error), nameOrPath string, sets []string, d time.Duration) (*scenarios.Scenario, error) {
	sc, err := load(nameOrPath)
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	var errs []error
	if d != 0 {
		if err := setDuration(sc, d); err != nil {
			errs = append(errs, err)
		}
	}
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		if err := sc.Set(k, v); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, &exitError{exitUsage, errors.Join(errs...)}
	}
	return sc, nil
}

// setDuration applies --duration as the override "--set duration=D". Its
// problems name the flag the user typed, not a --set they never wrote.
func setDuration(sc *scenarios.Scenario, d time.Duration) error {
	err := sc.Set("duration", d.String())
	var el *scenarios.ErrorList
	if !errors.As(err, &el) {
		return err
	}
	set, flag := "--set duration="+d.String(), "--duration "+d.String()
	out := &scenarios.ErrorList{Problems: slices.Clone(el.Problems)}
	for i := range out.Problems {
		if out.Problems[i].File == set {
			out.Problems[i].File = flag
		}
	}
	return out
}

func cmdCompare(e *env, args []string) error {
	f := newFlags("compare", "[NAME|FILE]", "Run one workload under single, multi and master-slave (or, with --flavours, under Netty loop designs), one after another, and compare.")
	var rf runFlags
	rf.register(f)
	models := f.String("models", strings.Join(compare.Models, ","), "models to run, comma-separated")
	transports := f.String("transports", "", "instead of models, run the scenario's model on these transports, comma-separated (nio,epoll,io_uring): readiness against completion; under Netty 4.2 when io_uring is one of them, else under the scenario's design with NIO level- and epoll edge-triggered before 4.2")
	flavours := f.String("flavours", "", "instead of models, run the scenario's model under these Netty loop designs, comma-separated (4.1.43,4.1,4.2)")
	chromePath := f.String("chrome", "", "write one Chrome/Perfetto trace `file` with one process per model")
	pos, err := f.parse(e, args, 0, 1)
	if err != nil {
		return err
	}
	// master-slave's workload (two bosses, two ports) is one every model
	// can serve and where the three really differ.
	name := "master-slave"
	if len(pos) == 1 {
		name = pos[0]
	}
	sc, err := loadWorkload(name, rf.sets, rf.duration)
	if err != nil {
		return err
	}
	printWarnings(e, sc)
	axis, variants, err := compareAxis(*models, *flavours, *transports)
	if err != nil {
		return err
	}
	if err := needLive("compare"); err != nil {
		return err
	}
	// Every axis opens the same compare screen in a terminal; --headless,
	// --json or --chrome print the table.
	if rf.tui(e) && compareTUI != nil && *chromePath == "" {
		return compareTUI(sc, axis, variants)
	}
	o := compare.Options{ChromePath: *chromePath}
	switch axis {
	case "transport":
		cmp, err := compare.RunTransports(sc, variants, o)
		return reportComparison(e, cmp, err, rf.json)
	case "flavour":
		cmp, err := compare.RunFlavours(sc, variants, o)
		return reportComparison(e, cmp, err, rf.json)
	}
	cmp, err := compare.Run(sc, variants, o)
	return reportComparison(e, cmp, err, rf.json)
}

// compareAxis is what compare varies — transports, flavours or models —
// and the variants asked for.
func compareAxis(models, flavours, transports string) (string, []string, error) {
	switch {
	case transports != "":
		ts, err := parseTransports(transports)
		return "transport", ts, err
	case flavours != "":
		fs, err := parseFlavours(flavours)
		return "flavour", fs, err
	}
	ms, err := parseModels(models)
	return "model", ms, err
}

func parseModels(s string) ([]string, error) {
	return parseList("--models", "model", s, compare.Models)
}

func parseFlavours(s string) ([]string, error) {
	return parseList("--flavours", "flavour", s, compare.Flavours)
}

func parseTransports(s string) ([]string, error) {
	return parseList("--transports", "transport", s, sim.Transports)
}

// parseList reads a comma-separated flag value whose every item must be one
// of known.
func parseList(flag, what, s string, known []string) ([]string, error) {
	var out []string
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		if !slices.Contains(known, v) {
			return nil, usageErr("%s: unknown %s %q (want %s)", flag, what, v, strings.Join(known, ", "))
		}
		out = append(out, v)
	}
	return out, nil
}

// report is a comparison's output: JSON or its text table, then exit 1 if
// any expectation or compare clause failed.
type report interface {
	Text() string
	Failed() int
}

func reportComparison(e *env, cmp report, err error, asJSON bool) error {
	if err != nil {
		return runtimeErr(err)
	}
	if asJSON {
		b, _ := json.MarshalIndent(cmp, "", "  ")
		e.stdout.Write(append(b, '\n'))
	} else {
		fmt.Fprint(e.stdout, cmp.Text())
	}
	if n := cmp.Failed(); n > 0 {
		return &exitError{exitExpect, fmt.Errorf("%d expectation(s) failed", n)}
	}
	return nil
}
