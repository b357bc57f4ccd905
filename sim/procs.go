package sim

import "runtime"

// ensureProcs raises GOMAXPROCS so that loops asleep in epoll_wait cannot
// starve the rest of the process. A loop goroutine is locked to its thread
// and blocks in a system call while it holds a P; with fewer Ps than loops,
// clients and the collector would wait for the runtime to take a P back
// (up to 10 ms), which a learner would mistake for the engine's latency.
// Netty's loops are plain kernel threads, scheduled by the kernel whatever
// their number: one P per loop, plus the CPUs for everything else, gives
// the same picture. It never lowers the setting.
func ensureProcs(loops int) {
	want := loops + runtime.NumCPU()
	if runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}
