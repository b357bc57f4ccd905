// Command reactorviz runs a real Netty-style multi-reactor engine and shows
// what its event loops do: in a terminal UI, or headless as a summary.
//
// Exit codes: 0 success; 1 the run finished but an expectation failed;
// 2 bad usage or bad input; 3 a runtime failure.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/reactorviz/reactorviz/internal/safetext"
	"github.com/reactorviz/reactorviz/reactor"
	"golang.org/x/term"
)

// Exit codes (README.md, "Commands").
const (
	exitOK      = 0
	exitExpect  = 1
	exitUsage   = 2
	exitRuntime = 3
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries an exit code with the message printed for it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

func runtimeErr(err error) error { return &exitError{exitRuntime, err} }

// command is one subcommand.
type command struct {
	name    string
	args    string
	summary string
	run     func(env *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"run", "NAME|FILE", "run a scenario in the TUI, or headless with --headless", cmdRun},
		{"compare", "[NAME|FILE]", "the same workload on single, multi and master-slave, or on Netty 4.1.43, 4.1 and 4.2", cmdCompare},
		{"replay", "NAME|FILE.jsonl", "open a built-in recording or a recorded trace (TUI, or --headless summary)", cmdReplay},
		{"serve", "", "serve echo, http or resp to outside clients (curl, wrk, redis-benchmark)", cmdServe},
		{"web", "", "the replay screens in the browser, served on 127.0.0.1 (or --out DIR: a static site)", cmdWeb},
		{"learn", "[NAME]", "learn by predicting: short lessons that ask before they show (--list)", cmdLearn},
		{"list", "", "list the built-in scenarios", cmdList},
		{"show", "NAME", "print a built-in scenario's YAML", cmdShow},
		{"validate", "FILE...", "check scenario files", cmdValidate},
		{"version", "", "print the version", cmdVersion},
		{"help", "[COMMAND]", "help on a command", cmdHelp},
	}
}

// env is what a command may touch: its streams and whether they are
// terminals. Tests give it buffers.
type env struct {
	stdout, stderr io.Writer
	stdoutTTY      bool
	stderrTTY      bool
	// rawStderr is stderr before safetext, for the command's own control
	// sequences (the progress line's carriage return and erase); what it
	// writes there from a file goes through safetext.Line first.
	rawStderr io.Writer
}

// safe returns e with its streams passed through safetext.Writer.
func (e *env) safe() *env {
	c := *e
	if c.rawStderr == nil {
		c.rawStderr = c.stderr
	}
	if _, ok := c.stdout.(safetext.Writer); !ok {
		c.stdout = safetext.Writer{W: c.stdout}
	}
	if _, ok := c.stderr.(safetext.Writer); !ok {
		c.stderr = safetext.Writer{W: c.stderr}
	}
	return &c
}

func main() {
	e := &env{stdout: os.Stdout, stderr: os.Stderr,
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())), stderrTTY: term.IsTerminal(int(os.Stderr.Fd()))}
	os.Exit(run(e, os.Args[1:]))
}

// run dispatches and turns errors into exit codes. It never panics on input.
// Everything a command prints goes through safetext: names, captions and
// errors quote files, and a file must not drive the terminal it is read on
// (docs/security.md).
func run(e *env, args []string) int {
	e = e.safe()
	err := dispatch(e, args)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(e.stderr, "reactorviz:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(e.stderr, "reactorviz:", err)
	return exitRuntime
}

func dispatch(e *env, args []string) error {
	if len(args) == 0 {
		return defaultCommand(e)
	}
	switch args[0] {
	case "-h", "--help", "-help":
		return cmdHelp(e, nil)
	case "--version", "-version":
		return cmdVersion(e, nil)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(e, args[1:])
		}
	}
	return usageErr("unknown command %q (run 'reactorviz help')", args[0])
}

func cmdHelp(e *env, args []string) error {
	if len(args) > 0 {
		return dispatch(e, []string{args[0], "--help"})
	}
	fmt.Fprint(e.stdout, `reactorviz runs a real Netty-style multi-reactor engine on epoll and shows
its event loops at work: boss and worker threads, task queues, timers.

usage:
  reactorviz                        the guided tour in the TUI (headless without a terminal)
`)
	if !reactor.Live {
		fmt.Fprint(e.stdout, "                                    (this build: its recording; live runs need Linux)\n")
	}
	for _, c := range commands {
		fmt.Fprintf(e.stdout, "  reactorviz %-22s %s\n", c.name+" "+c.args, c.summary)
	}
	fmt.Fprint(e.stdout, "\n'reactorviz COMMAND --help' describes a command's flags.\n")
	return nil
}

func cmdVersion(e *env, args []string) error {
	fs := newFlags("version", "", "print the version")
	if _, err := fs.parse(e, args, 0, 0); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "reactorviz %s\n", version)
	return nil
}
