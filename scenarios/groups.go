package scenarios

import (
	"path"
	"strconv"

	"github.com/reactorviz/reactorviz/reactor/netty"
)

// Group names. A loop is named after its group and its index: boss-0,
// worker-3, reactor-0, client-1. The run summary uses the
// same names.
const (
	GroupBoss    = "boss"
	GroupWorker  = "worker"
	GroupReactor = "reactor"
	GroupClient  = "client"
)

// Chooser names, as the run summary reports them (concept C4).
const (
	ChooserPowerOfTwo = netty.ChooserPowerOfTwo
	ChooserGeneric    = netty.ChooserGeneric
)

// minDefaultWorkers is how many worker loops workers: 0 is sure to give on
// any machine (2 × at least one CPU). Loop references are checked against it
// so a file validates the same everywhere.
const minDefaultWorkers = 2

// Group is one EventLoopGroup the scenario builds.
type Group struct {
	Name    string   // boss, worker, reactor or client
	Loops   []string // loop names in index order
	Accepts bool     // its loops bind server channels and accept
	IO      bool     // its loops carry connected channels
}

// Size is the number of loops in the group.
func (g Group) Size() int { return len(g.Loops) }

// Chooser is the chooser Netty picks for a group of this size: a bit mask
// when the size is a power of two, a modulo otherwise.
func (g Group) Chooser() string { return netty.Chooser(len(g.Loops)) }

// Groups returns the groups the scenario builds, resolving workers: 0 to
// 2 × the CPU count of this machine.
func (s *Scenario) Groups() []Group {
	return s.topology(2 * s.cpus)
}

// LoopNames returns every loop name, boss (or reactor) loops first.
func (s *Scenario) LoopNames() []string { return loopNames(s.Groups()) }

// loopNames lists the loops of groups in order.
func loopNames(groups []Group) []string {
	var names []string
	for _, g := range groups {
		names = append(names, g.Loops...)
	}
	return names
}

// MatchLoops returns the loops whose names match a pattern such as
// "worker-*", "boss-1" or "*" (path.Match syntax on the name).
func (s *Scenario) MatchLoops(pattern string) []string {
	return matchLoops(pattern, s.LoopNames())
}

func matchLoops(pattern string, names []string) []string {
	var out []string
	for _, n := range names {
		if ok, err := path.Match(pattern, n); err == nil && ok {
			out = append(out, n)
		}
	}
	return out
}

// topology builds the group list with workers: 0 resolved to
// defaultWorkers. Validation passes minDefaultWorkers, Groups the real value.
func (s *Scenario) topology(defaultWorkers int) []Group {
	workers := s.Workers
	if workers == 0 {
		workers = max(defaultWorkers, 1)
	}
	var gs []Group
	switch s.Model {
	case ModelSingle:
		gs = append(gs, newGroup(GroupReactor, 1, true, true))
	case ModelMasterSlave:
		gs = append(gs, newGroup(GroupBoss, s.Bosses, true, false), newGroup(GroupWorker, workers, false, true))
	default:
		gs = append(gs, newGroup(GroupBoss, 1, true, false), newGroup(GroupWorker, workers, false, true))
	}
	if s.usesEngineClients() {
		gs = append(gs, newGroup(GroupClient, s.ClientLoops, false, true))
	}
	return gs
}

func (s *Scenario) usesEngineClients() bool {
	for _, c := range s.Clients {
		if c.Via == ViaEngine {
			return true
		}
	}
	return false
}

func newGroup(name string, size int, accepts, io bool) Group {
	g := Group{Name: name, Accepts: accepts, IO: io}
	for i := 0; i < size; i++ {
		g.Loops = append(g.Loops, name+"-"+strconv.Itoa(i))
	}
	return g
}
