package jsonl

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// benchBatch is a loop iteration's worth of typical events, repeated.
func benchBatch(n int) []trace.Event {
	mix := []trace.Event{
		{Kind: trace.KindSelectBegin, A: 1_000_000_000, Str: "select"},
		{Kind: trace.KindSelectEnd, A: 1, B: 48_213, C: 1},
		{Kind: trace.KindIOBegin},
		{Kind: trace.KindRead, A: 17, B: 23, C: 64},
		{Kind: trace.KindWrite, A: 17, B: 23, C: 64},
		{Kind: trace.KindIOEnd, A: 1, B: 9_120},
		{Kind: trace.KindTasksBegin, A: 3, B: 9_120},
		{Kind: trace.KindTaskRun, A: 812, B: 2_300, Str: "register"},
		{Kind: trace.KindTasksEnd, A: 3, B: 7_000},
		{Kind: trace.KindState, A: 1, B: 2},
	}
	out := make([]trace.Event, n)
	for i := range out {
		out[i] = mix[i%len(mix)]
		out[i].Seq = uint64(i + 1)
		out[i].Time = int64(i) * 731
		out[i].Loop = uint16(i % 3)
	}
	return out
}

func BenchmarkWriter(b *testing.B) {
	batch := benchBatch(512)
	w := NewWriter(io.Discard, Header{Scenario: "bench", Started: time.Unix(0, 0), Loops: threeLoops}, Options{})
	w.Consume(batch[:1]) // header and loop keys out of the way
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Consume(batch)
	}
	b.StopTimer()
	events := float64(b.N) * float64(len(batch))
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Scenario: "bench", Loops: threeLoops}, Options{})
	batch := benchBatch(4096)
	w.Consume(batch)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd, err := NewReader(bytes.NewReader(data), "bench.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rd.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/event")
}
