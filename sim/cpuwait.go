package sim

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// threadCPU is what the kernel's scheduler says of one thread
// (/proc/self/task/TID/schedstat: time on a CPU, time waiting on a run
// queue, timeslices): the CPU its own work took, which the load of the
// rest of the machine does not change, and how long it was ready to run
// but waited for a CPU, which is all that load changes. A loop that waited
// long was not slow by its model: other work on the machine held the cores.
type threadCPU struct {
	RunNS  int64 // on a CPU
	WaitNS int64 // ready, waiting on a run queue
}

// schedStat reads a thread's scheduler statistics; ok is false where the
// kernel keeps none or the thread is not this process's.
func schedStat(tid int) (c threadCPU, ok bool) {
	if tid <= 0 {
		return threadCPU{}, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/schedstat", tid))
	if err != nil {
		return threadCPU{}, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return threadCPU{}, false
	}
	run, err1 := strconv.ParseInt(f[0], 10, 64)
	wait, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return threadCPU{}, false
	}
	return threadCPU{RunNS: run, WaitNS: wait}, true
}

// sampleCPU reads every started loop's scheduler statistics, by loop
// name. Read when the load stops, before the loops' threads end.
func (r *Run) sampleCPU() map[string]threadCPU {
	out := map[string]threadCPU{}
	for _, l := range r.loops {
		if c, ok := schedStat(l.TID()); ok {
			out[l.Name()] = c
		}
	}
	return out
}

// cpuTicks is the machine's busy CPU time and this process's, in clock
// ticks, from /proc/stat and /proc/self/stat. Their difference over a run
// is what other processes used: the work a comparison must not mistake for
// a model's. ok is false where /proc does not say.
type cpuTicks struct {
	machine, self int64
	ok            bool
}

func readCPUTicks() cpuTicks {
	all, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTicks{}
	}
	line, _, _ := strings.Cut(string(all), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTicks{}
	}
	// user nice system idle iowait irq softirq steal: all but idle and
	// iowait are time a CPU was taken.
	machine, ok := sumTicks(append(f[1:4:4], f[6:9]...))
	if !ok {
		return cpuTicks{}
	}
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return cpuTicks{}
	}
	// The command may hold spaces: count fields after its closing paren.
	s := string(self)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	sf := strings.Fields(s)
	if len(sf) < 13 {
		return cpuTicks{}
	}
	own, ok := sumTicks(sf[11:13]) // utime, stime
	return cpuTicks{machine: machine, self: own, ok: ok}
}

// sumTicks adds up the tick counts of fields; ok is false if one is not a
// number.
func sumTicks(fields []string) (sum int64, ok bool) {
	for _, v := range fields {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, false
		}
		sum += n
	}
	return sum, true
}

// otherShare is the share (%) of the machine's CPUs that other processes
// used between from and to, over wall; -1 when unknown.
func otherShare(from, to cpuTicks, wall time.Duration) float64 {
	if !from.ok || !to.ok || wall <= 0 {
		return -1
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	other := (to.machine - from.machine) - (to.self - from.self)
	capacity := float64(wall) * float64(runtime.NumCPU()) / float64(tick)
	return math.Round(min(100, max(0, 100*float64(other)/capacity)))
}
