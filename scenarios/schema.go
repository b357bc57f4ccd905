package scenarios

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/reactor/netty"
)

// The scenario format as data: its enumerations, its bounds and defaults,
// and a table of fields for each mapping (key, how it is read and its
// range, where it goes, the documented default and a line of doc). One
// walker (fields.go) reads every table; decode.go holds only the checks
// across fields. docs/scenarios.md and `reactorviz show -h` list the same
// rows: TestDocsListFields keeps the docs in step.

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

func topo[T any](f field[T]) field[T] { f.topo = true; return f }

// is gives a field the getter that makes it a key conditions and captions
// can read (configKeys).
func (f field[T]) is(get func(*Scenario) value) field[T] { f.get = get; return f }

// topFields are the scenario's keys, in the order of the docs and of "did
// you mean". Mappings and lists decoded by their own code have no setter:
// scenario reads them in the order they depend on each other.
var topFields = []field[*Scenario]{
	of("name", kStr, maxName, "— (required)", "lower-case letters, digits and dashes", func(d *decoder, s *Scenario, v value) {
		if !nameRE.MatchString(v.s) {
			d.errorf(v.n, "name must be lower-case letters, digits and dashes, got %q", clip(v.s))
			return
		}
		s.Name = v.s
	}),
	of("summary", kStr, maxSummary, `""`, "one line, shown by reactorviz list", func(d *decoder, s *Scenario, v value) {
		if strings.ContainsAny(v.s, "\r\n") {
			d.errorf(v.n, "summary must be one line")
		}
		s.Summary = v.s
	}),
	of("notes", kStr, maxNotes, `""`, "what the scenario shows, in the TUI's help overlay",
		func(_ *decoder, s *Scenario, v value) { s.Notes = v.s }),
	of("concepts", kList, 26, "[]", "C1..C26 from the teaching checklist, no repeats",
		func(d *decoder, s *Scenario, v value) { d.concepts(v.n, s) }),
	oneof("netty", nettys, "4.1.43", "the loop design (docs/netty-versions.md)",
		func(_ *decoder, s *Scenario, v value) { s.Netty = Netty(v.s) }).
		is(func(s *Scenario) value { return value{s: string(s.Netty)} }),
	topo(oneof("model", models, "multi", "the Reactor model", func(_ *decoder, s *Scenario, v value) {
		if s.Model = Model(v.s); s.Model == ModelMasterSlave {
			s.Bosses = 2
		}
	}).is(func(s *Scenario) value { return value{s: string(s.Model)} })),
	topo(num("bosses", 1, maxBosses, "2 for master-slave, else 1", "boss loops; applies to master-slave only",
		func(d *decoder, s *Scenario, v value) {
			d.bossesNode, s.Bosses = v.n, v.i
			switch {
			case s.Model == ModelSingle && v.i != 1:
				d.warnf(v.n, "bosses does not apply to model single: its one loop, reactor-0, accepts and does I/O")
			case s.Model == ModelMulti && v.i != 1:
				d.warnf(v.n, "model multi has one boss loop; bosses: %d takes effect with model master-slave", v.i)
			}
		}).is(func(s *Scenario) value { return value{i: s.Bosses} })),
	topo(num("workers", 0, maxWorkers, "0", "worker loops; 0 = 2 × CPU cores; does not apply to single",
		func(d *decoder, s *Scenario, v value) {
			d.workersNode, s.Workers = v.n, v.i
			if s.Model == ModelSingle && v.i != 1 {
				d.warnf(v.n, "workers does not apply to model single: its one loop, reactor-0, does all the I/O")
			}
		}).is(func(s *Scenario) value { return value{i: s.Workers} })),
	topo(num("client_loops", 1, maxClientLoops, "1", "loops of the client group of via: engine clients",
		func(_ *decoder, s *Scenario, v value) { s.ClientLoops = v.i }).
		is(func(s *Scenario) value { return value{i: s.ClientLoops} })),
	dur("duration", minDuration, maxDuration, "3s", "how long the run lasts",
		func(_ *decoder, s *Scenario, v value) { s.Duration = v.d }).
		is(func(s *Scenario) value { return value{d: s.Duration} }),
	of[*Scenario]("loop", kMap, 0, "", "settings of every event loop", nil),
	of[*Scenario]("server", kMap, 0, "", "the server's protocol, ports and cost", nil),
	of[*Scenario]("clients", kList, maxClients, "[]", "groups of client connections", nil),
	of[*Scenario]("timeline", kList, maxTimeline, "[]", "the script: actions at times of the run", nil),
	of[*Scenario]("watch", kList, maxWatch, "[]", "captions of what to watch, from a time on", nil),
	of[*Scenario]("wheel", kMap, 0, "", "the HashedWheelTimer", nil),
	of[*Scenario]("shutdown", kMap, 0, "", "the graceful shutdown at the end of the run", nil),
	of[*Scenario]("expect", kList, maxExpects, "[]", "what the run must show", nil),
	of[*Scenario]("compare", kList, maxExpects, "[]", "clauses reactorviz compare checks across the models", nil),
	of[*Scenario]("autoscale", kMap, 0, "", `netty: "4.2" only: the I/O group scales`, nil),
	of[*Scenario]("predict", kList, maxPredicts, "[]", "questions reactorviz learn asks about the run", nil),
}

var loopFields = []field[*Scenario]{
	num("io_ratio", 1, 100, "50", "% of an iteration for I/O; 100 runs all tasks (C16)",
		func(d *decoder, s *Scenario, v value) { d.ioRatioNode, s.Loop.IORatio = v.n, v.i }).
		is(func(s *Scenario) value { return value{i: s.Loop.IORatio} }),
	num("rebuild_threshold", 0, maxRebuildThreshold, "512", "premature selects before a rebuild; below 3 never (C9)",
		func(_ *decoder, s *Scenario, v value) { s.Loop.RebuildThreshold = v.i }).
		is(func(s *Scenario) value { return value{i: s.Loop.RebuildThreshold} }),
	oneof("selector", selectors, "nio", "how readiness is read",
		func(_ *decoder, s *Scenario, v value) { s.Loop.Selector = Selector(v.s) }).
		is(func(s *Scenario) value { return value{s: string(s.Loop.Selector)} }),
	oneof("trigger", triggers, "level", "epoll's trigger mode (C22)",
		func(_ *decoder, s *Scenario, v value) { s.Loop.Trigger = Trigger(v.s) }).
		is(func(s *Scenario) value { return value{s: string(s.Loop.Trigger)} }),
	num("task_queue_capacity", 0, maxTaskQueue, "0", "0 (unbounded) or 16 and up; a full queue rejects",
		func(d *decoder, s *Scenario, v value) {
			if v.i != 0 && v.i < minTaskQueue {
				d.errorf(v.n, "task_queue_capacity must be 0 (unbounded) or %d..%d, got %d", minTaskQueue, maxTaskQueue, v.i)
				return
			}
			s.Loop.TaskQueue = v.i
		}).is(func(s *Scenario) value { return value{i: s.Loop.TaskQueue} }),
	sized("read_buffer", minReadBuffer, maxReadBuffer, "64KiB", "bytes read per read call",
		func(_ *decoder, s *Scenario, v value) { s.Loop.ReadBuffer = v.i }).
		is(func(s *Scenario) value { return value{i: s.Loop.ReadBuffer} }),
	dur("slow_motion", 0, maxSlowMotion, "0", "a delay at every phase boundary",
		func(_ *decoder, s *Scenario, v value) { s.Loop.SlowMotion = v.d }).
		is(func(s *Scenario) value { return value{d: s.Loop.SlowMotion} }),
	dur("task_quantum", minTaskQuantum, maxTaskQuantum, "1s", `netty: "4.2" only: tasks per iteration run this long`,
		func(_ *decoder, s *Scenario, v value) { s.Loop.TaskQuantum = v.d }).
		is(func(s *Scenario) value { return value{d: s.Loop.TaskQuantum} }),
}

var serverFields = []field[*Scenario]{
	oneof("protocol", protocols, "echo", "what the server answers",
		func(_ *decoder, s *Scenario, v value) { s.Server.Protocol = Protocol(v.s) }).
		is(func(s *Scenario) value { return value{s: string(s.Server.Protocol)} }),
	num("ports", 1, maxPorts, "1", "listening ports, each its own server channel",
		func(_ *decoder, s *Scenario, v value) { s.Server.Ports = v.i }).
		is(func(s *Scenario) value { return value{i: s.Server.Ports} }),
	of("reuseport", kBool, 0, "false", "bind every port once per boss loop (SO_REUSEPORT)",
		func(_ *decoder, s *Scenario, v value) { s.Server.ReusePort = v.b }).
		is(func(s *Scenario) value { return value{b: s.Server.ReusePort} }),
	of("addr", kStr, 64, defaultAddr, "a loopback host and the first port; 0 is ephemeral", func(d *decoder, s *Scenario, v value) {
		if d.checkAddr(v.n, v.s, s.Server.Ports) {
			s.Server.Addr = v.s
		}
	}),
	dur("cost", 0, maxCost, "0", "CPU the handler burns per request",
		func(_ *decoder, s *Scenario, v value) { s.Server.Cost = v.d }),
}

var wheelFields = []field[*WheelConfig]{
	dur("tick", minTick, maxTick, "100ms", "the HashedWheelTimer's tick",
		func(_ *decoder, w *WheelConfig, v value) { w.Tick = v.d }).
		is(func(s *Scenario) value { return value{d: s.Wheel.Tick} }),
	num("ticks_per_wheel", 1, maxTicksPerWheel, "512", "slots, rounded up to a power of two",
		func(_ *decoder, w *WheelConfig, v value) { w.TicksPerWheel = v.i }).
		is(func(s *Scenario) value { return value{i: s.Wheel.TicksPerWheel} }),
}

var shutdownFields = []field[*ShutdownConfig]{
	dur("quiet", 0, maxQuiet, "100ms", "the quiet period of the graceful shutdown",
		func(_ *decoder, c *ShutdownConfig, v value) { c.Quiet = v.d }).
		is(func(s *Scenario) value { return value{d: s.Shutdown.Quiet} }),
	dur("timeout", 0, maxTimeout, "2s", "its timeout, at least quiet",
		func(_ *decoder, c *ShutdownConfig, v value) { c.Timeout = v.d }).
		is(func(s *Scenario) value { return value{d: s.Shutdown.Timeout} }),
}

var clientFields = []field[*Client]{
	oneof("protocol", clientProtos, "server.protocol", "what the clients send; must match the server",
		func(d *decoder, c *Client, v value) {
			c.Protocol = Protocol(v.s)
			if !d.s.Server.Protocol.Serves(c.Protocol) {
				d.errorf(v.n, "client protocol %s does not match server.protocol %s", v.s, d.s.Server.Protocol)
			}
		}),
	num("connections", 1, maxConnections, "1", "connections; at most 10000 over all entries",
		func(_ *decoder, c *Client, v value) { c.Connections = v.i }),
	sized("payload", 1, maxPayload, "64B", "the request size of echo clients", func(d *decoder, c *Client, v value) {
		c.Payload = v.i
		if c.Protocol != ProtocolEcho {
			d.warnf(v.n, "payload applies to echo clients only; %s clients send fixed requests", c.Protocol)
		}
	}),
	of("rate", kRate, 0, "max", "requests per second per connection", func(_ *decoder, c *Client, v value) { c.Rate = v.rate }),
	oneof("load", loads, "closed", "closed waits for answers; open sends on the rate's schedule",
		func(d *decoder, c *Client, v value) {
			if c.Load = ClientLoad(v.s); c.Load == LoadOpen && c.Rate.Max() {
				d.errorf(v.n, "load: open sends on a schedule and needs a rate such as 500/s, not rate: max")
			}
		}),
	num("pipeline", 1, maxPipeline, "1", "requests in flight per connection",
		func(_ *decoder, c *Client, v value) { c.Pipeline = v.i }),
	num("requests", 0, maxRequests, "0", "requests per connection, then stop; 0 = until stop",
		func(_ *decoder, c *Client, v value) { c.Requests = v.i }),
	topo(oneof("via", vias, "net", "Go's net package, or the engine's client bootstrap (C24)",
		func(_ *decoder, c *Client, v value) { c.Via = Via(v.s) })),
	dur("start", 0, maxDuration, "0", "when the connections open", func(d *decoder, c *Client, v value) {
		if c.Start = v.d; c.Start >= d.s.Duration {
			d.warnf(v.n, "these clients start at %s, when the run (%s) is over", durationString(c.Start), durationString(d.s.Duration))
		}
	}),
	// Times past the end of the run are only warned about: --set
	// duration=1s on a built-in should shorten it, not fail.
	dur("stop", 0, maxDuration, "duration", "when they close, after start", func(d *decoder, c *Client, v value) {
		if c.Stop = v.d; c.Stop > d.s.Duration {
			d.warnf(v.n, "stop %s is after the end of the run (%s); the clients stop with the run", durationString(c.Stop), durationString(d.s.Duration))
			c.Stop = d.s.Duration
		}
	}),
}

// params are a timeline entry's parameters as read, over its verb's
// defaults.
type params struct {
	fault                    Fault
	loop                     string
	count, cancel, value     int
	pool                     int
	dur, cost, delay, period time.Duration
	from                     Origin
	mode                     ScheduleMode
	on                       bool
}

// A verb is a timeline action: the key that names it, what its value must
// be, its defaults and its parameters' table, and how the action is built.
type verb struct {
	key, want string
	arg       spec // the verb's value, when it is more than a word
	init      params
	params    []field[*params]
	build     func(d *decoder, step Step, value string, p *params) Action
}

const loopHint = "needs loop: (a loop name such as worker-0, or a pattern such as worker-*)"

var (
	pLoop    = field[*params]{spec{key: "loop", kind: kStr, hi: 32, need: loopHint, doc: "the loop or loops it acts on"}, setLoop}
	pLoopAll = field[*params]{spec{key: "loop", kind: kStr, hi: 32, def: "*", doc: "the loop or loops it acts on"}, setLoop}
	pCost    = dur("cost", 0, maxTaskCost, "0", "CPU each task burns", func(_ *decoder, p *params, v value) { p.cost = v.d })
	pFrom    = oneof("from", origins, "external", "submit from outside the loop, or from a task on it",
		func(_ *decoder, p *params, v value) { p.from = Origin(v.s) })
	pPeriod = dur("period", 0, maxDuration, "0", "repeat every period; 0 fires once", func(d *decoder, p *params, v value) {
		if p.period = v.d; v.d > 0 && v.d < time.Millisecond {
			d.errorf(v.n, "period must be 0 (fire once) or at least 1ms, got %s", v.n.Value)
		}
	})
	pMode = oneof("mode", scheduleModes, "fixed-rate with a period", "how a periodic timer repeats",
		func(d *decoder, p *params, v value) {
			if p.period == 0 {
				d.errorf(v.n, "mode %s needs a period; without one the timer fires once", v.s)
				return
			}
			p.mode = ScheduleMode(v.s)
		})
	pCancel = num("cancel", 0, maxTimers, "0", "timeouts cancelled at once, at most count", func(d *decoder, p *params, v value) {
		if v.i > p.count {
			d.errorf(v.n, "cancel %d is more than count %d", v.i, p.count)
			return
		}
		p.cancel = v.i
	})
	pValue = field[*params]{spec{key: "value", name: "io_ratio", kind: kInt, lo: 1, hi: 100, need: "needs value: (1..100)", doc: "the new ioRatio"},
		func(_ *decoder, p *params, v value) { p.value = v.i }}
	pPool = num("pool", 1, maxPool, "4", "business pool goroutines, with on", func(_ *decoder, p *params, v value) { p.pool = v.i })
)

func setLoop(d *decoder, p *params, v value) {
	if loopName.MatchString(v.s) || isPattern(v.s) && loopPattern.MatchString(v.s) {
		d.loopRefs = append(d.loopRefs, loopRef{node: v.n, name: v.s, needsIO: p.fault.needsChannels(), fault: p.fault})
		p.loop = v.s
		return
	}
	d.errorf(v.n, "loop must be a loop name such as worker-0 or a pattern such as worker-*, got %q", clip(v.s))
}

func pCount(hi int) field[*params] {
	return num("count", 1, hi, "1", "how many", func(_ *decoder, p *params, v value) { p.count = v.i })
}

func pDelay(def string) field[*params] {
	return dur("delay", 0, maxDuration, def, "due after this delay", func(_ *decoder, p *params, v value) { p.delay = v.d })
}

func pDuration(def string) field[*params] {
	return dur("duration", time.Millisecond, maxFaultDuration, def, "how long it blocks the loop",
		func(_ *decoder, p *params, v value) { p.dur = v.d })
}

var verbs = []verb{
	{key: "inject", want: "a fault", // its parameters are its fault's: faultVerbs
		build: func(_ *decoder, step Step, _ string, p *params) Action {
			return Inject{Step: step, Fault: p.fault, Loop: p.loop, Duration: p.dur, Count: p.count}
		}},
	{key: "submit", want: "tasks or tail-tasks", init: params{count: 1, from: FromExternal},
		params: []field[*params]{pLoop, pCount(maxCount), pCost, pFrom},
		build: func(_ *decoder, step Step, value string, p *params) Action {
			return Submit{Step: step, Tail: value == "tail-tasks", Loop: p.loop, Count: p.count, Cost: p.cost, From: p.from}
		}},
	{key: "schedule", want: "timers", init: params{count: 1, delay: defaultTimerDelay, from: FromExternal},
		params: []field[*params]{pLoop, pCount(maxTimers), pDelay("100ms"), pPeriod, pMode, pCost, pFrom},
		build: func(_ *decoder, step Step, _ string, p *params) Action {
			if p.mode == "" {
				p.mode = ScheduleOnce
				if p.period > 0 {
					p.mode = ScheduleFixedRate
				}
			}
			return Schedule{Step: step, Loop: p.loop, Count: p.count, Delay: p.delay, Period: p.period, Mode: p.mode, Cost: p.cost, From: p.from}
		}},
	{key: "wheel", want: "timeouts", init: params{count: 1, delay: defaultWheelDelay},
		params: []field[*params]{pCount(maxTimers), pDelay("500ms"), pCancel},
		build: func(_ *decoder, step Step, _ string, p *params) Action {
			return WheelTimeouts{Step: step, Count: p.count, Delay: p.delay, Cancel: p.cancel}
		}},
	{key: "set", want: "io_ratio", init: params{value: defaultIORatio, loop: "*"}, params: []field[*params]{pValue, pLoopAll},
		build: func(d *decoder, step Step, _ string, p *params) Action {
			return SetIORatio{Step: step, IORatio: p.value, Loop: p.loop}
		}},
	{key: "offload", want: "on or off", init: params{pool: defaultPool}, params: []field[*params]{pPool},
		build: func(_ *decoder, step Step, _ string, p *params) Action {
			return Offload{Step: step, On: p.on, Pool: p.pool}
		}},
	{key: "shutdown", want: "graceful"}, // its parameters are shutdownFields
	{key: "pause", want: "a duration such as 500ms", params: []field[*params]{pLoop},
		arg: spec{key: "pause", kind: kDuration, lo: int64(time.Millisecond), hi: int64(maxPause)},
		build: func(d *decoder, step Step, _ string, p *params) Action {
			return Pause{Step: step, For: p.dur, Loop: p.loop}
		}},
}

// faultVerbs are inject's parameters, by fault.
var faultVerbs = map[Fault]verb{
	FaultSpuriousWakeups: {params: []field[*params]{pLoop}},
	FaultJDKEpollBug:     {params: []field[*params]{pLoop}},
	FaultSlowTask:        {init: params{dur: defaultSlowTask}, params: []field[*params]{pLoop, pDuration("100ms")}},
	FaultBlockingHandler: {init: params{dur: defaultBlocking}, params: []field[*params]{pLoop, pDuration("50ms")}},
	FaultPanicHandler:    {init: params{count: 1}, params: []field[*params]{pLoop, pCount(maxPanics)}},
	FaultPanicTask:       {init: params{count: 1}, params: []field[*params]{pLoop, pCount(maxPanics)}},
}

// timelineKeys is every key any timeline entry may have, for the mapping
// check and its "did you mean".
var timelineKeys = timelineKeyList()

// entryFields are what every timeline entry has besides its verb.
var entryFields = []field[*Step]{
	{spec{key: "at", kind: kDuration, hi: int64(maxDuration), need: "needs at: (when it happens)", doc: "when it happens"},
		func(_ *decoder, step *Step, v value) { step.At = v.d }},
}

// timelineKeyList is at:, every verb's parameters in the order of the
// verbs, then the verbs.
func timelineKeyList() []string {
	out := keysOf(entryFields)
	add := func(keys []string) {
		for _, k := range keys {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	for _, v := range verbs {
		if v.key == "inject" {
			for _, f := range faults {
				add(keysOf(faultVerbs[Fault(f)].params))
			}
		}
		add(v.takes())
	}
	return append(out, verbKeys()...)
}

// verbKeys are the keys that say what a timeline entry does.
func verbKeys() []string {
	out := make([]string, len(verbs))
	for i, v := range verbs {
		out[i] = v.key
	}
	return out
}

// takes lists the parameters a verb takes, for messages.
func (v *verb) takes() []string {
	if v.key == "shutdown" {
		return keysOf(shutdownFields)
	}
	return keysOf(v.params)
}
