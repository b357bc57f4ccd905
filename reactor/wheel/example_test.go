package wheel_test

import (
	"fmt"
	"time"

	"github.com/reactorviz/reactorviz/reactor/wheel"
)

// An idle check fires on the wheel thread at the end of the tick that
// contains its deadline; the one still pending when the timer stops is
// returned, cancelled.
func Example() {
	tm, err := wheel.New(wheel.Config{Tick: time.Millisecond, TicksPerWheel: 64})
	if err != nil {
		fmt.Println(err)
		return
	}
	fired := make(chan string, 1)
	if _, err := tm.NewTimeout("idle-check", 5*time.Millisecond, func() { fired <- "idle-check fired" }); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := tm.NewTimeout("connect-timeout", time.Hour, func() {}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-fired)
	left, _ := tm.Stop()
	for _, to := range left {
		fmt.Println(to.Name(), "cancelled:", to.Cancelled())
	}
	// Output:
	// idle-check fired
	// connect-timeout cancelled: true
}
