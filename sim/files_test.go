package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
)

// When --trace opens but --chrome cannot, Start fails before finish would
// close the files; the JSONL file must be closed all the same.
func TestStartClosesTraceWhenChromeFails(t *testing.T) {
	sc, err := scenarios.Parse("t.yaml", []byte("name: t\nduration: 100ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "run.jsonl")
	r, err := New(sc, Options{TracePath: tracePath, ChromePath: filepath.Join(dir, "no-such-dir", "run.json")})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err == nil {
		t.Fatal("Start succeeded with an unwritable --chrome path")
	}
	// Closing the writer writes its end line; a writer left open has
	// written nothing, its header still buffered.
	data, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`{"end":`)) {
		t.Errorf("the trace file was not closed; it holds %q", data)
	}
}
