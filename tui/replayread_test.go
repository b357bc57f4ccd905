package tui

import (
	"reflect"
	"testing"

	"github.com/reactorviz/reactorviz/recordings"
)

// The replay reads a trace's samples with its events, in their places: a
// built-in recording read for the screen (the terminal's replay and the
// browser page's) holds what jsonl.ReadAll finds, so its screen shows the
// clients, system calls and fired actions a replay read whole shows.
func TestReadReplayKeepsTheSamples(t *testing.T) {
	want, err := openBuiltinRecording("tour")
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Samples) == 0 {
		t.Fatal("the tour's recording has no samples")
	}
	rc, err := recordings.Open("tour")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, cut, err := ReadReplay(rc, "tour")
	if err != nil || cut != nil {
		t.Fatalf("ReadReplay: %v, cut %v", err, cut)
	}
	if len(got.Events) != len(want.Events) || len(got.Samples) != len(want.Samples) {
		t.Fatalf("ReadReplay: %d events and %d samples; the trace has %d and %d",
			len(got.Events), len(got.Samples), len(want.Events), len(want.Samples))
	}
	if !reflect.DeepEqual(got.Samples, want.Samples) {
		t.Error("ReadReplay's samples differ from the trace's")
	}
	// The samples count towards the cap on what the replay holds: room
	// for the events alone is not enough.
	defer func(old int) { MaxReplayEvents = old }(MaxReplayEvents)
	MaxReplayEvents = len(want.Events)
	rc2, err := recordings.Open("tour")
	if err != nil {
		t.Fatal(err)
	}
	defer rc2.Close()
	if _, _, err := ReadReplay(rc2, "tour"); err == nil {
		t.Error("a trace whose events and samples are past the cap was read")
	}
}
