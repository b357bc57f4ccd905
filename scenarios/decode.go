package scenarios

import (
	"cmp"
	"math"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/reactorviz/reactorviz/reactor/netty"
)

// Enumerations, in documentation order.
var (
	models        = []string{string(ModelSingle), string(ModelMulti), string(ModelMasterSlave)}
	selectors     = []string{string(SelectorNIO), string(SelectorEpoll), string(SelectorIOUring)}
	triggers      = []string{string(TriggerLevel), string(TriggerEdge)}
	protocols     = []string{string(ProtocolEcho), string(ProtocolHTTP), string(ProtocolRESP), string(ProtocolHTTPRESP)}
	clientProtos  = []string{string(ProtocolEcho), string(ProtocolHTTP), string(ProtocolRESP)}
	vias          = []string{string(ViaNet), string(ViaEngine)}
	loads         = []string{string(LoadClosed), string(LoadOpen)}
	origins       = []string{string(FromExternal), string(FromLoop)}
	scheduleModes = []string{string(ScheduleFixedRate), string(ScheduleFixedDelay)}
	nettys        = []string{string(Netty4143), string(Netty41), string(Netty42)}
)

// Defaults and bounds of the schema. docs/scenarios.md lists the same values;
// TestDocsCoverFormat keeps the two in step.
const (
	defaultDuration = 3 * time.Second
	minDuration     = 100 * time.Millisecond
	maxDuration     = 10 * time.Minute

	maxBosses      = 64
	maxWorkers     = 256
	maxClientLoops = 64

	defaultIORatio          = netty.IORatio
	defaultRebuildThreshold = netty.RebuildThreshold
	minRebuildThreshold     = netty.MinPrematureReturns // below this, as in Netty, rebuilding is off
	maxRebuildThreshold     = 1_000_000
	minTaskQueue            = 16
	maxTaskQueue            = 1 << 20
	defaultReadBuffer       = netty.ReadBuffer
	minReadBuffer           = 256
	maxReadBuffer           = 1 << 20
	maxSlowMotion           = time.Second
	defaultTaskQuantum      = time.Second            // io.netty.eventLoop.maxTaskProcessingQuantumMs
	minTaskQuantum          = 100 * time.Millisecond // its floor
	maxTaskQuantum          = 10 * time.Second

	defaultAddr = "127.0.0.1:0"
	maxPorts    = 16
	maxCost     = 100 * time.Millisecond // handler CPU per request

	maxClients        = 32
	maxConnections    = 10_000 // over all client entries
	defaultPayload    = 64
	maxPayload        = 1 << 20
	maxPipeline       = 1024
	maxRequests       = 10_000_000
	maxRatePerSec     = 1_000_000
	maxTimeline       = 256
	maxWatch          = 32
	maxCount          = 1_000_000
	maxTimers         = 100_000
	maxTotalTasks     = 10_000_000
	maxTaskCost       = time.Second
	maxFaultDuration  = 10 * time.Second
	maxPanics         = 1000
	maxPool           = 64
	defaultPool       = 4
	maxPause          = 10 * time.Second
	defaultSlowTask   = 100 * time.Millisecond
	defaultBlocking   = 50 * time.Millisecond
	defaultTimerDelay = 100 * time.Millisecond
	defaultWheelDelay = 500 * time.Millisecond

	defaultTick          = netty.WheelTick
	minTick              = netty.MinWheelTick
	maxTick              = time.Second
	defaultTicksPerWheel = netty.TicksPerWheel
	maxTicksPerWheel     = 1 << 16

	defaultQuiet   = 100 * time.Millisecond
	defaultTimeout = 2 * time.Second
	maxQuiet       = 10 * time.Second
	maxTimeout     = time.Minute

	maxName    = 64
	maxSummary = 200
	maxNotes   = 4096
	maxCaption = 400
	maxExpects = 128
)

// maxInFlight bounds connections × request size × pipeline over all
// clients: each factor has its own limit, but their product is what a run
// holds in socket and channel buffers at once (1 MiB × 1024 on one
// connection is 1 GiB). docs/scenarios.md and docs/security.md.
const maxInFlight = 64 << 20

var (
	nameRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	conceptRE = regexp.MustCompile(`^C([1-9]|1[0-9]|2[0-6])$`)
)

// decoder turns a checked node tree into a Scenario, reporting every problem
// with the position of the node at fault, or the --set argument that put the
// node there.
type decoder struct {
	file   string
	src    []byte // the source, to place errors inside block scalars
	ps     *problems
	warn   *problems
	origin map[*yaml.Node]string

	workersNode, bossesNode *yaml.Node
	// ioRatioNode is loop.io_ratio's value, to warn when a --set of it is
	// shadowed by the timeline's set io_ratio.
	ioRatioNode *yaml.Node
	loopRefs    []loopRef
	// topologyBroken is set when a setting that decides which loops exist
	// was invalid; loop names are then not checked, since every check would
	// be against a guess and only add noise to the real problem.
	topologyBroken bool
	// netty is the loop design, read before the timeline, which warns
	// about set io_ratio under 4.2.
	netty Netty
}

// loopRef is a loop name or pattern in the timeline, checked once the
// topology is known.
type loopRef struct {
	node    *yaml.Node
	name    string
	needsIO bool
	fault   Fault
}

func (d *decoder) at(n *yaml.Node) (string, Pos) {
	if arg, ok := d.origin[n]; ok {
		return arg, Pos{}
	}
	return d.file, Pos{Line: n.Line, Col: n.Column}
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	f, p := d.at(n)
	d.ps.add(f, p, format, args...)
}

func (d *decoder) warnf(n *yaml.Node, format string, args ...any) {
	f, p := d.at(n)
	d.warn.add(f, p, format, args...)
}

// setNote says where a value came from when it was overridden, for messages
// about problems it causes elsewhere in the file.
func (d *decoder) setNote(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if arg, ok := d.origin[n]; ok {
		return " (from " + arg + ")"
	}
	return ""
}

// setNotes is setNote for a problem several values add up to: the
// overrides among them, each named once, in order.
func (d *decoder) setNotes(ns ...*yaml.Node) string {
	var args []string
	for _, n := range ns {
		if arg, ok := d.origin[n]; ok && n != nil && !slices.Contains(args, arg) {
			args = append(args, arg)
		}
	}
	if len(args) == 0 {
		return ""
	}
	return " (from " + strings.Join(args, ", ") + ")"
}

// mapping is a checked YAML mapping: known keys only, none twice.
type mapping struct {
	node *yaml.Node
	vals map[string]*yaml.Node
	keys map[string]*yaml.Node
}

func (m *mapping) get(key string) *yaml.Node {
	if m == nil {
		return nil
	}
	return m.vals[key]
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// mapping checks that n is a mapping whose keys are all in known. A null
// node (the key written with no value) counts as an empty mapping; any other
// non-mapping is reported and yields nil.
func (d *decoder) mapping(n *yaml.Node, what string, known []string) *mapping {
	m := &mapping{node: n, vals: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	if n == nil || isNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, got %s", what, describe(n))
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "keys in %s must be names, got %s", what, describe(k))
			continue
		}
		if !slices.Contains(known, k.Value) {
			d.errorf(k, "unknown key %s in %s%s", clip(k.Value), what, didYouMean(k.Value, known))
			continue
		}
		if first, dup := m.keys[k.Value]; dup {
			if _, fromSet := d.origin[first]; fromSet || first.Line == 0 {
				d.errorf(k, "duplicate key %s", clip(k.Value))
			} else {
				d.errorf(k, "duplicate key %s (first at line %d)", clip(k.Value), first.Line)
			}
			continue
		}
		m.keys[k.Value], m.vals[k.Value] = k, v
	}
	return m
}

// list checks that n is a list of at most limit items. Null is empty.
func (d *decoder) list(n *yaml.Node, what string, limit int) []*yaml.Node {
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s must be a list, got %s", what, describe(n))
		return nil
	}
	if len(n.Content) > limit {
		d.errorf(n, "%s has %s; the limit is %d", what, plural(len(n.Content), "entry", "entries"), limit)
		return nil
	}
	return n.Content
}

func (d *decoder) scalar(n *yaml.Node, name, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, "%s must be %s, got %s", name, want, describe(n))
		return "", false
	}
	return n.Value, true
}

// str reads a string. On the command line every value is text, so a
// --set value of any scalar type counts as a string: --set summary=42.
func (d *decoder) str(n *yaml.Node, name string, limit int) (string, bool) {
	_, fromSet := d.origin[n]
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" && !(fromSet && !isNull(n)) {
		d.errorf(n, "%s must be a string, got %s", name, describe(n))
		return "", false
	}
	if r := []rune(n.Value); len(r) > limit {
		d.errorf(n, "%s is %d characters; the limit is %d", name, len(r), limit)
		return "", false
	}
	return n.Value, true
}

// bigInt matches a whole number too large for YAML's int, which YAML then
// reads as a float; it deserves a range message, not a type one.
var bigInt = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

func (d *decoder) integer(n *yaml.Node, name string, lo, hi int) (int, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && bigInt.MatchString(n.Value) {
		d.errorf(n, "%s must be %d..%d, got %s", name, lo, hi, clip(n.Value))
		return 0, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.errorf(n, "%s must be a whole number, got %s", name, describe(n))
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v < int64(lo) || v > int64(hi) {
		d.errorf(n, "%s must be %d..%d, got %s", name, lo, hi, clip(n.Value))
		return 0, false
	}
	return int(v), true
}

func (d *decoder) boolean(n *yaml.Node, name string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.errorf(n, "%s must be true or false, got %s", name, describe(n))
		return false, false
	}
	return strings.EqualFold(n.Value, "true"), true
}

func (d *decoder) duration(n *yaml.Node, name string, lo, hi time.Duration) (time.Duration, bool) {
	s, ok := d.scalar(n, name, "a duration such as 2s or 500ms")
	if !ok {
		return 0, false
	}
	v, err := parseDuration(s)
	if err != nil {
		d.errorf(n, "%s must be %v, got %s", name, err, describe(n))
		return 0, false
	}
	if v < lo || v > hi {
		d.errorf(n, "%s must be %s..%s, got %s", name, durationString(lo), durationString(hi), clip(s))
		return 0, false
	}
	return v, true
}

func (d *decoder) size(n *yaml.Node, name string, lo, hi int) (int, bool) {
	s, ok := d.scalar(n, name, "a size such as 64B or 4KiB")
	if !ok {
		return 0, false
	}
	v, err := parseSize(s)
	if err != nil {
		d.errorf(n, "%s must be %v, got %s", name, err, describe(n))
		return 0, false
	}
	if v < lo || v > hi {
		d.errorf(n, "%s must be %s..%s, got %s", name, formatSize(lo), formatSize(hi), clip(s))
		return 0, false
	}
	return v, true
}

func (d *decoder) enum(n *yaml.Node, name string, options []string) (string, bool) {
	s, ok := d.scalar(n, name, "one of "+oneOf(options))
	if !ok {
		return "", false
	}
	if !slices.Contains(options, s) {
		d.errorf(n, "%s must be one of %s, got %s%s", name, oneOf(options), clip(s), didYouMean(s, options))
		return "", false
	}
	return s, true
}

var topKeys = []string{
	"name", "summary", "notes", "concepts", "netty", "model", "bosses", "workers", "client_loops",
	"duration", "loop", "server", "clients", "timeline", "watch", "wheel", "shutdown", "expect", "compare",
	"autoscale", "predict",
}

// scenario decodes the whole document. Fields are decoded in dependency
// order: the configuration first, then clients and the timeline (which are
// checked against the duration), and expectations last, since their
// conditions read the configuration and their loops need the topology.
func (d *decoder) scenario(root *yaml.Node, s *Scenario) {
	top := d.mapping(root, "the scenario", topKeys)
	if top == nil {
		return
	}
	if n := top.get("name"); n == nil {
		d.errorf(root, "name is required")
	} else if v, ok := d.str(n, "name", maxName); ok {
		if !nameRE.MatchString(v) {
			d.errorf(n, "name must be lower-case letters, digits and dashes, got %q", clip(v))
		} else {
			s.Name = v
		}
	}
	if n := top.get("summary"); n != nil {
		if v, ok := d.str(n, "summary", maxSummary); ok {
			if strings.ContainsAny(v, "\r\n") {
				d.errorf(n, "summary must be one line")
			}
			s.Summary = v
		}
	}
	if n := top.get("notes"); n != nil {
		s.Notes, _ = d.str(n, "notes", maxNotes)
	}
	d.concepts(top.get("concepts"), s)
	d.nettyVersion(top.get("netty"), s)

	s.Model = ModelMulti
	if n := top.get("model"); n != nil {
		if v, ok := d.enum(n, "model", models); ok {
			s.Model = Model(v)
		} else {
			d.topologyBroken = true
		}
	}
	s.Bosses = 1
	if s.Model == ModelMasterSlave {
		s.Bosses = 2
	}
	if n := top.get("bosses"); n != nil {
		d.bossesNode = n
		v, ok := d.integer(n, "bosses", 1, maxBosses)
		d.topologyBroken = d.topologyBroken || !ok
		if ok {
			s.Bosses = v
			switch {
			case s.Model == ModelSingle && v != 1:
				d.warnf(n, "bosses does not apply to model single: its one loop, reactor-0, accepts and does I/O")
			case s.Model == ModelMulti && v != 1:
				d.warnf(n, "model multi has one boss loop; bosses: %d takes effect with model master-slave", v)
			}
		}
	}
	if n := top.get("workers"); n != nil {
		d.workersNode = n
		v, ok := d.integer(n, "workers", 0, maxWorkers)
		d.topologyBroken = d.topologyBroken || !ok
		if ok {
			s.Workers = v
			if s.Model == ModelSingle && v != 1 {
				d.warnf(n, "workers does not apply to model single: its one loop, reactor-0, does all the I/O")
			}
		}
	}
	d.autoScale(top.get("autoscale"), s)
	s.ClientLoops = 1
	if n := top.get("client_loops"); n != nil {
		v, ok := d.integer(n, "client_loops", 1, maxClientLoops)
		d.topologyBroken = d.topologyBroken || !ok
		s.ClientLoops = max(v, 1)
	}
	s.Duration = defaultDuration
	if n := top.get("duration"); n != nil {
		if v, ok := d.duration(n, "duration", minDuration, maxDuration); ok {
			s.Duration = v
		}
	}
	d.loop(top.get("loop"), s)
	d.server(top.get("server"), s)
	d.wheel(top.get("wheel"), s)
	d.shutdown(top.get("shutdown"), s)
	d.clients(top.get("clients"), s)
	if n := top.get("client_loops"); n != nil && !s.usesEngineClients() {
		d.warnf(n, "client_loops has no effect: no client uses via: engine")
	}
	d.timeline(top.get("timeline"), s)
	d.watch(top.get("watch"), s)
	d.predicts(top.get("predict"), top.get("duration"), s)
	d.checkLoopRefs(s)
	d.expects(top.get("expect"), s)
	d.compares(top.get("compare"), s)
}

// compares reads the clauses compare checks across models.
func (d *decoder) compares(n *yaml.Node, s *Scenario) {
	for _, item := range d.list(n, "compare", maxExpects) {
		text, ok := d.str(item, "a compare clause", maxExpectLen)
		if !ok {
			continue
		}
		c, err := ParseCompare(text)
		if err != nil {
			f, p := d.exprPos(item, err.Offset)
			d.ps.add(f, p, "%s", err.Msg)
			continue
		}
		s.Compare = append(s.Compare, c)
	}
}

func (d *decoder) concepts(n *yaml.Node, s *Scenario) {
	seen := map[string]bool{}
	for _, c := range d.list(n, "concepts", 26) {
		v, ok := d.str(c, "a concept", 3)
		if !ok {
			continue
		}
		switch {
		case !conceptRE.MatchString(v):
			d.errorf(c, "concepts are C1..C26 (the teaching checklist), got %q", v)
		case seen[v]:
			d.errorf(c, "concept %s is listed twice", v)
		default:
			seen[v] = true
			s.Concepts = append(s.Concepts, v)
		}
	}
}

var loopConfigKeys = []string{"io_ratio", "rebuild_threshold", "selector", "trigger", "task_queue_capacity", "read_buffer", "slow_motion", "task_quantum"}

// nettyVersion reads the loop design; 4.1.43 when absent.
func (d *decoder) nettyVersion(n *yaml.Node, s *Scenario) {
	s.Netty, d.netty = Netty4143, Netty4143
	if n == nil {
		return
	}
	if v, ok := d.enum(n, "netty", nettys); ok {
		s.Netty = Netty(v)
	}
	d.netty = s.Netty
}

// loopFlavour checks the loop settings against the loop design: 4.2 has
// no ioRatio (setIoRatio is a no-op) and no edge-triggered epoll
// (setEpollMode is a no-op), so both warn; the task quantum exists only in
// 4.2.
func (d *decoder) loopFlavour(m *mapping, s *Scenario) {
	if v := m.get("selector"); v != nil && s.Loop.Selector == SelectorIOUring && s.Netty != Netty42 {
		d.errorf(v, "selector: io_uring needs netty: \"4.2\" (IoUringIoHandler is a Netty 4.2 transport), not %s", s.Netty)
	}
	if s.Netty == Netty42 {
		if v := m.get("io_ratio"); v != nil {
			d.warnf(v, "io_ratio has no effect under netty 4.2: its loop runs tasks for loop.task_quantum instead")
		}
		if v := m.get("trigger"); v != nil && s.Loop.Trigger == TriggerEdge {
			d.warnf(v, "trigger: edge has no effect under netty 4.2: it is level-triggered only (setEpollMode is a no-op)")
		}
		return
	}
	if v := m.get("task_quantum"); v != nil {
		d.warnf(v, "task_quantum has no effect under netty %s: only 4.2 runs tasks by quantum", s.Netty)
	}
}

func (d *decoder) loop(n *yaml.Node, s *Scenario) {
	s.Loop = LoopConfig{
		IORatio:          defaultIORatio,
		RebuildThreshold: defaultRebuildThreshold,
		Selector:         SelectorNIO,
		Trigger:          TriggerLevel,
		ReadBuffer:       defaultReadBuffer,
		TaskQuantum:      defaultTaskQuantum,
	}
	m := d.mapping(n, "loop", loopConfigKeys)
	if v := m.get("io_ratio"); v != nil {
		d.ioRatioNode = v
		if r, ok := d.integer(v, "io_ratio", 1, 100); ok {
			s.Loop.IORatio = r
		}
	}
	if v := m.get("rebuild_threshold"); v != nil {
		if r, ok := d.integer(v, "rebuild_threshold", 0, maxRebuildThreshold); ok {
			s.Loop.RebuildThreshold = r
		}
	}
	if v := m.get("selector"); v != nil {
		if r, ok := d.enum(v, "selector", selectors); ok {
			s.Loop.Selector = Selector(r)
		}
	}
	if v := m.get("trigger"); v != nil {
		if r, ok := d.enum(v, "trigger", triggers); ok {
			s.Loop.Trigger = Trigger(r)
		}
	}
	if v := m.get("task_queue_capacity"); v != nil {
		if r, ok := d.integer(v, "task_queue_capacity", 0, maxTaskQueue); ok {
			if r != 0 && r < minTaskQueue {
				d.errorf(v, "task_queue_capacity must be 0 (unbounded) or %d..%d, got %d", minTaskQueue, maxTaskQueue, r)
			} else {
				s.Loop.TaskQueue = r
			}
		}
	}
	if v := m.get("read_buffer"); v != nil {
		if r, ok := d.size(v, "read_buffer", minReadBuffer, maxReadBuffer); ok {
			s.Loop.ReadBuffer = r
		}
	}
	if v := m.get("slow_motion"); v != nil {
		if r, ok := d.duration(v, "slow_motion", 0, maxSlowMotion); ok {
			s.Loop.SlowMotion = r
		}
	}
	if v := m.get("task_quantum"); v != nil {
		if r, ok := d.duration(v, "task_quantum", minTaskQuantum, maxTaskQuantum); ok {
			s.Loop.TaskQuantum = r
		}
	}
	d.loopFlavour(m, s)
}

func (d *decoder) server(n *yaml.Node, s *Scenario) {
	s.Server = ServerConfig{Protocol: ProtocolEcho, Ports: 1, Addr: defaultAddr}
	m := d.mapping(n, "server", serverKeys)
	if v := m.get("protocol"); v != nil {
		if r, ok := d.enum(v, "protocol", protocols); ok {
			s.Server.Protocol = Protocol(r)
		}
	}
	if v := m.get("ports"); v != nil {
		if r, ok := d.integer(v, "ports", 1, maxPorts); ok {
			s.Server.Ports = r
		}
	}
	if v := m.get("reuseport"); v != nil {
		if r, ok := d.boolean(v, "reuseport"); ok {
			s.Server.ReusePort = r
		}
	}
	if v := m.get("addr"); v != nil {
		if r, ok := d.str(v, "addr", 64); ok && d.checkAddr(v, r, s.Server.Ports) {
			s.Server.Addr = r
		}
	}
	if v := m.get("cost"); v != nil {
		if r, ok := d.duration(v, "cost", 0, maxCost); ok {
			s.Server.Cost = r
		}
	}
}

var serverKeys = []string{"protocol", "ports", "reuseport", "addr", "cost"}

// checkAddr accepts a loopback host and a port. Scenarios run their own
// clients; listening beyond loopback is serve's job, behind --allow-remote.
func (d *decoder) checkAddr(n *yaml.Node, addr string, ports int) bool {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		d.errorf(n, "addr must be host:port such as 127.0.0.1:0, got %q", clip(addr))
		return false
	}
	if host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			d.errorf(n, "addr must be a loopback address (127.0.0.1, ::1 or localhost), got %q", clip(host))
			return false
		}
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		d.errorf(n, "addr port must be 0..65535, got %q", clip(portStr))
		return false
	}
	if port != 0 && port+ports-1 > 65535 {
		d.errorf(n, "addr port %d with ports: %d runs past 65535", port, ports)
		return false
	}
	return true
}

func (d *decoder) wheel(n *yaml.Node, s *Scenario) {
	s.Wheel = WheelConfig{Tick: defaultTick, TicksPerWheel: defaultTicksPerWheel}
	m := d.mapping(n, "wheel", []string{"tick", "ticks_per_wheel"})
	if v := m.get("tick"); v != nil {
		if r, ok := d.duration(v, "tick", minTick, maxTick); ok {
			s.Wheel.Tick = r
		}
	}
	if v := m.get("ticks_per_wheel"); v != nil {
		if r, ok := d.integer(v, "ticks_per_wheel", 1, maxTicksPerWheel); ok {
			s.Wheel.TicksPerWheel = r
		}
	}
}

func (d *decoder) shutdown(n *yaml.Node, s *Scenario) {
	s.Shutdown = ShutdownConfig{Quiet: defaultQuiet, Timeout: defaultTimeout}
	if m := d.mapping(n, "shutdown", []string{"quiet", "timeout"}); m != nil {
		s.Shutdown = d.shutdownTimes(m, s.Shutdown)
	}
}

// shutdownTimes reads quiet: and timeout: over c, for the shutdown: section
// and a timeline shutdown alike, so both report the same problems. The two
// are compared only when both parsed, so a bad value gives one error, and
// only when this mapping sets one of them: inherited values were checked
// where they were written.
func (d *decoder) shutdownTimes(m *mapping, c ShutdownConfig) ShutdownConfig {
	quietOK, timeoutOK := true, true
	if v := m.get("quiet"); v != nil {
		c.Quiet, quietOK = d.duration(v, "quiet", 0, maxQuiet)
	}
	if v := m.get("timeout"); v != nil {
		c.Timeout, timeoutOK = d.duration(v, "timeout", 0, maxTimeout)
	}
	at := m.get("timeout")
	if at == nil {
		at = m.get("quiet")
	}
	if at != nil && quietOK && timeoutOK && c.Timeout < c.Quiet {
		d.errorf(at, "shutdown timeout %s is shorter than the quiet period %s", durationString(c.Timeout), durationString(c.Quiet))
	}
	return c
}

var clientKeys = []string{"protocol", "connections", "payload", "rate", "load", "pipeline", "requests", "via", "start", "stop"}

// clientProtocol sets what a client sends: the server's protocol, or for an
// http+resp server one of the two, which the client must name.
func (d *decoder) clientProtocol(m *mapping, item *yaml.Node, server Protocol, c *Client) {
	v := m.get("protocol")
	if v == nil {
		if server == ProtocolHTTPRESP {
			d.errorf(item, "a client of an http+resp server needs protocol: http or resp")
		}
		return
	}
	r, ok := d.enum(v, "protocol", clientProtos)
	if !ok {
		return
	}
	c.Protocol = Protocol(r)
	if !server.Serves(c.Protocol) {
		d.errorf(v, "client protocol %s does not match server.protocol %s", r, server)
	}
}

func (d *decoder) clients(n *yaml.Node, s *Scenario) {
	total, inFlight := 0, 0
	var conns, factors []*yaml.Node // for the overrides among them
	for i, item := range d.list(n, "clients", maxClients) {
		m := d.mapping(item, "a client", clientKeys)
		if m == nil {
			continue
		}
		c := Client{
			Protocol:    s.Server.Protocol,
			Connections: 1,
			Payload:     defaultPayload,
			Pipeline:    1,
			Via:         ViaNet,
			Load:        LoadClosed,
			Stop:        s.Duration,
		}
		d.clientProtocol(m, item, s.Server.Protocol, &c)
		conns = append(conns, m.get("connections"))
		factors = append(factors, m.get("connections"), m.get("payload"), m.get("pipeline"))
		if v := m.get("connections"); v != nil {
			if r, ok := d.integer(v, "connections", 1, maxConnections); ok {
				c.Connections = r
			}
		}
		total += c.Connections
		if v := m.get("payload"); v != nil {
			if r, ok := d.size(v, "payload", 1, maxPayload); ok {
				c.Payload = r
			}
			if c.Protocol != ProtocolEcho {
				d.warnf(v, "payload applies to echo clients only; %s clients send fixed requests", c.Protocol)
			}
		}
		if v := m.get("rate"); v != nil {
			if r, ok := d.scalar(v, "rate", `"max" or a rate such as 200/s`); ok {
				rate, err := parseRate(r)
				switch {
				case err != nil:
					d.errorf(v, "rate must be %v, got %s", err, describe(v))
				case r != "max" && (rate.PerSecond < 0.1 || rate.PerSecond > maxRatePerSec):
					d.errorf(v, "rate must be max or 0.1/s..%d/s, got %s", maxRatePerSec, clip(r))
				default:
					c.Rate = rate
				}
			}
		}
		d.clientLoad(m, &c)
		if v := m.get("pipeline"); v != nil {
			if r, ok := d.integer(v, "pipeline", 1, maxPipeline); ok {
				c.Pipeline = r
			}
		}
		if v := m.get("requests"); v != nil {
			if r, ok := d.integer(v, "requests", 0, maxRequests); ok {
				c.Requests = r
			}
		}
		if v := m.get("via"); v != nil {
			if r, ok := d.enum(v, "via", vias); ok {
				c.Via = Via(r)
			} else {
				d.topologyBroken = true
			}
		}
		d.clientWindow(m, &c, s.Duration)
		inFlight += d.clientInFlight(m, item, i, c)
		s.Clients = append(s.Clients, c)
	}
	if inFlight > maxInFlight {
		d.errorf(n, "clients keep %s in flight in all (connections × payload × pipeline)%s; the limit is %s", sizeText(inFlight), d.setNotes(factors...), sizeText(maxInFlight))
	}
	if total > maxConnections {
		d.errorf(n, "clients open %d connections in all%s; the limit is %d", total, d.setNotes(conns...), maxConnections)
	}
}

// clientInFlight checks one client's bytes in flight, connections ×
// request size × pipeline, against maxInFlight, reporting it at the factor
// written last among pipeline, payload and connections (the one a user
// raised to get there), and returns it for the total. Non-echo requests
// are counted at the default payload: an HTTP GET or a RESP PING is
// smaller.
func (d *decoder) clientInFlight(m *mapping, item *yaml.Node, i int, c Client) int {
	size := c.Payload
	if c.Protocol != ProtocolEcho {
		size = defaultPayload
	}
	n := c.Connections * size * c.Pipeline // each at most 10⁴ × 2²⁰ × 2¹⁰: fits in int64
	if n <= maxInFlight {
		return n
	}
	at := item
	for _, k := range []string{"connections", "payload", "pipeline"} {
		if v := m.get(k); v != nil && (at == item || v.Line > at.Line || v.Line == at.Line && v.Column > at.Column) {
			at = v
		}
	}
	note := ""
	if _, fromSet := d.origin[at]; !fromSet {
		note = d.setNotes(m.get("connections"), m.get("payload"), m.get("pipeline"))
	}
	d.errorf(at, "clients.%d keeps %s in flight (%d connection(s) × %s × pipeline %d)%s; the limit is %s",
		i, sizeText(n), c.Connections, formatSize(size), c.Pipeline, note, sizeText(maxInFlight))
	return 0 // reported here; the total would say it twice
}

// sizeText is a byte count for a message: 1.0 GiB, 64.0 MiB.
func sizeText(n int) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return formatSize(n)
}

// clientLoad reads load: closed (the default) waits for a batch's answers
// before the next; open sends on the rate's schedule whatever the server
// does, so it needs a rate.
func (d *decoder) clientLoad(m *mapping, c *Client) {
	v := m.get("load")
	if v == nil {
		return
	}
	r, ok := d.enum(v, "load", loads)
	if !ok {
		return
	}
	c.Load = ClientLoad(r)
	if c.Load == LoadOpen && c.Rate.Max() {
		d.errorf(v, "load: open sends on a schedule and needs a rate such as 500/s, not rate: max")
	}
}

// clientWindow reads start and stop. Times past the end of the run are only
// warned about: --set duration=1s on a built-in should shorten it, not fail.
func (d *decoder) clientWindow(m *mapping, c *Client, runLen time.Duration) {
	startOK, stopOK := true, true
	if v := m.get("start"); v != nil {
		c.Start, startOK = d.duration(v, "start", 0, maxDuration)
		if startOK && c.Start >= runLen {
			d.warnf(v, "these clients start at %s, when the run (%s) is over", durationString(c.Start), durationString(runLen))
		}
	}
	if v := m.get("stop"); v != nil {
		c.Stop, stopOK = d.duration(v, "stop", 0, maxDuration)
		if !stopOK {
			c.Stop = runLen
		}
		if stopOK && c.Stop > runLen {
			d.warnf(v, "stop %s is after the end of the run (%s); the clients stop with the run", durationString(c.Stop), durationString(runLen))
			c.Stop = runLen
		}
		if startOK && stopOK && c.Stop <= c.Start && c.Start < runLen {
			d.errorf(v, "stop %s must come after start %s", durationString(c.Stop), durationString(c.Start))
		}
	}
}

// verbs are the keys that say what a timeline entry does.
var verbs = []string{"inject", "submit", "schedule", "wheel", "set", "offload", "shutdown", "pause"}

// timelineKeys is every key any timeline entry may have.
var timelineKeys = append([]string{"at", "loop", "count", "duration", "cost", "from", "delay", "period", "mode", "cancel", "value", "pool", "quiet", "timeout"}, verbs...)

// verbParams lists the parameters each verb accepts besides at and itself.
var verbParams = map[string][]string{
	"inject":   {"loop", "duration", "count"},
	"submit":   {"loop", "count", "cost", "from"},
	"schedule": {"loop", "count", "delay", "period", "mode", "cost", "from"},
	"wheel":    {"count", "delay", "cancel"},
	"set":      {"value", "loop"},
	"offload":  {"pool"},
	"shutdown": {"quiet", "timeout"},
	"pause":    {"loop"},
}

// faultParams narrows inject's parameters by fault.
var faultParams = map[Fault][]string{
	FaultSpuriousWakeups: {"loop"},
	FaultJDKEpollBug:     {"loop"},
	FaultSlowTask:        {"loop", "duration"},
	FaultBlockingHandler: {"loop", "duration"},
	FaultPanicHandler:    {"loop", "count"},
	FaultPanicTask:       {"loop", "count"},
}

func (d *decoder) timeline(n *yaml.Node, s *Scenario) {
	totalTasks := 0
	for _, item := range d.list(n, "timeline", maxTimeline) {
		m := d.mapping(item, "a timeline entry", timelineKeys)
		if m == nil {
			continue
		}
		a := d.action(item, m, s)
		if a == nil {
			continue
		}
		if sub, ok := a.(Submit); ok {
			totalTasks += sub.Count
		}
		if at := m.get("at"); at != nil && a.Time() >= s.Duration {
			f, p := d.at(at)
			d.warn.add(f, p, "this action at %s never happens: the run ends at %s", durationString(a.Time()), durationString(s.Duration))
		}
		s.Timeline = append(s.Timeline, a)
	}
	if totalTasks > maxTotalTasks {
		d.errorf(n, "the timeline submits %d tasks in all; the limit is %d", totalTasks, maxTotalTasks)
	}
	slices.SortStableFunc(s.Timeline, func(a, b Action) int { return cmp.Compare(a.Time(), b.Time()) })
	d.warnShadowedIORatio(s.Timeline)
}

// action decodes one timeline entry: exactly one verb, the parameters that
// verb takes, and nothing else.
func (d *decoder) action(item *yaml.Node, m *mapping, s *Scenario) Action {
	var verb string
	for i := 0; i < len(item.Content); i += 2 {
		k := item.Content[i]
		if !slices.Contains(verbs, k.Value) || m.keys[k.Value] != k {
			continue
		}
		if verb != "" {
			d.errorf(k, "a timeline entry does one thing; it has both %s and %s", verb, k.Value)
			return nil
		}
		verb = k.Value
	}
	if verb == "" {
		d.errorf(item, "a timeline entry needs one of %s", oneOf(verbs))
		return nil
	}
	var step Step
	if at := m.get("at"); at == nil {
		d.errorf(item, "a timeline entry needs at: (when it happens)")
	} else {
		step.At, _ = d.duration(at, "at", 0, maxDuration)
	}
	vn := m.get(verb)
	want := map[string]string{
		"inject": "a fault", "submit": "tasks or tail-tasks", "schedule": "timers", "wheel": "timeouts",
		"set": "io_ratio", "offload": "on or off", "shutdown": "graceful", "pause": "a duration such as 500ms",
	}[verb]
	value, ok := d.scalar(vn, verb, want)
	if !ok {
		return nil
	}
	params := verbParams[verb]
	what := verb + " " + value
	switch verb {
	case "inject":
		if !slices.Contains(faults, value) {
			d.errorf(vn, "unknown fault %s%s", clip(value), hint(value, faults, "the faults are"))
			return nil
		}
		params = faultParams[Fault(value)]
	case "submit":
		if value != "tasks" && value != "tail-tasks" {
			d.errorf(vn, "submit must be tasks or tail-tasks, got %s", clip(value))
			return nil
		}
	case "schedule", "wheel", "set", "shutdown":
		if value != want {
			d.errorf(vn, "%s must be %s, got %s", verb, want, clip(value))
			return nil
		}
	case "pause":
		what = "pause"
	}
	ok = true
	for _, k := range timelineKeys {
		if k == "at" || k == verb || m.get(k) == nil || slices.Contains(params, k) {
			continue
		}
		if slices.Contains(verbs, k) {
			continue // reported above as a second verb
		}
		d.errorf(m.keys[k], "%s does not apply to %s (it takes %s)", k, what, oneOf(params))
		ok = false
	}
	if !ok {
		return nil
	}
	switch verb {
	case "inject":
		return d.inject(step, Fault(value), m)
	case "submit":
		return d.submit(step, value == "tail-tasks", m)
	case "schedule":
		return d.schedule(step, m)
	case "wheel":
		return d.wheelTimeouts(step, m)
	case "set":
		return d.setIORatio(step, m)
	case "offload":
		return d.offload(step, vn, m)
	case "shutdown":
		c := d.shutdownTimes(m, s.Shutdown)
		return Shutdown{Step: step, Quiet: c.Quiet, Timeout: c.Timeout}
	}
	a := Pause{Step: step}
	a.For, _ = d.duration(vn, "pause", time.Millisecond, maxPause)
	a.Loop = d.loopField(item, m, "pause", "", false, "")
	return a
}

// loopField reads a required loop: name or pattern and queues it for the
// topology check. def, when set, makes the field optional.
func (d *decoder) loopField(item *yaml.Node, m *mapping, verb, def string, needsIO bool, fault Fault) string {
	n := m.get("loop")
	if n == nil {
		if def == "" {
			d.errorf(item, "%s needs loop: (a loop name such as worker-0, or a pattern such as worker-*)", verb)
		}
		return def
	}
	name, ok := d.str(n, "loop", 32)
	if !ok {
		return def
	}
	if !loopName.MatchString(name) && !(isPattern(name) && loopPattern.MatchString(name)) {
		d.errorf(n, "loop must be a loop name such as worker-0 or a pattern such as worker-*, got %q", clip(name))
		return def
	}
	d.loopRefs = append(d.loopRefs, loopRef{node: n, name: name, needsIO: needsIO, fault: fault})
	return name
}

func (d *decoder) count(m *mapping, def, hi int) int {
	if v := m.get("count"); v != nil {
		if r, ok := d.integer(v, "count", 1, hi); ok {
			return r
		}
	}
	return def
}

func (d *decoder) optDuration(m *mapping, key string, def, lo, hi time.Duration) time.Duration {
	if v := m.get(key); v != nil {
		if r, ok := d.duration(v, key, lo, hi); ok {
			return r
		}
	}
	return def
}

func (d *decoder) from(m *mapping) Origin {
	if v := m.get("from"); v != nil {
		if r, ok := d.enum(v, "from", origins); ok {
			return Origin(r)
		}
	}
	return FromExternal
}

func (d *decoder) inject(step Step, f Fault, m *mapping) Action {
	a := Inject{Step: step, Fault: f}
	a.Loop = d.loopField(m.node, m, "inject "+string(f), "", f.needsChannels(), f)
	switch f {
	case FaultSlowTask:
		a.Duration = d.optDuration(m, "duration", defaultSlowTask, time.Millisecond, maxFaultDuration)
	case FaultBlockingHandler:
		a.Duration = d.optDuration(m, "duration", defaultBlocking, time.Millisecond, maxFaultDuration)
	case FaultPanicHandler, FaultPanicTask:
		a.Count = d.count(m, 1, maxPanics)
	}
	return a
}

func (d *decoder) submit(step Step, tail bool, m *mapping) Action {
	verb := "submit tasks"
	if tail {
		verb = "submit tail-tasks"
	}
	a := Submit{Step: step, Tail: tail}
	a.Loop = d.loopField(m.node, m, verb, "", false, "")
	a.Count = d.count(m, 1, maxCount)
	a.Cost = d.optDuration(m, "cost", 0, 0, maxTaskCost)
	a.From = d.from(m)
	return a
}

func (d *decoder) schedule(step Step, m *mapping) Action {
	a := Schedule{Step: step, Mode: ScheduleOnce}
	a.Loop = d.loopField(m.node, m, "schedule timers", "", false, "")
	a.Count = d.count(m, 1, maxTimers)
	a.Delay = d.optDuration(m, "delay", defaultTimerDelay, 0, maxDuration)
	a.Period = d.optDuration(m, "period", 0, 0, maxDuration)
	a.Cost = d.optDuration(m, "cost", 0, 0, maxTaskCost)
	a.From = d.from(m)
	if v := m.get("mode"); v != nil {
		r, ok := d.enum(v, "mode", scheduleModes)
		switch {
		case ok && a.Period == 0:
			d.errorf(v, "mode %s needs a period; without one the timer fires once", r)
		case ok:
			a.Mode = ScheduleMode(r)
		}
	} else if a.Period > 0 {
		a.Mode = ScheduleFixedRate
	}
	if a.Period > 0 && a.Period < time.Millisecond {
		d.errorf(m.get("period"), "period must be 0 (fire once) or at least 1ms, got %s", m.get("period").Value)
	}
	return a
}

func (d *decoder) wheelTimeouts(step Step, m *mapping) Action {
	a := WheelTimeouts{Step: step}
	a.Count = d.count(m, 1, maxTimers)
	a.Delay = d.optDuration(m, "delay", defaultWheelDelay, 0, maxDuration)
	if v := m.get("cancel"); v != nil {
		if r, ok := d.integer(v, "cancel", 0, maxTimers); ok {
			if r > a.Count {
				d.errorf(v, "cancel %d is more than count %d", r, a.Count)
			} else {
				a.Cancel = r
			}
		}
	}
	return a
}

func (d *decoder) setIORatio(step Step, m *mapping) Action {
	a := SetIORatio{Step: step, IORatio: defaultIORatio}
	if v := m.get("value"); v == nil {
		d.errorf(m.node, "set io_ratio needs value: (1..100)")
	} else if r, ok := d.integer(v, "io_ratio", 1, 100); ok {
		a.IORatio = r
	}
	a.Loop = d.loopField(m.node, m, "set io_ratio", "*", false, "")
	if d.netty == Netty42 {
		d.warnf(m.node, "set io_ratio has no effect under netty 4.2 (setIoRatio is a no-op there)")
	}
	return a
}

func (d *decoder) offload(step Step, vn *yaml.Node, m *mapping) Action {
	a := Offload{Step: step}
	switch strings.ToLower(vn.Value) {
	case "on", "true":
		a.On = true
	case "off", "false":
	default:
		d.errorf(vn, "offload must be on or off, got %s", describe(vn))
	}
	a.Pool = defaultPool
	if v := m.get("pool"); v != nil {
		if !a.On {
			d.errorf(v, "pool applies to offload: on")
		} else if r, ok := d.integer(v, "pool", 1, maxPool); ok {
			a.Pool = r
		}
	}
	return a
}

// checkLoopRefs checks every timeline loop reference against the loops the
// scenario builds on any machine.
func (d *decoder) checkLoopRefs(s *Scenario) {
	if d.topologyBroken {
		return
	}
	groups := s.topology(minDefaultWorkers)
	names := loopNames(groups)
	for _, r := range d.loopRefs {
		matched := matchLoops(r.name, names)
		if len(matched) == 0 {
			if isPattern(r.name) {
				d.errorf(r.node, "no loop matches %s; the loops are %s", r.name, oneOf(names))
			} else {
				d.errorf(r.node, "%s", d.unknownLoop(r.name, s, groups))
			}
			continue
		}
		if !r.needsIO {
			continue
		}
		for _, name := range matched {
			if g := groupOf(name, groups); g != nil && !g.IO {
				d.errorf(r.node, "inject %s needs a loop that carries connections; %s only accepts them", r.fault, name)
				break
			}
		}
	}
}

func groupOf(loop string, groups []Group) *Group {
	for i := range groups {
		if slices.Contains(groups[i].Loops, loop) {
			return &groups[i]
		}
	}
	return nil
}

// unknownLoop explains why a loop name does not exist, in terms of the
// setting that decides it.
func (d *decoder) unknownLoop(name string, s *Scenario, groups []Group) string {
	prefix := name[:strings.LastIndexByte(name, '-')]
	msg := "unknown loop " + name + ": "
	switch {
	case s.Model == ModelSingle && prefix != GroupClient:
		return msg + "model single has one loop, reactor-0"
	case prefix == GroupReactor:
		return msg + "reactor-0 exists in model single only; model " + string(s.Model) + " has boss and worker loops"
	case prefix == GroupClient && !s.usesEngineClients():
		return msg + "there is no client group; it exists when a client uses via: engine"
	case prefix == GroupClient:
		return msg + "client_loops is " + strconv.Itoa(s.ClientLoops) + ", so the client loops are " + loopRange(GroupClient, s.ClientLoops)
	case prefix == GroupBoss && s.Model == ModelMulti:
		return msg + "model multi has one boss loop, boss-0 (more bosses need model master-slave)"
	case prefix == GroupBoss:
		return msg + "bosses is " + strconv.Itoa(s.Bosses) + d.setNote(d.bossesNode) + ", so the boss loops are " + loopRange(GroupBoss, s.Bosses)
	case prefix == GroupWorker && s.Workers == 0:
		return msg + "workers is 0 (2 × CPU cores)" + d.setNote(d.workersNode) + ", so only worker-0 and worker-1 are sure to exist"
	case prefix == GroupWorker:
		return msg + "workers is " + strconv.Itoa(s.Workers) + d.setNote(d.workersNode) + ", so the worker loops are " + loopRange(GroupWorker, s.Workers)
	}
	return msg + "the loops are " + oneOf(loopNames(groups))
}

func loopRange(group string, n int) string {
	if n == 1 {
		return group + "-0"
	}
	return group + "-0.." + group + "-" + strconv.Itoa(n-1)
}

// expects decodes the expect list: clauses, and if/then/else entries whose
// condition is decided now, against the configuration. Both branches are
// parsed and checked for names; only the chosen one must fit the topology.
func (d *decoder) expects(n *yaml.Node, s *Scenario) {
	groups := s.topology(minDefaultWorkers)
	loops := loopNames(groups)
	var groupNames []string
	for _, g := range groups {
		groupNames = append(groupNames, g.Name)
	}
	items := d.list(n, "expect", maxExpects)
	for _, item := range items {
		if item.Kind == yaml.MappingNode {
			d.conditional(item, s, loops, groupNames, groups)
			continue
		}
		if e := d.clause(item, s, loops, groupNames, groups, true); e != nil {
			s.Expect = append(s.Expect, e)
		}
	}
	if len(s.Expect) > maxExpects {
		d.errorf(n, "expect yields %d clauses; the limit is %d", len(s.Expect), maxExpects)
	}
}

func (d *decoder) conditional(item *yaml.Node, s *Scenario, loops, groupNames []string, groups []Group) {
	m := d.mapping(item, "a conditional expectation", []string{"if", "then", "else"})
	if m == nil {
		return
	}
	cond := m.get("if")
	if cond == nil {
		d.errorf(item, "a mapping in expect needs if: (a condition on the configuration) and then: (a list)")
		return
	}
	if m.get("then") == nil {
		d.errorf(item, "this if: needs then: (the expectations that hold when it is true)")
	}
	text, ok := d.str(cond, "if", maxConditionLen)
	if !ok {
		return
	}
	holds, err := evalCondition(text, s)
	if err != nil {
		f, p := d.exprPos(cond, err.Offset)
		d.ps.add(f, p, "%s", err.Msg)
		return
	}
	for _, branch := range []string{"then", "else"} {
		active := holds == (branch == "then")
		for _, c := range d.list(m.get(branch), branch, maxExpects) {
			if e := d.clause(c, s, loops, groupNames, groups, active); e != nil && active {
				s.Expect = append(s.Expect, e)
			}
		}
	}
}

// clause parses one expectation. Loop and group names are checked only when
// the clause is active: the inactive branch of a conditional may well name
// loops that this configuration does not build.
func (d *decoder) clause(n *yaml.Node, s *Scenario, loops, groupNames []string, groups []Group, active bool) *Expect {
	text, ok := d.str(n, "an expectation", maxExpectLen)
	if !ok {
		return nil
	}
	e, err := ParseExpect(text)
	if err != nil {
		ee := asExpectError(err)
		f, p := d.exprPos(n, ee.Offset)
		d.ps.add(f, p, "%s", ee.Msg)
		return nil
	}
	if active && !d.topologyBroken {
		describeLoop := func(name string) string { return d.unknownLoop(name, s, groups) }
		if terr := e.checkTopology(loops, groupNames, describeLoop); terr != nil {
			f, p := d.exprPos(n, terr.Offset)
			d.ps.add(f, p, "%s", terr.Msg)
			return nil
		}
	}
	return e
}

// exprPos maps an offset inside a one-line scalar to a file position: the
// column of the scalar, plus one for an opening quote, plus the offset.
func (d *decoder) exprPos(n *yaml.Node, off int) (string, Pos) {
	f, p := d.at(n)
	if p.Line == 0 || strings.ContainsAny(n.Value, "\n") || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return f, p
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		if n.Style&yaml.DoubleQuotedStyle != 0 && strings.ContainsAny(n.Value, "\\\"") {
			return f, p // escapes make offsets in the value differ from columns
		}
		p.Col++
	}
	p.Col += min(off, math.MaxInt32)
	return f, p
}

// warnShadowedIORatio warns, at the --set, when an override of loop.io_ratio
// is replaced on some loops by the timeline's own set io_ratio: the user
// asked for one ratio and those loops run another.
func (d *decoder) warnShadowedIORatio(timeline []Action) {
	if d.ioRatioNode == nil {
		return
	}
	if _, fromSet := d.origin[d.ioRatioNode]; !fromSet {
		return
	}
	var loops []string
	for _, a := range timeline {
		if set, ok := a.(SetIORatio); ok {
			loops = append(loops, set.Loop+" at "+durationString(set.At))
		}
	}
	if len(loops) > 0 {
		f, p := d.at(d.ioRatioNode)
		d.warn.add(f, p, "loop.io_ratio is overridden by the timeline's set io_ratio on %s", strings.Join(loops, ", "))
	}
}

var watchKeys = []string{"at", "if", "text", "else"}

// watch decodes the captions: what to watch, each from a time in the run
// on, shown by the TUI's caption line and by show. A text is a template
// (caption.go); an if: picks text: or else: by the configuration.
func (d *decoder) watch(n *yaml.Node, s *Scenario) {
	check := d.operandCheck(s)
	for _, item := range d.list(n, "watch", maxWatch) {
		m := d.mapping(item, "a watch entry", watchKeys)
		if m == nil {
			continue
		}
		var c Caption
		if at := m.get("at"); at != nil {
			if v, ok := d.duration(at, "at", 0, maxDuration); ok {
				c.At = v
				if v >= s.Duration {
					d.warnf(at, "this caption at %s is never shown: the run ends at %s", durationString(v), durationString(s.Duration))
				}
			}
		}
		holds := true
		if cond := m.get("if"); cond != nil {
			if text, ok := d.str(cond, "if", maxConditionLen); ok {
				var err *ExpectError
				if holds, err = evalCondition(text, s); err != nil {
					f, p := d.exprPos(cond, err.Offset)
					d.ps.add(f, p, "%s", err.Msg)
				}
			}
		} else if e := m.get("else"); e != nil {
			d.errorf(e, "else: needs an if: (a condition on the configuration)")
		}
		t := m.get("text")
		if t == nil {
			d.errorf(item, "a watch entry needs text")
			continue
		}
		chosen := false
		for _, branch := range []*yaml.Node{t, m.get("else")} {
			if branch == nil {
				continue
			}
			active := holds == (branch == t)
			v, ok := d.str(branch, "text", maxCaption)
			if !ok {
				continue
			}
			parts, err := parseCaption(v, nil)
			if err != nil {
				f, p := d.textPos(branch, v, err.Offset)
				d.ps.add(f, p, "%s", err.Msg)
				continue
			}
			// A loop this topology lacks is a warning, not an error: a
			// learner's --set workers=1 or model=single (compare) should
			// still run, the caption showing "?" for it. As with expect's
			// if:, only the chosen text is checked.
			if active {
				d.checkCaptionLoops(branch, v, parts, check)
			}
			if active {
				c.Text, c.parts, chosen = strings.Join(strings.Fields(v), " "), foldParts(parts), true
			}
		}
		if chosen {
			s.Watch = append(s.Watch, c)
		}
	}
	slices.SortStableFunc(s.Watch, func(a, b Caption) int { return cmp.Compare(a.At, b.At) })
}

// operandCheck returns the check of a path or aggregate of a caption or a
// prediction against the loops and groups s builds: nil when it names
// only those, or when the topology is broken (already an error).
func (d *decoder) operandCheck(s *Scenario) func(o *operand) *ExpectError {
	groups := s.topology(minDefaultWorkers)
	loops := loopNames(groups)
	var groupNames []string
	for _, g := range groups {
		groupNames = append(groupNames, g.Name)
	}
	return func(o *operand) *ExpectError {
		if d.topologyBroken {
			return nil
		}
		e := &Expect{lhs: *o, rhs: operand{kind: operandLiteral}}
		return e.checkTopology(loops, groupNames, func(name string) string { return d.unknownLoop(name, s, groups) })
	}
}

// textPos places an offset inside a caption's text. A folded block joins
// its lines, so the offset is found again in the source: the placeholder
// around it is searched for in the block's lines, as often as it occurs
// before it in the value.
func (d *decoder) textPos(n *yaml.Node, value string, off int) (string, Pos) {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 || d.src == nil {
		return d.exprPos(n, off)
	}
	f, p := d.at(n)
	if p.Line == 0 {
		return f, p
	}
	rs := []rune(value)
	off = min(off, len(rs))
	start := strings.LastIndex(string(rs[:off]), "{")
	if start < 0 {
		return f, p
	}
	end := strings.IndexAny(value[start:], "} \n")
	if end < 0 {
		end = len(value) - start
	}
	needle := value[start : start+end]
	nth := strings.Count(value[:start], needle)
	inner := len([]rune(string(rs[:off]))) - len([]rune(value[:start]))
	for i, line := range strings.Split(string(d.src), "\n")[p.Line:] {
		for col := 0; ; {
			k := strings.Index(line[col:], needle)
			if k < 0 {
				break
			}
			if nth == 0 {
				return f, Pos{Line: p.Line + i + 1, Col: len([]rune(line[:col+k])) + inner + 1}
			}
			nth--
			col += k + len(needle)
		}
	}
	return f, p
}

// checkCaptionLoops warns of each placeholder naming a loop or group the
// scenario does not build.
func (d *decoder) checkCaptionLoops(n *yaml.Node, text string, parts []captionPart, check func(o *operand) *ExpectError) {
	off := 0
	rs := []rune(text)
	for _, p := range parts {
		if p.val == nil {
			continue
		}
		// Find the placeholder in the text for its position.
		i := strings.Index(string(rs[min(off, len(rs)):]), "{"+p.val.text+"}")
		if i >= 0 {
			off += len([]rune(string(rs[min(off, len(rs)):])[:i])) + 1
		}
		if err := check(p.val); err != nil {
			f, pos := d.textPos(n, text, off+err.Offset)
			d.warn.add(f, pos, "%s", err.Msg)
		}
	}
}
