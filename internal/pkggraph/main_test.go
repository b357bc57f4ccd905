package main

import (
	"bytes"
	"os"
	"path/filepath"
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
