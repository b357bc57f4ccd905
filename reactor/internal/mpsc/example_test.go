package mpsc_test

import (
	"fmt"
	"sync"

	"github.com/reactorviz/reactorviz/reactor/internal/mpsc"
)

// A loop's task queue: other goroutines offer tasks, the loop alone polls
// and runs them one after another.
func Example() {
	type task struct {
		name string
		run  func()
	}
	q := mpsc.New[task](0)

	var wg sync.WaitGroup
	wg.Go(func() { q.Offer(task{name: "register", run: func() { fmt.Println("registered") }}) })
	wg.Wait()

	for !q.IsEmpty() {
		t, _ := q.Poll()
		fmt.Println("running", t.name)
		t.run()
	}
	// Output:
	// running register
	// registered
}
