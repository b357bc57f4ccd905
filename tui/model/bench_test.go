package model

import "testing"

// BenchmarkConsume is the collector's cost of feeding the live model.
func BenchmarkConsume(b *testing.B) {
	events := genTrace(1<<16, 5)
	m := New(testLoops)
	b.ResetTimer()
	for range b.N {
		for off := 0; off < len(events); off += 1024 {
			m.Consume(events[off : off+1024])
		}
	}
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
