//go:build !linux || nolive

package main

import (
	"strings"
	"testing"
)

// Without the live engine, the commands that run it refuse once, plainly,
// with exit 3; the others work.
func TestNoLiveCommands(t *testing.T) {
	scenario := writeFile(t, "ok.yaml", "name: ok\nsummary: fine\nmodel: multi\nduration: 1s\nserver: {protocol: echo}\n")
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"run", "tour", "--headless"}, exitRuntime, ""},
		{[]string{"compare", "--json"}, exitRuntime, ""},
		{[]string{"serve", "--headless"}, exitRuntime, ""},
		{[]string{"list"}, exitOK, "jdk-epoll-bug"},
		{[]string{"show", "tour"}, exitOK, "name: tour"},
		{[]string{"validate", scenario}, exitOK, ": ok"},
		{[]string{"version"}, exitOK, "reactorviz"},
		{[]string{"run", "--help"}, exitOK, ""},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) {
			t.Errorf("%v: exit %d (want %d)\nstdout: %s\nstderr: %s", tc.args, code, tc.code, out, errs)
		}
		if code == exitRuntime && (strings.Count(errs, "live runs need Linux") != 1 || !strings.Contains(errs, "replay tour")) {
			t.Errorf("%v: stderr %q", tc.args, errs)
		}
	}
}

// reactorviz with no arguments and no terminal prints the summary of the
// tour's recording, saying it is one.
func TestNoLiveDefaultReplaysTour(t *testing.T) {
	code, out, errs := runCLI(t)
	if code != exitOK || !strings.Contains(out, "tour") || !strings.Contains(errs, "recording of tour") ||
		!strings.Contains(errs, "live runs need Linux") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}
