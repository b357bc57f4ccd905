package sim

import (
	"cmp"
	"fmt"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
)

// ServeOptions configures serve: the engine serving a protocol to outside
// clients.
type ServeOptions struct {
	Protocol string // echo, http, resp or http+resp
	Model    string // single, multi or master-slave
	Bosses   int    // master-slave: boss loops, one SO_REUSEPORT server channel each
	Workers  int    // 0: 2 × CPUs
	Addr     string
	IORatio  int
	// MaxConnections caps open connections per server channel.
	MaxConnections int
	TracePath      string
	// Transport is nio (the default), epoll, or io_uring, which runs the
	// Netty 4.2 loop design with IoUringIoHandler.
	Transport string
}

// Transports are serve's --transport values.
var Transports = []string{"nio", "epoll", "io_uring"}

// ServeScenario describes serve's topology as a scenario with no clients,
// so that serving is a run like any other, headless or in the TUI.
func ServeScenario(o ServeOptions) (*scenarios.Scenario, error) {
	bosses := max(o.Bosses, 1)
	model := cmp.Or(o.Model, string(scenarios.ModelMulti))
	netty, loop := "", fmt.Sprintf("io_ratio: %d, ", cmp.Or(o.IORatio, reactor.DefaultIORatio))
	if o.Transport == "io_uring" {
		// IoUringIoHandler exists in 4.2 only, whose loop has no ioRatio.
		netty, loop = "netty: \"4.2\"\n", ""
	}
	src := fmt.Sprintf(`name: serve
summary: The engine serving %s to outside clients.
model: %s
bosses: %d
workers: %d
duration: 10m
%sloop: {%sselector: %s}
server: {protocol: %s, reuseport: %t}
shutdown: {quiet: 100ms, timeout: 5s}
`, o.Protocol, model, bosses, o.Workers, netty, loop, cmp.Or(o.Transport, "nio"), o.Protocol, model == string(scenarios.ModelMasterSlave) && bosses > 1)
	return scenarios.Parse("serve", []byte(src))
}

// ServeRunOptions are the run options serve needs: it runs until stopped,
// on the address, trace file and connection cap the user gave.
func ServeRunOptions(o ServeOptions) Options {
	return Options{Forever: true, Addr: o.Addr, TracePath: o.TracePath, MaxConnections: o.MaxConnections}
}
