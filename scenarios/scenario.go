package scenarios

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// Model is the Reactor model a scenario builds (seed 001, concept C2).
type Model string

// The three Reactor models.
const (
	// ModelSingle is one loop that binds, accepts and does all I/O: Netty's
	// ServerBootstrap.group(g) with a group of one thread.
	ModelSingle Model = "single"
	// ModelMulti is one accepting loop (boss-0) handing connections to a
	// worker group: group(boss(1), workers).
	ModelMulti Model = "multi"
	// ModelMasterSlave is a boss group of several loops (the main reactors)
	// and a worker group (the sub reactors).
	ModelMasterSlave Model = "master-slave"
)

// Selector chooses how ready events are reported (docs/scenarios.md, "loop").
type Selector string

// Netty is the Netty loop design a scenario runs (docs/netty-versions.md).
type Netty string

// Loop designs: Netty 4.1.43's NioEventLoop (the default), the latest 4.1
// (nextWakeupNanos, 4.1.44+) and 4.2's SingleThreadIoEventLoop with an
// IoHandler and a task quantum.
const (
	Netty4143 Netty = "4.1.43"
	Netty41   Netty = "4.1"
	Netty42   Netty = "4.2"
)

// Selector semantics.
const (
	// SelectorNIO masks ready events with the interest set, as the JDK
	// does, so HUP/ERR on a channel with interest 0 spins select.
	SelectorNIO Selector = "nio"
	// SelectorEpoll handles ERR, HUP and RDHUP and closes the channel, as
	// Netty's native transport does.
	SelectorEpoll Selector = "epoll"
	// SelectorIOUring is Netty 4.2's IoUringIoHandler: completion-based
	// I/O on one io_uring per loop; netty 4.2 only.
	SelectorIOUring Selector = "io_uring"
)

// Trigger is the epoll trigger mode of channel registrations.
type Trigger string

// Trigger modes.
const (
	TriggerLevel Trigger = "level"
	TriggerEdge  Trigger = "edge"
)

// Protocol is what the server speaks and the clients send (docs/scenarios.md,
// "server").
type Protocol string

// Protocols.
const (
	ProtocolEcho Protocol = "echo"
	ProtocolHTTP Protocol = "http"
	ProtocolRESP Protocol = "resp"
	// ProtocolHTTPRESP serves both on one port, as the peer servers do.
	// A server's protocol only: each client sends one or the other.
	ProtocolHTTPRESP Protocol = "http+resp"
)

// Serves reports whether a server speaking p answers clients sending c.
func (p Protocol) Serves(c Protocol) bool {
	return c == p || p == ProtocolHTTPRESP && (c == ProtocolHTTP || c == ProtocolRESP)
}

// Via says how a client opens its connections.
type Via string

// Client transports.
const (
	// ViaNet uses Go's net package, outside the engine.
	ViaNet Via = "net"
	// ViaEngine uses the engine's own client bootstrap on the client group
	// (connect → OP_CONNECT → finishConnect → OP_READ, concept C24).
	ViaEngine Via = "engine"
)

// Scenario is a validated scenario with every default filled in. It is
// produced by Parse, Load or Clone and changed only through Set, which
// validates again, so a *Scenario in hand is always consistent.
type Scenario struct {
	Name     string
	Summary  string
	Notes    string // longer text on what the scenario shows, for the UI's help
	Watch    []Caption
	Predict  []Predict // questions about moments of the run (predict.go)
	Concepts []string  // teaching-checklist ids this scenario shows, e.g. "C9"

	Model Model
	// Bosses is the boss group size as configured. It applies to
	// master-slave only; use Groups for the loops actually built.
	Bosses int
	// Workers is the worker group size as configured; 0 means 2 × CPU
	// cores, as in Netty. Use Groups for the resolved count.
	Workers int
	// ClientLoops is the size of the client group used by clients with
	// via: engine.
	ClientLoops int
	// AutoScale, when set, makes the I/O group scale (netty 4.2 only).
	AutoScale *AutoScale

	Duration time.Duration
	Netty    Netty
	Loop     LoopConfig
	Server   ServerConfig
	Clients  []Client
	// Timeline holds the actions sorted by time; actions at the same time
	// keep their order in the file.
	Timeline []Action
	Wheel    WheelConfig
	Shutdown ShutdownConfig
	// Expect holds the active expectations: plain clauses and the chosen
	// branch of every conditional entry.
	Expect []*Expect
	// Compare holds the clauses `reactorviz compare` checks across the
	// models' runs of this workload.
	Compare []*CompareClause

	// File is the name the scenario was parsed under (a path, or
	// "builtin:NAME").
	File string

	warnings []Problem
	src      []byte
	sets     []setArg
	cpus     int // CPU count used to resolve workers: 0
}

// LoopConfig configures every event loop of the scenario.
type LoopConfig struct {
	IORatio          int           // 1..100; 100 runs all tasks without a time limit
	RebuildThreshold int           // premature selects before a rebuild; below 3 disables
	Selector         Selector      // nio or epoll semantics
	Trigger          Trigger       // level or edge; level whatever is set under netty 4.2
	TaskQueue        int           // task queue capacity; 0 is unbounded
	ReadBuffer       int           // bytes read per read call
	SlowMotion       time.Duration // delay at each phase boundary; 0 is off
	TaskQuantum      time.Duration // tasks per iteration under netty 4.2
}

// RebuildEnabled reports whether premature selects can trigger a rebuild:
// as in Netty, a threshold below 3 disables rebuilding.
func (l LoopConfig) RebuildEnabled() bool { return l.RebuildThreshold >= minRebuildThreshold }

// ServerConfig is the listening side.
type ServerConfig struct {
	Protocol Protocol
	// Ports is the number of distinct listening ports; each gets its own
	// server channel, registered on the boss group's next loop.
	Ports int
	// ReusePort binds every port once per boss loop with SO_REUSEPORT so
	// the kernel spreads accepts over all boss loops.
	ReusePort bool
	// Cost is the CPU time the server's handler burns per request, on the
	// loop thread that reads it: real work, so a loop can be saturated.
	Cost time.Duration
	// Addr is the loopback host:port to bind. Port 0 gives every server
	// channel an ephemeral port; a fixed port P gives P, P+1, ... P+Ports-1.
	Addr string
}

// Client is one group of client connections driven by the simulation.
// Connection i targets port i mod Ports.
type Client struct {
	Protocol    Protocol
	Connections int
	Payload     int           // request size in bytes (echo only)
	Rate        Rate          // per connection
	Pipeline    int           // requests in flight per connection
	Requests    int           // per connection; 0 means until Stop
	Via         Via           // net or engine
	Load        ClientLoad    // closed or open loop
	Start       time.Duration // when the connections open
	Stop        time.Duration // when they close; equals Duration if unset
}

// ClientLoad says whether a client waits for answers before sending more.
type ClientLoad string

// Client loads.
const (
	// LoadClosed sends a batch, waits for its answers, then waits for the
	// next tick of the rate (or sends at once at rate max).
	LoadClosed ClientLoad = "closed"
	// LoadOpen sends on the rate's schedule whatever the server does and
	// measures each request from the time it was due, as wrk2 does, so a
	// stalled loop cannot hide behind clients that slowed down with it.
	LoadOpen ClientLoad = "open"
)

// Rate is a per-connection request rate. The zero Rate means "max": each
// connection sends as fast as responses come back (closed loop).
type Rate struct {
	PerSecond float64
}

// Max reports whether the rate is unlimited.
func (r Rate) Max() bool { return r.PerSecond == 0 }

// Interval is the time between two requests of one connection; 0 for max.
func (r Rate) Interval() time.Duration {
	if r.Max() {
		return 0
	}
	return time.Duration(float64(time.Second) / r.PerSecond)
}

// String formats the rate as it is written in a file.
func (r Rate) String() string {
	if r.Max() {
		return "max"
	}
	return strconv.FormatFloat(r.PerSecond, 'f', -1, 64) + "/s"
}

// WheelConfig configures the HashedWheelTimer (docs/concepts.md C17).
type WheelConfig struct {
	Tick          time.Duration
	TicksPerWheel int // as written; Length gives the rounded-up size
}

// Length is the number of slots: TicksPerWheel rounded up to a power of two,
// as Netty's HashedWheelTimer does.
func (w WheelConfig) Length() int {
	n := 1
	for n < w.TicksPerWheel {
		n <<= 1
	}
	return n
}

// ShutdownConfig is the graceful shutdown at the end of the run (and the
// default for a timeline shutdown).
type ShutdownConfig struct {
	Quiet   time.Duration
	Timeout time.Duration
}

// Warnings returns settings that are valid but have no effect, such as
// bosses under model single. They are not errors: a --set experiment on a
// built-in should not fail because the knob does not apply.
func (s *Scenario) Warnings() []Problem { return append([]Problem(nil), s.warnings...) }

// Clone returns an independent copy, including the --set overrides applied
// so far; compare uses it to run one workload under several models.
// Expectations are immutable once parsed, so the copies share them.
func (s *Scenario) Clone() *Scenario {
	c := *s
	c.Concepts = append([]string(nil), s.Concepts...)
	c.Clients = append([]Client(nil), s.Clients...)
	c.Timeline = append([]Action(nil), s.Timeline...)
	c.Watch = append([]Caption(nil), s.Watch...)
	c.Predict = append([]Predict(nil), s.Predict...)
	c.Expect = append([]*Expect(nil), s.Expect...)
	c.Compare = append([]*CompareClause(nil), s.Compare...)
	c.warnings = append([]Problem(nil), s.warnings...)
	c.sets = append([]setArg(nil), s.sets...)
	return &c
}

// ForModel returns a copy that runs the same workload under another model,
// for compare. The copy has no expectations and no captions, since they
// name the loops of the original model; an error means the timeline names
// a loop the other model does not build.
func (s *Scenario) ForModel(m Model) (*Scenario, error) {
	c := s.Clone()
	if err := c.Set("expect", "[]"); err != nil {
		return nil, err
	}
	if err := c.Set("watch", "[]"); err != nil {
		return nil, err
	}
	if err := c.Set("predict", "[]"); err != nil {
		return nil, err
	}
	if err := c.Set("model", string(m)); err != nil {
		return nil, err
	}
	return c, nil
}

// ForNetty returns a copy that runs the same workload under another loop
// design, for compare --flavours. The copy has no expectations: they say
// what one design does. An error means a setting the other design refuses
// (edge-triggered epoll under 4.2).
func (s *Scenario) ForNetty(n Netty) (*Scenario, error) {
	c := s.Clone()
	if err := c.Set("expect", "[]"); err != nil {
		return nil, err
	}
	if err := c.Set("netty", string(n)); err != nil {
		return nil, err
	}
	return c, nil
}

// setArg is one applied --set override, kept so a later Set can replay the
// earlier ones on a fresh parse of the source.
type setArg struct {
	key, value string
}

// CaptionAt returns the caption to show at elapsed run time t: the latest
// whose time has come (entries of the same time together), or "" before
// the first.
func (s *Scenario) CaptionAt(t time.Duration) string {
	var texts []string
	at := time.Duration(-1)
	for _, c := range s.Watch {
		if c.At > t {
			break
		}
		if c.At != at {
			texts, at = texts[:0], c.At
		}
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, " ")
}

// Portable is a scenario as another process rebuilds it exactly: its
// source, the --set overrides applied in order, and the CPU count that
// resolved workers: 0 (a page in a browser knows another count, or none).
// A live run shown in a browser sends its scenario this way, so the page's
// captions and header read the scenario the engine runs.
type Portable struct {
	File   string      `json:"file"`
	Source []byte      `json:"source"`
	Sets   [][2]string `json:"sets,omitempty"`
	CPUs   int         `json:"cpus"`
}

// Portable returns s in a form FromPortable rebuilds.
func (s *Scenario) Portable() Portable {
	p := Portable{File: s.File, Source: bytes.Clone(s.src), CPUs: s.cpus}
	for _, a := range s.sets {
		p.Sets = append(p.Sets, [2]string{a.key, a.value})
	}
	return p
}

// FromPortable parses a scenario sent by Portable, with the same checks as
// a file and its overrides: it came over a socket, so it is untrusted.
func FromPortable(p Portable) (*Scenario, error) {
	sets := make([]setArg, len(p.Sets))
	for i, kv := range p.Sets {
		sets[i] = setArg{key: kv[0], value: kv[1]}
	}
	return parseWith(p.File, p.Source, sets, min(max(p.CPUs, 1), maxPortableCPUs))
}

// maxPortableCPUs bounds the CPU count a sent scenario resolves workers: 0
// with, so a hostile one cannot ask for millions of loops.
const maxPortableCPUs = 1024
