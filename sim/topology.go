package sim

import (
	"cmp"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/wheel"
	"github.com/reactorviz/reactorviz/scenarios"
)

// loopConfig turns the scenario's loop settings into the engine's.
func loopConfig(sc *scenarios.Scenario, r *Run) reactor.Config {
	cfg := reactor.Config{
		IORatio:          sc.Loop.IORatio,
		QueueCapacity:    sc.Loop.TaskQueue,
		ReadBufferSize:   sc.Loop.ReadBuffer,
		TaskQuantum:      sc.Loop.TaskQuantum,
		Collector:        r.coll,
		RebuildThreshold: sc.Loop.RebuildThreshold,
	}
	if !sc.Loop.RebuildEnabled() {
		cfg.RebuildThreshold = -1 // below 3: disabled, as in Netty
	}
	switch sc.Loop.Selector {
	case scenarios.SelectorEpoll:
		cfg.Selector = reactor.SelectorEpoll
	case scenarios.SelectorIOUring:
		cfg.Selector = reactor.SelectorIOUring
	}
	// Netty 4.2 is level-triggered only (and a ring has no trigger); the
	// scenario warned about edge.
	if sc.Loop.Trigger == scenarios.TriggerEdge && sc.Netty != scenarios.Netty42 {
		cfg.Trigger = reactor.TriggerEdge
	}
	// The scenario parser accepts only the three names ParseFlavour knows.
	cfg.Netty, _ = reactor.ParseFlavour(string(sc.Netty))
	return cfg
}

// build creates the groups the scenario's model calls for (C2): single is
// one "reactor" group that accepts and does I/O; multi is boss(1) +
// workers; master-slave is boss(N) + workers. Engine-driven clients get a
// "client" group of their own. Loops start lazily, as in Netty.
func (r *Run) build() error {
	cfg := loopConfig(r.sc, r)
	for _, spec := range r.sc.Groups() {
		gcfg := cfg
		if spec.Name == scenarios.GroupClient && cfg.Selector == reactor.SelectorIOUring {
			// The engine's clients connect; a ring loop only serves accepted
			// channels, so the load side stays on the epoll transport.
			gcfg.Selector = reactor.SelectorEpoll
		}
		g, err := reactor.NewEventLoopGroup(spec.Name, spec.Size(), gcfg)
		if err != nil {
			return err
		}
		r.groups = append(r.groups, g)
		for _, l := range g.Loops() {
			r.loops = append(r.loops, l)
			r.byName[l.Name()] = l
			r.index[l] = len(r.loops) - 1
			r.faults[l] = &loopFaults{}
			r.answered[l] = &answeredCount{}
			if d := r.sc.Loop.SlowMotion; d > 0 {
				l.SetSlowMotion(d)
			}
		}
		switch {
		case spec.Name == scenarios.GroupClient:
			r.client = g
		case spec.Accepts && spec.IO:
			r.boss, r.worker = g, g
		case spec.Accepts:
			r.boss = g
		case spec.IO:
			r.worker = g
		}
	}
	if r.boss == nil || r.worker == nil {
		return fmt.Errorf("scenario %s: no accepting or no I/O group", r.sc.Name)
	}
	if err := autoScale(r.sc, r.worker); err != nil {
		return err
	}
	w, err := wheel.New(wheel.Config{Tick: r.sc.Wheel.Tick, TicksPerWheel: r.sc.Wheel.TicksPerWheel, Name: "wheel"},
		wheel.WithTrace(r.coll.AddLoop("wheel", "wheel"), r.coll.Switch(), r.coll.Clock()),
		wheel.WithClock(wheelClock{r.coll.Clock()}))
	if err != nil {
		return err
	}
	r.wheel = w
	return nil
}

// bind opens the server channels: one per port, or with SO_REUSEPORT one
// per boss loop on each port, each registered on the boss group's next loop.
func (r *Run) bind() error {
	init, err := r.childInit(string(r.sc.Server.Protocol))
	if err != nil {
		return err
	}
	boot := &reactor.ServerBootstrap{Boss: r.boss, Worker: r.worker, ChildInit: init,
		ReusePort: r.sc.Server.ReusePort, MaxConnections: cmp.Or(r.opts.MaxConnections, maxConnections)}
	perPort := 1
	if r.sc.Server.ReusePort {
		perPort = r.boss.Size()
	}
	base := r.sc.Server.Addr
	if r.opts.Addr != "" {
		base = r.opts.Addr
	}
	for p := 0; p < r.sc.Server.Ports; p++ {
		addr, err := portAddr(base, p)
		if err != nil {
			return err
		}
		chans, err := boot.BindN(addr, perPort)
		if err != nil {
			return fmt.Errorf("bind %s: %w", addr, err)
		}
		r.servers = append(r.servers, chans...)
	}
	return nil
}

// maxConnections caps each server channel's open children.
const maxConnections = 20_000

// portAddr is the address of port number p: the configured port plus p, or
// a kernel-chosen port when the configured one is 0.
func portAddr(base string, p int) (string, error) {
	host, port, err := net.SplitHostPort(base)
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return "", err
	}
	if n != 0 {
		n += p
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// Addrs returns the addresses the server channels listen on, one per port.
func (r *Run) Addrs() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range r.servers {
		a := s.Addr().String()
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// autoScale makes the I/O group scale as the scenario's autoscale block
// says (Netty 4.2's AutoScalingEventExecutorChooserFactory).
func autoScale(sc *scenarios.Scenario, g *reactor.EventLoopGroup) error {
	a := sc.AutoScale
	if a == nil {
		return nil
	}
	return g.AutoScale(reactor.AutoScale{
		MinThreads: min(a.Min, g.Size()), MaxThreads: g.Size(), Window: a.Window,
		ScaleDown: a.Down, ScaleUp: a.Up,
		MaxRampUp: a.Step, MaxRampDown: a.StepDown, Patience: a.Patience,
	})
}

// wheelClock is the run clock as the wheel's thread reads it: its ticks
// and deadlines are on the clock the events carry, and while the whole
// run is held the thread sleeps until the release instead of ticking.
type wheelClock struct{ c *trace.Clock }

func (w wheelClock) Now() time.Duration { return time.Duration(w.c.Now()) }

func (w wheelClock) Sleep(d time.Duration, wake <-chan struct{}) {
	if held := w.c.Held(); held != nil {
		select {
		case <-held:
		case <-wake:
		}
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	}
}
