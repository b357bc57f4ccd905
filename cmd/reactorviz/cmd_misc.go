package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/reactorviz/reactorviz/scenarios"
)

func cmdList(e *env, args []string) error {
	f := newFlags("list", "", "List the built-in scenarios: name, model, summary.")
	if _, err := f.parse(e, args, 0, 0); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMODEL\tSUMMARY")
	for _, s := range scenarios.Builtin() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Model, s.Summary)
	}
	fmt.Fprintln(tw, "\nCOMPARE WORKLOAD\t\t(reactorviz compare NAME)")
	for _, s := range scenarios.Workloads() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, "all", s.Summary)
	}
	return tw.Flush()
}

func cmdShow(e *env, args []string) error {
	f := newFlags("show", "NAME", "Print a built-in scenario's YAML, to copy and edit.\n\n"+scenarios.FieldHelp())
	pos, err := f.parse(e, args, 1, 1)
	if err != nil {
		return err
	}
	src, ok := scenarios.BuiltinSource(pos[0])
	if !ok {
		src, ok = scenarios.WorkloadSource(pos[0])
	}
	if !ok {
		return usageErr("unknown scenario %q (see 'reactorviz list')", pos[0])
	}
	_, err = e.stdout.Write(src)
	return err
}

func cmdValidate(e *env, args []string) error {
	f := newFlags("validate", "FILE...", "Check scenario files; print every problem as FILE:LINE:COL: message,\nand every warning (a setting that has no effect) as FILE:LINE:COL: warning: message.")
	var sets setFlags
	duration := f.Duration("duration", 0, "check with this duration, as run --duration would use it")
	f.Var(&sets, "set", "check with an override, as run --set would apply it (repeatable)")
	pos, err := f.parse(e, args, 1, -1)
	if err != nil {
		return err
	}
	bad := 0
	for _, p := range pos {
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", p, err)
			bad++
			continue
		}
		sc, err := loadScenario(p, sets, *duration)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			bad++
			continue
		}
		printWarnings(e, sc)
		fmt.Fprintf(e.stdout, "%s: ok\n", p)
	}
	if bad > 0 {
		return &exitError{exitUsage, fmt.Errorf("%d of %d file(s) invalid", bad, len(pos))}
	}
	return nil
}

// printWarnings prints the settings of sc that are valid but have no
// effect, one a line on stderr: they do not stop a run, but a user who set
// them expected something.
func printWarnings(e *env, sc *scenarios.Scenario) {
	for _, w := range sc.Warnings() {
		w.Msg = "warning: " + w.Msg
		fmt.Fprintln(e.stderr, w)
	}
}
