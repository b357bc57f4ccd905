package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// flags wraps a FlagSet so flags may come before or after the positional
// arguments (reactorviz run tour --headless), with one usage text per
// command.
type flags struct {
	*flag.FlagSet
	usage string
}

func newFlags(name, args, summary string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	f := &flags{FlagSet: fs, usage: fmt.Sprintf("usage: reactorviz %s %s\n\n%s\n", name, args, summary)}
	fs.SetOutput(io.Discard)
	return f
}

var errHelp = &exitError{exitOK, errors.New("")}

// parse reads flags anywhere in args and returns the positional arguments,
// which must number between lo and hi (hi < 0: no limit).
func (f *flags) parse(e *env, args []string, lo, hi int) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.printUsage(e.stdout)
				return nil, errHelp
			}
			return nil, usageErr("%s: %v (see 'reactorviz %s --help')", f.Name(), err, f.Name())
		}
		args = f.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < lo || (hi >= 0 && len(pos) > hi) {
		return nil, usageErr("%s: wrong number of arguments (see 'reactorviz %s --help')", f.Name(), f.Name())
	}
	return pos, nil
}

func (f *flags) printUsage(w io.Writer) {
	fmt.Fprint(w, f.usage)
	var b strings.Builder
	f.SetOutput(&b)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
	if b.Len() > 0 {
		fmt.Fprint(w, "\nflags:\n", b.String())
	}
}

// setFlags collects repeated --set key=value arguments.
type setFlags []string

func (s *setFlags) String() string { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("want key=value, got %q", v)
	}
	*s = append(*s, v)
	return nil
}
