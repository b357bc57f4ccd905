package compare

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim"
	"github.com/reactorviz/reactorviz/tracefile/chrome"
)

// Options adjusts a comparison.
type Options struct {
	// ChromePath, if set, records one Chrome/Perfetto trace with one
	// process (pid) per model.
	ChromePath string
}

// Run runs sc under each model in turn, so the runs do not compete for
// the CPU and their numbers are comparable.
func Run(sc *scenarios.Scenario, models []string, o Options) (*Comparison, error) {
	runs, err := compareAll(sc, modelAxis, models, o, ForModel)
	if err != nil {
		return nil, err
	}
	return Judge(sc, runs), nil
}

// RunFlavours runs sc under each loop design in turn, as Run does
// for models: the same model, workload and settings, only netty differs.
func RunFlavours(sc *scenarios.Scenario, flavours []string, o Options) (*Comparison, error) {
	runs, err := compareAll(sc, nettyAxis, flavours, o, ForNetty)
	if err != nil {
		return nil, err
	}
	return JudgeFlavours(sc, runs), nil
}

// RunTransports runs sc with each transport in turn.
func RunTransports(sc *scenarios.Scenario, transports []string, o Options) (*TransportComparison, error) {
	runs, err := compareAll(sc, transportAxis, transports, o, TransportsFor(transports))
	if err != nil {
		return nil, err
	}
	return JudgeTransports(sc, transports, runs), nil
}

// ForModel returns a copy of sc set to model, validated like --set. The
// copy has no expectations: they name loops (boss-0, reactor-0) that
// another model does not build.
func ForModel(sc *scenarios.Scenario, model string) (*scenarios.Scenario, error) {
	return sc.ForModel(scenarios.Model(model))
}

// ForNetty is sc under the loop design f, validated like --set.
func ForNetty(sc *scenarios.Scenario, f string) (*scenarios.Scenario, error) {
	return sc.ForNetty(scenarios.Netty(f))
}

// TransportsFor returns how a comparison of transports derives each run
// from the scenario: its selector set to the transport and its
// expectations dropped (they were written for one transport). With
// io_uring in the list every run is Netty 4.2's, since only 4.2 has it;
// without, each keeps the scenario's design, and under 4.1 and 4.1.43 each
// runs in Netty's default mode for the transport: NIO level-triggered (the
// JDK's selector has no other), epoll edge-triggered
// (EpollChannelOption.EPOLL_MODE defaults to EDGE_TRIGGERED), so nio
// against epoll is level against edge. 4.2's epoll is level-triggered
// only.
func TransportsFor(transports []string) func(*scenarios.Scenario, string) (*scenarios.Scenario, error) {
	ring := slices.Contains(transports, string(scenarios.SelectorIOUring))
	return func(sc *scenarios.Scenario, t string) (*scenarios.Scenario, error) {
		n := sc.Netty
		if ring {
			n = scenarios.Netty42
		}
		c, err := sc.ForNetty(n)
		if err != nil {
			return nil, err
		}
		if err := c.Set("loop.selector", t); err != nil {
			return nil, err
		}
		if n == scenarios.Netty42 {
			return c, nil
		}
		trigger := scenarios.TriggerLevel
		if t == string(scenarios.SelectorEpoll) {
			trigger = scenarios.TriggerEdge
		}
		if err := c.Set("loop.trigger", string(trigger)); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// axis is what a comparison varies: its name, for messages, and whether
// its runs count the design figures from their events (loop designs and
// transports differ in them; models do not).
type axis struct {
	name        string
	countDesign bool
}

var (
	modelAxis     = axis{name: "model"}
	nettyAxis     = axis{name: "netty", countDesign: true}
	transportAxis = axis{name: "transport", countDesign: true}
)

// compareAll runs sc under each variant in turn (a model, a loop design,
// a transport), derived from sc by derive, with one Chrome export of all
// of them when asked for.
func compareAll(sc *scenarios.Scenario, what axis, variants []string, o Options,
	derive func(*scenarios.Scenario, string) (*scenarios.Scenario, error)) (runs []*sim.Summary, err error) {
	var x *chrome.Exporter
	if o.ChromePath != "" {
		f, err := os.OpenFile(o.ChromePath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, err
		}
		x = chrome.New(f, chrome.Options{})
		defer func() { err = errors.Join(err, x.Close(), f.Close()) }()
	}
	for i, v := range variants {
		s, err := compareOne(sc, what, v, i+1, x, derive)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what.name, v, err)
		}
		runs = append(runs, s)
	}
	return runs, nil
}

func compareOne(sc *scenarios.Scenario, what axis, variant string, pid int, x *chrome.Exporter,
	derive func(*scenarios.Scenario, string) (*scenarios.Scenario, error)) (*sim.Summary, error) {
	msc, err := derive(sc, variant)
	if err != nil {
		return nil, err
	}
	r, err := sim.New(msc, sim.Options{})
	if err != nil {
		return nil, err
	}
	if x != nil {
		p, err := x.AddProcess(pid, variant, r.Collector())
		if err != nil {
			r.Discard()
			return nil, err
		}
		r.Collector().AddSink(p)
	}
	if what.countDesign {
		r.CountDesign()
	}
	return r.Wait()
}
