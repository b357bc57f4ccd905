package model_test

import (
	"reflect"
	"testing"

	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
)

// On every built-in recording, a replay's frame at an event is the live
// model's after the same events: loops (phase, counters, queue, lanes,
// last-second split) and wheel alike, with the replay's cursor brought
// there backwards from the end, over its checkpoints. Under the race
// detector only the smaller recordings are folded.
func TestReplayFramesOfRecordingsAreTheLiveFold(t *testing.T) {
	q := model.Query{Focus: -1, Timeline: model.TimelineQuery{Cols: 60, Span: 50e6, Split: true}}
	for _, ent := range recordings.List() {
		if size, _ := recordings.CompressedSize(ent.Name); raceEnabled && size > 200<<10 {
			continue
		}
		rc, err := recordings.Open(ent.Name)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := jsonl.ReadAll(rc, ent.Name)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", ent.Name, err)
		}
		r := model.NewReplay(tr.Header.Loops, tr.Events, tr.End.Dropped)
		r.Seek(r.Len())
		r.Snapshot(q)
		live := model.New(tr.Header.Loops)
		folded := 0
		for _, pos := range []int{r.Len() / 3, r.Len() / 2, r.Len()} {
			live.Consume(tr.Events[folded:pos])
			folded = pos
			r.Seek(pos)
			rq := q
			rq.Timeline.End = r.Time()
			got, want := r.Snapshot(q), live.Snapshot(rq)
			if !reflect.DeepEqual(got.Loops, want.Loops) || !reflect.DeepEqual(got.Wheel, want.Wheel) {
				t.Errorf("%s at event %d of %d: the replay's frame is not the live fold's", ent.Name, pos, r.Len())
			}
		}
	}
}
