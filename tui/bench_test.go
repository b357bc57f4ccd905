package tui

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/scenarios"
)

// eightLoops is a master-slave topology of eight loops and the wheel: the
// most a built-in draws.
var eightLoops = []trace.LoopInfo{
	{Name: "boss-0", Group: "boss"}, {Name: "boss-1", Group: "boss"},
	{Name: "worker-0", Group: "worker"}, {Name: "worker-1", Group: "worker"},
	{Name: "worker-2", Group: "worker"}, {Name: "worker-3", Group: "worker"},
	{Name: "worker-4", Group: "worker"}, {Name: "worker-5", Group: "worker"},
	{Name: "wheel", Group: "wheel"},
}

// floodBatch is what a 30 fps screen receives between two frames of a
// task flood: about 5 000 events (160 000 a second), spread over the eight
// loops, every iteration selecting a key and running tasks.
func floodBatch(from int64) []trace.Event {
	s := &script{table: eightLoops, now: from}
	for len(s.events) < 5000 {
		for _, l := range eightLoops[:8] {
			s.iteration(l.Name, 1, "task", "task", "task", "task")
		}
	}
	return s.events
}

// BenchmarkFrame builds and draws one live frame of eight loops during a
// flood, at 120×40 and 200×60, with the timeline on: the redraw path the
// ticker runs 30 times a second. It reports the build (model snapshot and
// Frame, refresh) and the draw (tview and the screen) at p50 and p99; the
// target is a p99 of the two together under 16 ms (docs/benchmarks.md).
func BenchmarkFrame(b *testing.B) {
	for _, size := range [][2]int{{120, 40}, {200, 60}} {
		b.Run(strconv.Itoa(size[0])+"x"+strconv.Itoa(size[1]), func(b *testing.B) {
			benchFrame(b, size[0], size[1])
		})
	}
}

func benchFrame(b *testing.B, w, h int) {
	var f *fakeSession
	hs := newHarness(b, w, h, func(o Options) error {
		return RunLive(func(sink trace.Sink) (Session, error) {
			f = newFakeSessionWith(b, "bench", scenarios.ModelMasterSlave, sink, eightLoops)
			return f, nil
		}, o)
	})
	defer func() { _ = hs.quit() }()
	hs.frame()
	now := int64(0)
	build := make([]time.Duration, 0, b.N)
	draw := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		batch := floodBatch(now)
		now = batch[len(batch)-1].Time
		f.feed(batch...)
		b.StartTimer()
		done := make(chan struct{})
		hs.sh.app.QueueUpdate(func() {
			t0 := time.Now()
			hs.sh.v.refresh()
			t1 := time.Now()
			hs.sh.app.ForceDraw()
			build, draw = append(build, t1.Sub(t0)), append(draw, time.Since(t1))
			close(done)
		})
		<-done
	}
	b.StopTimer()
	report(b, "build", build)
	report(b, "draw", draw)
}

// report adds the p50 and p99 of ds to the benchmark's line, in µs.
func report(b *testing.B, what string, ds []time.Duration) {
	slices.Sort(ds)
	at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))]) / 1e3 }
	b.ReportMetric(at(0.50), fmt.Sprintf("%s-p50-µs", what))
	b.ReportMetric(at(0.99), fmt.Sprintf("%s-p99-µs", what))
}
