package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/protocol"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/jsonl"
	"github.com/reactorviz/reactorviz/scenarios"
)

// ServeOptions configures Serve.
type ServeOptions struct {
	Protocol string // echo, http or resp
	Model    string // single, multi or master-slave
	Bosses   int    // master-slave: boss loops, one SO_REUSEPORT server channel each
	Workers  int    // 0: 2 × CPUs
	Addr     string
	IORatio  int
	// MaxConnections caps open connections per server channel.
	MaxConnections int
	TracePath      string
	Sinks          []trace.Sink
}

// Server is the engine serving a protocol to outside clients.
type Server struct {
	opts    ServeOptions
	coll    *trace.Collector
	groups  []*reactor.EventLoopGroup
	loops   []*reactor.EventLoop
	servers []*reactor.ServerChannel
	closers []func() error
	started time.Time
}

// Serve builds the model's groups and binds the server channels.
func Serve(o ServeOptions) (*Server, error) {
	init, err := protocol.New(o.Protocol, 0)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, coll: trace.NewCollector(trace.Options{})}
	if err := s.attach(); err != nil {
		return nil, err
	}
	cfg := reactor.Config{IORatio: o.IORatio, Collector: s.coll}
	boss, worker, err := s.buildGroups(cfg)
	if err != nil {
		s.shutdown(0, time.Second)
		return nil, err
	}
	ensureProcs(len(s.loops))
	s.coll.Start()
	n, reuse := 1, false
	if o.Model == string(scenarios.ModelMasterSlave) && boss.Size() > 1 {
		n, reuse = boss.Size(), true
	}
	boot := &reactor.ServerBootstrap{Boss: boss, Worker: worker, ChildInit: init,
		ReusePort: reuse, MaxConnections: o.MaxConnections}
	if s.servers, err = boot.BindN(o.Addr, n); err != nil {
		s.shutdown(0, time.Second)
		return nil, err
	}
	s.started = time.Now()
	return s, nil
}

func (s *Server) buildGroups(cfg reactor.Config) (boss, worker *reactor.EventLoopGroup, err error) {
	add := func(name string, n int) (*reactor.EventLoopGroup, error) {
		g, err := reactor.NewEventLoopGroup(name, n, cfg)
		if err == nil {
			s.groups = append(s.groups, g)
			s.loops = append(s.loops, g.Loops()...)
		}
		return g, err
	}
	switch s.opts.Model {
	case string(scenarios.ModelSingle):
		boss, err = add(scenarios.GroupReactor, 1)
		return boss, boss, err
	case string(scenarios.ModelMulti), "":
		if boss, err = add(scenarios.GroupBoss, 1); err != nil {
			return nil, nil, err
		}
	case string(scenarios.ModelMasterSlave):
		if boss, err = add(scenarios.GroupBoss, max(s.opts.Bosses, 1)); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("unknown model %q", s.opts.Model)
	}
	worker, err = add(scenarios.GroupWorker, s.opts.Workers)
	return boss, worker, err
}

func (s *Server) attach() error {
	for _, k := range s.opts.Sinks {
		s.coll.AddSink(k)
	}
	if s.opts.TracePath == "" {
		return nil
	}
	f, err := create(s.opts.TracePath)
	if err != nil {
		return err
	}
	w := jsonl.NewWriter(f, jsonl.Header{Scenario: "serve", Model: s.opts.Model, Started: s.coll.Clock().Epoch()},
		jsonl.Options{Source: s.coll})
	s.coll.AddSink(w)
	s.closers = append(s.closers, w.Close, f.Close)
	return nil
}

// Addrs returns the bound addresses.
func (s *Server) Addrs() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range s.servers {
		if a := c.Addr().String(); !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// Loops returns the server's loops.
func (s *Server) Loops() []*reactor.EventLoop { return s.loops }

// Groups returns the server's groups.
func (s *Server) Groups() []*reactor.EventLoopGroup { return s.groups }

// Collector returns the server's event collector.
func (s *Server) Collector() *trace.Collector { return s.coll }

// Stop shuts the server down gracefully and returns its summary.
func (s *Server) Stop(quiet, timeout time.Duration) (*Summary, error) {
	err := s.shutdown(quiet, timeout)
	sum := &Summary{Scenario: "serve", Model: s.opts.Model, DurationNS: int64(time.Since(s.started))}
	for _, g := range s.groups {
		sum.Groups = append(sum.Groups, GroupSummary{Name: g.Name(), Size: g.Size(), Chooser: g.Chooser()})
	}
	for _, l := range s.loops {
		sum.Loops = append(sum.Loops, loopSummary(l))
		sum.loopNames = append(sum.loopNames, l.Name())
	}
	sum.Events.Emitted, sum.Events.Dropped = s.coll.Stats()
	sum.check(nil)
	return sum, err
}

func (s *Server) shutdown(quiet, timeout time.Duration) error {
	var err error
	for _, g := range s.groups {
		g.ShutdownGracefully(quiet, timeout)
	}
	for _, g := range s.groups {
		if !g.AwaitTermination(timeout + 5*time.Second) {
			err = errors.Join(err, fmt.Errorf("group %s did not terminate", g.Name()))
		}
	}
	s.coll.Stop()
	for _, c := range s.closers {
		err = errors.Join(err, c())
	}
	return err
}

// ServeScenario describes serve's topology as a scenario with no clients,
// so the TUI can show a serving engine like any run (with Options.Forever
// and Options.Addr).
func ServeScenario(o ServeOptions) (*scenarios.Scenario, error) {
	bosses := max(o.Bosses, 1)
	src := fmt.Sprintf(`name: serve
summary: The engine serving %s to outside clients.
model: %s
bosses: %d
workers: %d
duration: 10m
loop: {io_ratio: %d}
server: {protocol: %s, reuseport: %t}
`, o.Protocol, o.Model, bosses, o.Workers, o.IORatio, o.Protocol, o.Model == string(scenarios.ModelMasterSlave) && bosses > 1)
	return scenarios.Parse("serve", []byte(src))
}
