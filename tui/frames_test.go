package tui

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tui/model"
)

// liveMoments takes the live screen's frame each time a sample reaches the
// model, on the collector's goroutine, so nothing else of the stream is
// folded in between: what the live screen drew at that moment.
type liveMoments struct {
	tee
	run  *LocalRun
	want int

	mu      sync.Mutex
	frames  []*model.Frame
	caps    []captionView
	nows    []time.Duration
	samples []int // the samples in the stream at each moment
}

func (m *liveMoments) ConsumeRecord(rec any) {
	m.tee.ConsumeRecord(rec)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.run == nil || len(m.frames) >= m.want {
		return
	}
	at := liveMoment(m.run, m.tee.mdl)
	f, _, c := at.frame(model.Query{Focus: -1, Head: 8, Log: 32})
	_, ss, _ := m.tee.rec.take()
	m.frames, m.caps, m.nows, m.samples = append(m.frames, f), append(m.caps, c), append(m.nows, at.now), append(m.samples, len(ss))
}

// One stream, two readers: the live screen's frame at ten moments of a
// real run, and the replay of the run's stream at the same moments (the
// same events and samples), are equal field by field: counters (system
// calls included), pause state, ioRatio, the last second, the wheel's
// slots, the clients, the captions. Nothing reads the engine but the
// run's sampler.
func TestLiveAndReplayFramesAreEqual(t *testing.T) {
	if !reactor.Live {
		t.Skip("a live run needs the live engine (Linux, without -tags nolive)")
	}
	checkGoroutines(t)
	for _, tc := range []struct{ name, model string }{{"tour", ""}, {"master-slave", "single"}} {
		t.Run(tc.name+tc.model, func(t *testing.T) { liveEqualsReplay(t, tc.name, tc.model) })
	}
}

func liveEqualsReplay(t *testing.T, name, mdlName string) {
	sc, err := scenarios.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if mdlName != "" {
		if sc, err = compare.ForModel(sc, mdlName); err != nil {
			t.Fatal(err)
		}
	}
	sc.Duration = 2600 * time.Millisecond
	mdl, rec := model.New(nil), &recorder{}
	lm := &liveMoments{tee: tee{mdl: mdl, rec: rec}, want: 10}
	run, err := sim.New(sc, sim.Options{Sinks: []trace.Sink{lm}, RingSize: 1 << 16, ExternalRingSize: 1 << 18})
	if err != nil {
		t.Fatal(err)
	}
	mdl.SetLoops(run.LoopTable())
	lm.mu.Lock()
	lm.run = NewLocalRun(run)
	lm.mu.Unlock()
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	events, samples, cut := rec.take()
	if d := run.Dropped(); d > 0 || cut {
		t.Fatalf("the run dropped %d events (recording cut: %v): the stream is incomplete", d, cut)
	}
	// The replay gets the stream's samples as the live model did: those
	// of a moment before it is drawn, so two samples between the same
	// two events are not read before the live screen read them.
	rep, added := model.NewReplay(run.LoopTable(), events, 0), 0
	lm.mu.Lock()
	defer lm.mu.Unlock()
	if len(lm.frames) < 10 {
		t.Fatalf("%d moments taken, want 10", len(lm.frames))
	}
	sawClients, sawSyscalls := false, false
	for i, live := range lm.frames {
		for ; added < lm.samples[i]; added++ {
			rep.AddSample(samples[added].Events, samples[added].Sample)
		}
		rep.Seek(int(live.Events))
		q := model.Query{Focus: -1, Head: 8, Log: 32}
		replay, _, repCap := moment{snapshot: rep.Snapshot, set: live.Settings, sc: sc, now: lm.nows[i]}.frame(q)
		if !reflect.DeepEqual(lm.caps[i], repCap) {
			t.Errorf("moment %d: captions: live %+v, replay %+v", i, lm.caps[i], repCap)
		}
		// The log's lines are the same events; a replay builds them from
		// its own copy of the strings.
		live.Log, replay.Log = nil, nil
		if !reflect.DeepEqual(live, replay) {
			for j := range live.Rows {
				if j < len(replay.Rows) && !reflect.DeepEqual(live.Rows[j], replay.Rows[j]) {
					t.Errorf("moment %d (%d events): row %d:\nlive   %+v\nreplay %+v", i, live.Events, j, live.Rows[j], replay.Rows[j])
				}
			}
			if !reflect.DeepEqual(live.Wheel, replay.Wheel) || live.Clients != replay.Clients {
				t.Errorf("moment %d: wheel/clients: live %+v %+v, replay %+v %+v", i, live.Wheel, live.Clients, replay.Wheel, replay.Clients)
			}
			t.Fatalf("moment %d (%d events): the frames differ", i, live.Events)
		}
		sawClients = sawClients || live.Clients.Requests > 0
		for _, r := range live.Rows {
			sawSyscalls = sawSyscalls || r.EpollCtl > 0
		}
	}
	if !sawClients || !sawSyscalls {
		t.Errorf("the moments showed no client requests (%v) or no system calls (%v): nothing compared", sawClients, sawSyscalls)
	}
}
