package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
)

// checkCaptions renders every caption of sc from the frame the screen
// draws and checks each figure it states against the run's summary: the
// caption says what the table shows, and what the run reports.
func checkCaptions(t *testing.T, sc *scenarios.Scenario, f *model.Frame, sum *sim.Summary) string {
	t.Helper()
	fr, sr := frameValues(f), sum.Resolver()
	var texts []string
	for _, c := range sc.Watch {
		for _, p := range c.Placeholders() {
			fv, fok := scenarios.Resolve(p, fr)
			sv, sok := scenarios.Resolve(p, sr)
			switch {
			case !fok:
				t.Errorf("caption at %v: the screen has no %s", c.At, p)
			case !sok:
				t.Errorf("caption at %v: the summary has no %s", c.At, p)
			case fv.String() != sv.String():
				t.Errorf("caption at %v: %s is %v on screen, %v in the summary", c.At, p, fv, sv)
			}
		}
		text := c.Render(fr, sc)
		if strings.ContainsAny(text, "{}") {
			t.Errorf("caption at %v keeps a placeholder: %q", c.At, text)
		}
		texts = append(texts, text)
	}
	return strings.Join(texts, "\n")
}

// Every built-in's captions, rendered at the end of its recording, state
// the figures of the recorded run.
func TestCaptionsOfTheRecordingsStateTheirFigures(t *testing.T) {
	for _, e := range recordings.List() {
		t.Run(e.Name, func(t *testing.T) {
			tr, err := openBuiltinRecording(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			sc := recordedScenario(tr.Header)
			if sc == nil {
				t.Skip("not a built-in")
			}
			rep := newReplay(tr)
			rep.Seek(rep.Len())
			now := time.Duration(rep.Time())
			f, _, _ := moment{snapshot: rep.Snapshot, set: model.Settings{IORatio: -1}, sc: sc, now: now}.frame(model.Query{Focus: -1})
			rc, err := recordings.Open(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			sum, _, err := sim.ReplayFrom(rc, e.Name)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			checkCaptions(t, sc, f, sum)
		})
	}
}

// Each built-in under the --set overrides its docs and captions mention:
// the captions' figures are the run's, and their claims change with the
// configuration (a short run: the claims depend on the configuration, the
// figures are checked against the same run's summary).
func TestCaptionsFollowTheOverrides(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a dozen short scenarios")
	}
	checkGoroutines(t)
	for _, tc := range []struct {
		name        string
		sets        []string
		has, hasNot []string
	}{
		{"boss-idle", nil, []string{"never even start", "NOT_STARTED"}, []string{"SO_REUSEPORT each"}},
		{"boss-idle", []string{"server.reuseport=true"}, []string{"spreads the accepts over all of them"}, []string{"never even start", "boss-0 has accepted"}},
		{"boss-idle", []string{"netty=4.2"}, []string{"accept none"}, []string{"never even start"}},
		{"task-deadline-64", []string{"loop.io_ratio=100"}, []string{"no budget"}, []string{"cut at its first check"}},
		{"task-deadline-64", []string{"netty=4.2"}, []string{"no ioRatio"}, []string{"cut at its first check"}},
		{"io-ratio", []string{"netty=4.2"}, []string{"are ignored"}, []string{"never checks the clock"}},
		{"chooser", []string{"workers=3"}, []string{"chooser is generic"}, []string{"power-of-two:"}},
		{"chooser", nil, []string{"chooser is power-of-two"}, nil},
		{"spurious-wakeup", []string{"loop.rebuild_threshold=0"}, []string{"Rebuilding is off"}, []string{"racing to"}},
		{"jdk-epoll-bug", []string{"loop.selector=epoll"}, []string{"nothing spins"}, []string{"worker-0 spins"}},
		{"edge-vs-level", []string{"loop.trigger=level"}, []string{"In level mode"}, []string{"In edge mode"}},
		{"lazy-start", []string{"netty=4.1"}, []string{"yet at the very end"}, []string{"never start:"}},
		{"auto-scaling", []string{"netty=4.1"}, []string{"does not scale"}, []string{"suspends worker-1..3"}},
		{"task-quantum", []string{"netty=4.1"}, []string{"ioRatio share"}, []string{"fixed quantum"}},
		{"boss-idle", []string{"netty=4.1"}, []string{"accept none"}, []string{"never even start"}},
		{"io-ratio", []string{"loop.io_ratio=100"}, []string{"never checks the clock"}, nil},
		{"spurious-wakeup", []string{"netty=4.2"}, []string{"racing to 512"}, []string{"Rebuilding is off"}},
		{"edge-vs-level", []string{"netty=4.2"}, []string{"In level mode"}, []string{"In edge mode"}},
		{"tour", []string{"clients.0.connections=32"}, []string{"The first clients connect"}, []string{"Two clients"}},
	} {
		t.Run(tc.name+"/"+strings.Join(tc.sets, ","), func(t *testing.T) {
			sc, err := scenarios.Load(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range append(tc.sets, "duration=1200ms") {
				k, v, _ := strings.Cut(kv, "=")
				if err := sc.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			mdl := model.New(nil)
			run, err := sim.New(sc, sim.Options{Sinks: []trace.Sink{mdl}})
			if err != nil {
				t.Fatal(err)
			}
			mdl.SetLoops(run.LoopTable())
			sum, err := run.Wait()
			if err != nil {
				t.Fatal(err)
			}
			f, _, _ := liveMoment(NewLocalRun(run), mdl).frame(model.Query{Focus: -1})
			all := checkCaptions(t, sc, f, sum)
			for _, s := range tc.has {
				if !strings.Contains(all, s) {
					t.Errorf("the captions do not say %q:\n%s", s, all)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(all, s) {
					t.Errorf("the captions say %q, which this run contradicts:\n%s", s, all)
				}
			}
		})
	}
}

// A replay's captions follow the header of the trace: a boss-idle run
// recorded with SO_REUSEPORT says all the bosses accepted.
func TestReplayCaptionsFollowTheRecordedConfig(t *testing.T) {
	hdr := jsonl.Header{Scenario: "boss-idle", Model: "master-slave",
		Config: "io_ratio=50 rebuild_threshold=512 selector=nio trigger=level reuseport=true"}
	for _, n := range []string{"boss-0", "boss-1", "boss-2", "boss-3", "worker-0", "worker-1"} {
		hdr.Loops = append(hdr.Loops, trace.LoopInfo{Name: n, Group: strings.TrimRight(n, "-0123")})
	}
	sc := recordedScenario(hdr)
	if sc == nil || !sc.Server.ReusePort {
		t.Fatalf("scenario %+v", sc)
	}
	if got, _ := watchAt(sc, nil, 0); !strings.Contains(got, "With SO_REUSEPORT") || strings.Contains(got, "never even start") {
		t.Errorf("caption of a reuseport recording: %q", got)
	}
	hdr.Config = "io_ratio=50 rebuild_threshold=512 selector=nio trigger=level"
	if got, _ := watchAt(recordedScenario(hdr), nil, 0); !strings.Contains(got, "never even start") {
		t.Errorf("caption of a one-boss recording: %q", got)
	}
}
