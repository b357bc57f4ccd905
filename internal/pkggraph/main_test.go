package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphIsCurrent fails when a package gains or loses an import of the
// module's own packages and docs/packages.dot was not generated again, so
// the picture in docs/architecture.md never shows a graph the code left.
func TestGraphIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	edges, err := imports(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(edges["sim"]) == 0 || len(edges["tui"]) == 0 {
		t.Fatalf("graph lacks sim or tui: %v", edges)
	}
	have, err := os.ReadFile(filepath.Join(root, "docs", "packages.dot"))
	if err != nil {
		t.Fatal(err)
	}
	if want := render(edges); !bytes.Equal(have, want) {
		t.Fatalf("docs/packages.dot is stale: run go generate ./internal/pkggraph\n--- want\n%s", want)
	}
}

// TestGraphShowsNoInternalsOrMain keeps the picture to the layers a reader
// extends.
func TestGraphShowsNoInternalsOrMain(t *testing.T) {
	for path, want := range map[string]bool{
		module + "/reactor":                    true,
		module + "/cmd/reactorviz":             false,
		module + "/reactor/internal/poll":      true,
		module + "/recordings/internal/record": false,
		module + "/internal/leaktest":          false,
		module + "/docs/bench/gobaseline":      false,
		"golang.org/x/sys/unix":                false,
	} {
		if got := shown(path); got != want {
			t.Errorf("shown(%q) = %v, want %v", path, got, want)
		}
	}
}

// mustNotImport is the one way the dependencies point
// (docs/architecture.md): a package, or one under it, imports none of the
// packages named, nor any under them. The engine and the file formats know
// nothing of scenarios, runs or screens; sim runs scenarios and knows no
// screen (a live run's protocol, sim/remote, included: the screens import
// it); the UI's own layers know nothing of the runner.
var mustNotImport = []struct {
	from string
	not  []string
}{
	{"reactor", []string{"scenarios", "sim", "tracefile", "tui", "learn", "recordings", "web"}},
	{"reactor/codec", []string{"reactor"}},
	{"tracefile", []string{"scenarios", "sim", "tui", "learn", "recordings", "web"}},
	{"scenarios", []string{"sim", "tracefile", "tui", "learn", "recordings", "web"}},
	{"sim", []string{"tui", "learn", "recordings", "web"}},
	{"tui/model", []string{"scenarios", "sim", "tui", "learn", "recordings", "web"}},
	{"tui/widgets", []string{"scenarios", "sim", "learn", "recordings", "web"}},
	{"tui", []string{"web"}},
	{"learn", []string{"sim", "tui", "web"}},
}

// under reports whether package p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// TestDependenciesPointOneWay fails when a package imports one of a layer
// above it, by the rules of mustNotImport.
func TestDependenciesPointOneWay(t *testing.T) {
	edges, err := imports(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range edges {
		for _, r := range mustNotImport {
			if !under(from, r.from) {
				continue
			}
			for _, imp := range to {
				for _, not := range r.not {
					if under(imp, not) && !under(imp, r.from) {
						t.Errorf("%s imports %s: nothing under %s may import %s", from, imp, r.from, not)
					}
				}
			}
		}
	}
}
