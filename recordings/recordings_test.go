package recordings_test

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/recordings"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/sim/compare"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

const rerecord = "re-record with `go generate ./recordings` on Linux"

// TestCurrent is the staleness check: every built-in scenario and every
// compare model has a recording, made by this engine version from today's
// YAML for the duration planned. It reads headers and the manifest only,
// so it needs no live engine and never re-records.
func TestCurrent(t *testing.T) {
	plans := recordings.Plans(compare.Models)
	list := recordings.List()
	if len(list) != len(plans) {
		t.Errorf("%d recordings, %d planned: %s", len(list), len(plans), rerecord)
	}
	for _, p := range plans {
		ent, ok := recordings.Lookup(p.Name)
		if !ok {
			t.Errorf("%s: no recording: %s", p.Name, rerecord)
			continue
		}
		sc, err := p.Load()
		if err != nil {
			t.Fatal(err)
		}
		src, _ := p.Source()
		want := recordings.Entry{Name: p.Name, Scenario: p.Scenario, Model: string(sc.Model), Duration: sc.Duration,
			Source: recordings.Fingerprint(src), Events: ent.Events}
		if p.Model != "" {
			want.Model = p.Model
		}
		if p.Duration != 0 {
			want.Duration = p.Duration
		}
		if ent != want {
			t.Errorf("%s is stale: recorded %+v, now %+v: %s", p.Name, ent, want, rerecord)
		}
		h := header(t, p.Name)
		if h.Engine != reactor.EngineVersion || h.Scenario != p.Scenario || h.Model != want.Model {
			t.Errorf("%s: header engine %d, %s/%s; want engine %d, %s/%s: %s",
				p.Name, h.Engine, h.Scenario, h.Model, reactor.EngineVersion, p.Scenario, want.Model, rerecord)
		}
	}
}

func header(t *testing.T, name string) jsonl.Header {
	t.Helper()
	rc, err := recordings.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rd, err := jsonl.NewReader(rc, name)
	if err != nil {
		t.Fatal(err)
	}
	return rd.Header()
}

// Every recording reads back whole, with as many events as the manifest
// says, and meets what its scenario expects of a trace.
func TestRecordingsReplay(t *testing.T) {
	for _, ent := range recordings.List() {
		t.Run(ent.Name, func(t *testing.T) {
			rc, err := recordings.Open(ent.Name)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			s, tally, err := sim.ReplayFrom(rc, ent.Name)
			if err != nil {
				t.Fatal(err)
			}
			if tally.Events != ent.Events || s.Events.Dropped != 0 {
				t.Errorf("%d events (%d dropped), manifest %d", tally.Events, s.Events.Dropped, ent.Events)
			}
			if s.Failed() > 0 {
				t.Errorf("%d expectation(s) failed:\n%s", s.Failed(), s.Text())
			}
		})
	}
}

// sizeBudget is what the recordings may add to the binary; the README
// gives the figure. Raising it is a decision, not a side effect.
const sizeBudget = 12 << 20

func TestSizeBudget(t *testing.T) {
	var total int64
	for _, ent := range recordings.List() {
		n, ok := recordings.CompressedSize(ent.Name)
		if !ok {
			t.Fatalf("%s: not embedded", ent.Name)
		}
		total += n
	}
	if total > sizeBudget {
		t.Fatalf("recordings take %d bytes, budget %d: cap the new ones' duration in recordings.go", total, sizeBudget)
	}
}

func TestUnknownRecording(t *testing.T) {
	if _, err := recordings.Open("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("got %v", err)
	}
	if _, err := recordings.Open("../recordings"); err == nil {
		t.Fatal("a path opened")
	}
}

func TestManifestRoundTrip(t *testing.T) {
	var b strings.Builder
	if err := recordings.WriteManifest(&b, recordings.List()); err != nil {
		t.Fatal(err)
	}
	back, err := recordings.ParseManifest(strings.NewReader(b.String()))
	if err != nil || len(back) != len(recordings.List()) {
		t.Fatalf("%v, %d entries", err, len(back))
	}
	if _, err := recordings.ParseManifest(strings.NewReader("a b c notaduration sha 1\n")); err == nil ||
		!strings.Contains(err.Error(), "manifest.txt:1:") {
		t.Fatalf("bad duration: %v", err)
	}
}

// TestFingerprintIgnoresText checks that comments and the text-only fields
// leave the fingerprint alone and anything that runs changes it.
func TestFingerprintIgnoresText(t *testing.T) {
	base := recordings.Fingerprint([]byte("name: a\nworkers: 2\n"))
	same := []string{
		"# a comment\nname: a\nworkers: 2 # two\n",
		"name: a\nsummary: s\nnotes: n\nconcepts: [C1]\nwatch:\n  - {text: x}\nworkers: 2\n",
	}
	for _, src := range same {
		if got := recordings.Fingerprint([]byte(src)); got != base {
			t.Errorf("%q: fingerprint %s, want %s", src, got, base)
		}
	}
	if got := recordings.Fingerprint([]byte("name: a\nworkers: 3\n")); got == base {
		t.Error("changing workers left the fingerprint alone")
	}
}
