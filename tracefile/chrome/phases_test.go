package chrome

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/phases"
)

// The exporter's phase slices are the span fold's spans, the ones the UI's
// timeline draws: on loops whose events were lost at random (ends without
// begins, begins without ends, terminations in the middle of a phase),
// each select, io and tasks slice is a span the fold closed, with the same
// times and "unterminated" exactly when the fold cut it; a span still open
// at the end closes at the last timestamp.
func TestPhaseSlicesAreTheSpanFold(t *testing.T) {
	type span struct {
		phase      string
		start, end int64
		cut        bool
	}
	names := map[trace.Phase]string{trace.PhaseSelect: "select", trace.PhaseIO: "io", trace.PhaseTasks: "tasks"}
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 19))
		evs := lossyIterations(r, 400)
		var want []span
		var cur phases.Cursor
		for i := range evs {
			if st := cur.Apply(&evs[i], "worker-0"); st.Closed {
				want = append(want, span{names[st.Span.Phase], st.Span.Start, st.Span.End, st.Span.Cut})
			}
		}
		if p, since := cur.Open(); p != trace.PhaseNone {
			want = append(want, span{names[p], since, evs[len(evs)-1].Time, true})
		}
		var buf bytes.Buffer
		if err := Export(&buf, "lossy", loops, evs); err != nil {
			t.Fatal(err)
		}
		var got []span
		for _, e := range check(t, buf.Bytes()).TraceEvents {
			if e.Ph == "X" && e.Cat == "phase" && *e.Tid == 100000+worker0+1 {
				got = append(got, span{e.Name, ns(*e.Ts), ns(*e.Ts) + ns(*e.Dur), e.Args["unterminated"] == true})
			}
		}
		slices.SortFunc(got, func(a, b span) int { return int(a.start - b.start) })
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: slices\n got %v\nwant %v", seed, got, want)
		}
	}
}

// lossyIterations is worker-0 turning n times, each event kept with
// probability 0.85, times strictly increasing, and now and then a
// termination, as a loop's ring that overflowed delivers it.
func lossyIterations(r *rand.Rand, n int) []trace.Event {
	kinds := []trace.Kind{trace.KindSelectBegin, trace.KindSelectEnd, trace.KindIOBegin, trace.KindIOEnd,
		trace.KindTasksBegin, trace.KindTaskRun, trace.KindTasksEnd}
	var out []trace.Event
	tm := int64(0)
	for range n {
		for _, k := range kinds {
			tm += 1 + r.Int64N(1000)
			if r.IntN(100) < 85 {
				e := trace.Event{Time: tm, Loop: worker0, Kind: k}
				if k == trace.KindSelectBegin {
					e.Str = "select"
				}
				out = append(out, e)
			}
			if r.IntN(300) == 0 {
				tm++
				out = append(out, trace.Event{Time: tm, Loop: worker0, Kind: trace.KindState, B: int64(trace.StateTerminated)})
			}
		}
	}
	return out
}
