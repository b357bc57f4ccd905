package scenarios_test

import (
	"fmt"

	"github.com/reactorviz/reactorviz/scenarios"
)

func ExampleParse() {
	src := []byte(`name: demo
workers: 2
loop: {io_ratio: 0}
expect:
  - worker-3.rebuilds >= 1
`)
	_, err := scenarios.Parse("demo.yaml", src)
	fmt.Println(err)
	// Output:
	// demo.yaml:3:18: io_ratio must be 1..100, got 0
	// demo.yaml:5:5: unknown loop worker-3: workers is 2, so the worker loops are worker-0..worker-1
}

func ExampleScenario_Set() {
	s, err := scenarios.Load("boss-idle")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Set("loop.io_ratio", "0"))
	if err := s.Set("server.reuseport", "true"); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range s.Expect {
		fmt.Println(e)
	}
	// Output:
	// --set loop.io_ratio=0: io_ratio must be 1..100, got 0
	// sum(boss-*.accepted) == 32
	// boss-*.accepted > 0
}

// summary is a stand-in for the simulation's run summary.
type summary map[string]scenarios.Value

func (s summary) Lookup(path string) (scenarios.Value, bool) { v, ok := s[path]; return v, ok }
func (s summary) Loops() []string                            { return []string{"worker-0", "worker-1"} }

func ExampleExpect_Eval() {
	e, err := scenarios.ParseExpect("worker-*.rebuilds == 0")
	if err != nil {
		fmt.Println(err)
		return
	}
	run := summary{"worker-0.rebuilds": scenarios.IntValue(0), "worker-1.rebuilds": scenarios.IntValue(2)}
	res := e.Eval(run)
	fmt.Println(res.OK, res.Reason)
	// Output:
	// false worker-1.rebuilds is 2, want == 0
}
