package tui

import (
	"reflect"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tui/model"
)

// One run, two sources: the live frame takes every started loop's
// counters from the engine itself (the probe a live screen reads), the
// replay frame folds them from the run's trace. A short real run of the
// tour, with rings large enough that nothing is dropped, must give the
// same numbers both ways, or the engine and the fold have diverged.
func TestLiveAndReplayFramesAreEqual(t *testing.T) {
	if !reactor.Live {
		t.Skip("a live run needs the live engine (Linux, without -tags nolive)")
	}
	checkGoroutines(t)
	sc, err := scenarios.Load("tour")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = 600 * time.Millisecond
	mdl, rec := model.New(nil), &recorder{}
	run, err := sim.New(sc, sim.Options{Sinks: []trace.Sink{tee{mdl: mdl, rec: rec}}, RingSize: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	mdl.SetLoops(run.LoopTable())
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	events, cut := rec.take()
	if d := run.Dropped(); d > 0 || cut {
		t.Fatalf("the run dropped %d events (recording cut: %v): the fold cannot match the engine", d, cut)
	}
	rep := model.NewReplay(run.LoopTable(), events, 0)
	rep.Seek(rep.Len())
	// Both through the path the screens take.
	q := model.Query{Focus: -1}
	live, _, liveCap := liveMoment(NewLocalRun(run), mdl).frame(q)
	now := time.Duration(rep.Time())
	replay, _, repCap := moment{snapshot: rep.Snapshot, set: live.Settings, sc: sc, now: now,
		fired: sim.FiredBy(sc, run.LoopTable(), now)}.frame(q)
	// The moment each caption is for is each clock's own reading.
	liveCap.at, repCap.at = 0, 0
	if liveCap.watch == "" || !reflect.DeepEqual(liveCap, repCap) {
		t.Errorf("captions: live %+v, replay %+v", liveCap, repCap)
	}
	if len(live.Rows) != len(replay.Rows) || len(live.Rows) < 3 {
		t.Fatalf("live frame has %d loops, replay %d", len(live.Rows), len(replay.Rows))
	}
	started, work := 0, int64(0)
	for i, l := range live.Rows {
		r := replay.Rows[i]
		if l.Name != r.Name || l.TID != r.TID || l.State != r.State {
			t.Errorf("row %d: live %s tid %d %v, replay %s tid %d %v", i, l.Name, l.TID, l.State, r.Name, r.TID, r.State)
		}
		// The live counters (system calls) are in no event: a replay
		// shows them as zero, and the rest must agree.
		if l.Stats.Replayable() != r.Stats {
			t.Errorf("%s: the engine's counters\n%+v\ndiffer from the fold of its events\n%+v", l.Name, l.Stats, r.Stats)
		}
		if l.Pause != r.Pause || l.Break != r.Break {
			t.Errorf("%s: live pause %v %v, replay %v %v", l.Name, l.Pause, l.Break, r.Pause, r.Break)
		}
		if l.TID != 0 {
			started++
		}
		work += l.Accepted + l.BytesRead + l.TasksRun
	}
	if started < 3 || work == 0 {
		t.Fatalf("%d loops started, %d accepts, bytes and tasks: the run did nothing to compare", started, work)
	}
}
