package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
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

// A replay follows each loop's ioRatio through its io_ratio events.
func TestTallyFollowsIORatioEvents(t *testing.T) {
	var tl Tally
	for _, e := range []trace.Event{
		{Loop: 1, Kind: trace.KindIORatio, A: 10, B: 50},
		{Loop: 1, Kind: trace.KindIORatio, A: 80, B: 10},
		{Loop: 2, Kind: trace.KindTaskRun},
	} {
		tl.Add(&e)
	}
	var got []int64
	for _, c := range tl.Counters {
		got = append(got, c.IORatio)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 80 || got[2] != 0 {
		t.Fatalf("ioRatios %v, want [0 80 0]", got)
	}
	if tl.Counters[1].Stats != (reactor.Stats{}) {
		t.Fatalf("an io_ratio event counted as %+v", tl.Counters[1].Stats)
	}
}

// A trace records the loop design it ran, and its replay checks the
// scenario's conditions against that design, not the built-in's default.
func TestTraceNamesTheLoopDesign(t *testing.T) {
	sc, err := scenarios.Load("task-quantum")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range [][2]string{{"duration", "700ms"}, {"netty", "4.1"}, {"expect", "[]"}} {
		if err := sc.Set(set[0], set[1]); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	r, err := New(sc, Options{TracePath: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	s, _, err := Replay(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Netty != "4.1" {
		t.Errorf("replay says netty %q, want 4.1", s.Netty)
	}
	if headerNetty("io_ratio=50") != "4.1.43" {
		t.Error("a trace that names no design ran the default, 4.1.43")
	}
}

// The server's protocol handlers count the requests they answer, which
// serve's req/s comes from: at least every answer the clients received.
func TestRunCountsAnsweredRequests(t *testing.T) {
	sc, err := scenarios.Load("http-plaintext")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "500ms"); err != nil {
		t.Fatal(err)
	}
	r, err := New(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Answered(); s.Clients.Requests == 0 || got < s.Clients.Requests {
		t.Errorf("answered %d, clients received %d answers", got, s.Clients.Requests)
	}
}
