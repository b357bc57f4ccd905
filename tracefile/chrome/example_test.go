package chrome_test

import (
	"fmt"
	"os"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tracefile/chrome"
)

// A compare run gives each model its own process; each process is the sink
// of that model's collector.
func Example() {
	x := chrome.New(os.Stdout, chrome.Options{})
	for pid, model := range []string{"single", "multi"} {
		c := trace.NewCollector(trace.Options{})
		ring := c.AddLoop("worker-0", "worker")
		p, err := x.AddProcess(pid+1, model, c)
		if err != nil {
			fmt.Println(err)
			return
		}
		c.AddSink(p)
		ring.Put(trace.Event{Time: 1000, Kind: trace.KindIOBegin})
		ring.Put(trace.Event{Time: 2500, Kind: trace.KindIOEnd, A: 1, B: 1500})
		c.Flush()
	}
	if err := x.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"traceEvents":[
	// {"ph":"M","name":"process_name","pid":1,"ts":0,"args":{"name":"single"}},
	// {"ph":"M","name":"process_sort_index","pid":1,"ts":0,"args":{"sort_index":1}},
	// {"ph":"M","name":"thread_name","pid":1,"tid":100001,"ts":0,"args":{"name":"worker-0"}},
	// {"ph":"M","name":"thread_sort_index","pid":1,"tid":100001,"ts":0,"args":{"sort_index":0}},
	// {"ph":"X","name":"io","cat":"phase","pid":1,"tid":100001,"ts":1.000,"dur":1.500,"args":{"keys":1,"took_ns":1500}},
	// {"ph":"M","name":"process_name","pid":2,"ts":0,"args":{"name":"multi"}},
	// {"ph":"M","name":"process_sort_index","pid":2,"ts":0,"args":{"sort_index":2}},
	// {"ph":"M","name":"thread_name","pid":2,"tid":200001,"ts":0,"args":{"name":"worker-0"}},
	// {"ph":"M","name":"thread_sort_index","pid":2,"tid":200001,"ts":0,"args":{"sort_index":0}},
	// {"ph":"X","name":"io","cat":"phase","pid":2,"tid":200001,"ts":1.000,"dur":1.500,"args":{"keys":1,"took_ns":1500}}
	// ],"displayTimeUnit":"ns"}
}
