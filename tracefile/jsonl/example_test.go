package jsonl_test

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
)

// A run records its events through a Writer attached to the collector, and
// replay reads them back.
func Example() {
	c := trace.NewCollector(trace.Options{})
	ring := c.AddLoop("worker-0", "worker")

	var file bytes.Buffer
	w := jsonl.NewWriter(&file, jsonl.Header{Scenario: "tour", Model: "multi", Started: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)},
		jsonl.Options{Source: c})
	c.AddSink(w)
	ring.Put(trace.Event{Time: 1500, Kind: trace.KindSelectEnd, A: 0, B: 1200, C: 7, Flag: true})
	c.Flush()
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(file.String())

	rd, err := jsonl.NewReader(&file, "trace.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(rd.Loops()[ev.Loop].Name, ev.Kind, ev.C)
	}
	// Output:
	// {"format":"reactorviz-trace","version":2,"scenario":"tour","model":"multi","started":"2026-01-02T15:04:05Z","loops":[{"name":"worker-0","group":"worker"}]}
	// {"seq":1,"t":1500,"loop":"worker-0","kind":"select_end","ready":0,"took_ns":1200,"select_cnt":7,"premature":true}
	// {"end":1500,"events":1,"emitted":1,"dropped":0}
	// worker-0 select_end 7
}
