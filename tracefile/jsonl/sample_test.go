package jsonl

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// A run's samples come back from a trace as they were written, in their
// place among the events: every loop's counters (those no event records
// too), gate and histogram, the clients, the wheel's slots, the actions
// fired, a histogram written as the buckets that grew since the last.
func TestSamplesRoundTrip(t *testing.T) {
	loops := []trace.LoopInfo{{Name: "boss-0", Group: "boss"}, {Name: "worker-0", Group: "worker"}}
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Scenario: "tour", Model: "multi", Started: time.Unix(0, 0).UTC(), Loops: loops}, Options{})
	first := &sample.Sample{Time: 100, Reason: sample.Tick, Elapsed: 90, Active: 90,
		Loops: []sample.Loop{
			{Index: 0, TID: 7, State: trace.StateStarted, Stats: counters.Stats{Iterations: 3, EpollCtl: 2}, IORatio: 50,
				Gate: sample.Gate{Paused: true, Reason: "breakpoint: rebuild", Break: counters.BreakRebuild}},
			{Index: 1, TID: 8, State: trace.StateStarted, Stats: counters.Stats{Reads: 9, BytesRead: 640},
				Split: sample.Split{SelectNS: 5, IONS: 6, TaskNS: 7}, Clients: sample.Hist{N: 3, MaxNS: 90_000, Counts: []uint64{10, 2, 90, 1}}},
		},
		Clients: sample.Clients{Connections: 2, Requests: 3, Latency: sample.Hist{N: 3, MaxNS: 90_000, Counts: []uint64{10, 2, 90, 1}}},
		Wheel:   &sample.Wheel{Tick: 3, Cursor: 3, Slots: []int{0, 0, 4, 0}, Pending: 4, TickNS: 1e8, Ticks: 3},
		Fired:   []sample.Fired{{Action: 1, At: 80, Loops: []int{1}}}}
	second := &sample.Sample{Time: 300, Reason: sample.End, Elapsed: 290, Active: 290,
		Loops: []sample.Loop{
			{Index: 0, TID: 7, State: trace.StateTerminated, Stats: counters.Stats{Iterations: 4, EpollCtl: 2}},
			{Index: 1, TID: 8, State: trace.StateTerminated, Stats: counters.Stats{Reads: 12, BytesRead: 960},
				Clients: sample.Hist{N: 5, MaxNS: 120_000, Counts: []uint64{10, 3, 90, 1, 120, 1}}},
		},
		Clients: sample.Clients{Connections: 2, Requests: 5, Latency: sample.Hist{N: 5, MaxNS: 120_000, Counts: []uint64{10, 3, 90, 1, 120, 1}}}}
	w.Consume([]trace.Event{{Seq: 1, Time: 50, Loop: 0, Kind: trace.KindIOBegin}})
	w.ConsumeRecord(first)
	w.Consume([]trace.Event{{Seq: 2, Time: 200, Loop: 1, Kind: trace.KindIOBegin}})
	w.ConsumeRecord(second)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"delta":true`) {
		t.Errorf("the second sample's histograms are written whole:\n%s", buf.String())
	}
	tr, err := ReadAll(&buf, "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 2 || len(tr.Samples) != 2 || tr.Samples[0].Events != 1 || tr.Samples[1].Events != 2 {
		t.Fatalf("%d events, samples %+v", len(tr.Events), tr.Samples)
	}
	for i, want := range []*sample.Sample{first, second} {
		if got := tr.Samples[i].Sample; !reflect.DeepEqual(got, want) {
			t.Errorf("sample %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
}

// A delta with nothing before it, a histogram whose counts do not add up,
// a sample of an unknown loop: each is refused with its line.
func TestSampleErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"sample_loop":"boss-0","state":"STARTED","stats":{},"clients":{"n":1,"b":[3,1],"delta":true}}`, "t.jsonl:2: sample of boss-0: clients: histogram delta without a histogram before it"},
		{`{"sample_loop":"boss-0","state":"STARTED","stats":{},"clients":{"n":2,"b":[3,1]}}`, "t.jsonl:2: sample of boss-0: clients: bad histogram"},
		{`{"sample_loop":"nope","state":"STARTED","stats":{}}`, `t.jsonl:2: sample of unknown loop "nope"`},
		{`{"sample":-1,"reason":"tick"}`, `t.jsonl:2: field "sample": want 0..`},
	} {
		in := hdrLine + "\n" + tc.line + "\n" + `{"end":0,"events":0,"emitted":0,"dropped":0}` + "\n"
		_, err := ReadAll(strings.NewReader(in), "t.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %s", tc.line, err, tc.want)
		}
	}
}
