package model

import (
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// BenchmarkConsume is the collector's cost of feeding the live model, in
// batches of 1024 events, and the events it folds per second: the target
// is 5 million a second on one core (docs/benchmarks.md).
func BenchmarkConsume(b *testing.B) {
	events := genTrace(1<<16, 5)
	m := New(testLoops)
	b.ResetTimer()
	for range b.N {
		for off := 0; off < len(events); off += 1024 {
			m.Consume(events[off : off+1024])
		}
	}
	b.ReportMetric(float64(b.N*len(events))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSnapshot is one frame's read of the model.
func BenchmarkSnapshot(b *testing.B) {
	m := New(testLoops)
	m.Consume(genTrace(100_000, 5))
	q := Query{Focus: 1, Head: 8, Log: 120, Filter: ParseFilter("worker")}
	b.ResetTimer()
	for range b.N {
		m.Snapshot(q)
	}
}

// BenchmarkReplayStepBack steps one event back at a time through a
// million-event trace: each step restores a checkpoint and refolds.
func BenchmarkReplayStepBack(b *testing.B) {
	events := genTrace(1_000_000, 9)
	r := NewReplay(testLoops, events, 0)
	r.Seek(len(events))
	b.ResetTimer()
	for range b.N {
		n := r.Pos() - 1
		if n < 0 {
			n = len(events)
		}
		r.Seek(n)
	}
}

// BenchmarkReplayBuild is opening a million-event trace.
func BenchmarkReplayBuild(b *testing.B) {
	events := genTrace(1_000_000, 9)
	b.ResetTimer()
	for range b.N {
		NewReplay(testLoops, events, 0)
	}
}

// BenchmarkSnapshotTimeline is one frame's read with the lanes of a
// 120-column screen and the loops' last-second split: the collector
// waits for it, the loops do not.
func BenchmarkSnapshotTimeline(b *testing.B) {
	m := New(testLoops)
	m.Consume(iterations(100_000))
	q := Query{Focus: 1, Head: 8, Log: 120, Filter: ParseFilter("worker"),
		Timeline: TimelineQuery{Cols: 109, Span: 1e9, Split: true}}
	b.ResetTimer()
	for range b.N {
		m.Snapshot(q)
	}
}

// iterations is a trace of loops turning: select, I/O, a few tasks.
func iterations(n int) []trace.Event {
	out := make([]trace.Event, 0, n)
	var tm int64
	add := func(loop uint16, k trace.Kind, dt int64) {
		tm += dt
		out = append(out, trace.Event{Seq: uint64(len(out) + 1), Time: tm, Loop: loop, Kind: k, B: 500})
	}
	for i := 0; len(out) < n; i++ {
		loop := uint16(i % 3)
		add(loop, trace.KindSelectBegin, 1_000)
		add(loop, trace.KindSelectEnd, 50_000)
		add(loop, trace.KindIOBegin, 0)
		add(loop, trace.KindIOEnd, 5_000)
		add(loop, trace.KindTasksBegin, 0)
		for range 3 {
			add(loop, trace.KindTaskRun, 2_000)
		}
		add(loop, trace.KindTasksEnd, 0)
	}
	return out
}

// BenchmarkReplayPlayFrame is one frame of a playing replay: the cursor
// moves forward by a frame's worth of events and the screen takes its
// snapshot with the lanes of a 120-column screen over one second. It
// reports how many events the timeline folded per frame.
func BenchmarkReplayPlayFrame(b *testing.B) {
	events := iterations(1_000_000)
	r := NewReplay(testLoops, events, 0)
	q := Query{Focus: -1, Timeline: TimelineQuery{Cols: 109, Span: 1e9, Split: true}}
	const perFrame = 500
	r.Seek(len(events) / 2)
	r.Snapshot(q)
	folded := r.tlFolded
	b.ResetTimer()
	for range b.N {
		n := r.Pos() + perFrame
		if n > len(events) {
			n = len(events) / 2
			r.Seek(n)
			r.Snapshot(q)
		}
		r.Seek(n)
		r.Snapshot(q)
	}
	b.ReportMetric(float64(r.tlFolded-folded)/float64(b.N), "folded/frame")
}

// BenchmarkReplayStepBackFrame steps one event back at a time, each step
// drawn with the lanes: the timeline comes back from its checkpoint.
func BenchmarkReplayStepBackFrame(b *testing.B) {
	events := iterations(1_000_000)
	r := NewReplay(testLoops, events, 0)
	q := Query{Focus: -1, Timeline: TimelineQuery{Cols: 109, Span: 1e9, Split: true}}
	r.Seek(len(events))
	r.Snapshot(q)
	folded := r.tlFolded
	b.ResetTimer()
	for range b.N {
		n := r.Pos() - 1
		if n < 0 {
			n = len(events)
		}
		r.Seek(n)
		r.Snapshot(q)
	}
	b.ReportMetric(float64(r.tlFolded-folded)/float64(b.N), "folded/frame")
}

// serveTrace is n events of a worker answering HTTP under wrk: each
// iteration selects two ready channels, reads and writes each.
func serveTrace(n int) []trace.Event {
	out := make([]trace.Event, 0, n+16)
	var tm int64
	ch := int64(0)
	for len(out) < n {
		add := func(k trace.Kind, a, b, c int64) {
			tm += 700
			out = append(out, trace.Event{Time: tm, Loop: 1, Kind: k, A: a, B: b, C: c})
		}
		add(trace.KindSelectBegin, 1e9, 0, 0)
		add(trace.KindSelectEnd, 2, 5000, 1)
		add(trace.KindIOBegin, 0, 0, 0)
		for range 2 {
			ch = (ch + 1) % 64
			add(trace.KindRead, ch, ch+11, 41)
			add(trace.KindWrite, ch, ch+11, 78)
		}
		add(trace.KindIOEnd, 2, 6000, 0)
	}
	return out[:n]
}

// BenchmarkConsumeServe is BenchmarkConsume on serve's events: the
// iteration's boundaries, reads and writes, with no task.
func BenchmarkConsumeServe(b *testing.B) {
	events := serveTrace(1 << 16)
	m := New(testLoops)
	b.ResetTimer()
	for range b.N {
		for off := 0; off < len(events); off += 1024 {
			m.Consume(events[off : off+1024])
		}
	}
	b.ReportMetric(float64(b.N*len(events))/b.Elapsed().Seconds(), "events/s")
}
