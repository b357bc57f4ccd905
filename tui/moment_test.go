package tui

import (
	"testing"

	"github.com/reactorviz/reactorviz/tui/model"
)

// TestReplayFollowLogNotCopied checks that a replay's frame lists the
// followed item's path as its snapshot holds it: only a live run, whose
// log times are rewritten to the run clock, needs a copy, and a copy of
// up to LogCap lines on every frame would be paid while a replay plays.
func TestReplayFollowLogNotCopied(t *testing.T) {
	s := tourScript()
	rep := model.NewReplay(s.table, s.events, 0)
	rep.Seek(rep.Len())
	var fq model.FollowQuery
	for i := range s.events {
		if q, ok := model.FollowOf(&s.events[i]); ok {
			fq = q
			break
		}
	}
	if fq.Field == "" {
		t.Fatal("nothing to follow in the script")
	}
	fq.Max = model.LogCap
	m := moment{snapshot: rep.Snapshot, set: model.Settings{IORatio: -1}}
	f, _, _ := m.frame(model.Query{Focus: -1, Log: 10, Follow: fq})
	if len(f.Snapshot.FollowLog) == 0 || len(f.Log) != len(f.Snapshot.FollowLog) {
		t.Fatalf("log %d lines, the followed path %d", len(f.Log), len(f.Snapshot.FollowLog))
	}
	if &f.Log[0] != &f.Snapshot.FollowLog[0] {
		t.Error("the replay's frame copied the followed path")
	}
}
