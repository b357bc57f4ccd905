package scenarios

import (
	"cmp"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
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
	s      *Scenario // being decoded, for fields checked against others

	workersNode, bossesNode *yaml.Node
	// ioRatioNode is loop.io_ratio's value, to warn when a --set of it is
	// shadowed by the timeline's set io_ratio.
	ioRatioNode *yaml.Node
	loopRefs    []loopRef
	// topologyBroken is set when a setting that decides which loops exist
	// was invalid; loop names are then not checked, since every check would
	// be against a guess and only add noise to the real problem.
	topologyBroken bool
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

// scenario decodes the whole document. The fields of topFields are read in
// table order; the sections after them in dependency order: the
// configuration first, then clients and the timeline (which are checked
// against the duration), and expectations last, since their conditions
// read the configuration and their loops need the topology.
func (d *decoder) scenario(root *yaml.Node, s *Scenario) {
	d.s = s
	top := d.mapping(root, "the scenario", keysOf(topFields))
	if top == nil {
		return
	}
	if top.get("name") == nil {
		d.errorf(root, "name is required")
	}
	s.Netty, s.Model, s.Bosses, s.ClientLoops, s.Duration = Netty4143, ModelMulti, 1, 1, defaultDuration
	walk(d, top, "", "", topFields, s)
	d.autoScale(top.get("autoscale"), s)
	d.loop(top.get("loop"), s)
	s.Server = ServerConfig{Protocol: ProtocolEcho, Ports: 1, Addr: defaultAddr}
	fields(d, top.get("server"), "server", "", serverFields, s)
	s.Wheel = WheelConfig{Tick: defaultTick, TicksPerWheel: defaultTicksPerWheel}
	fields(d, top.get("wheel"), "wheel", "", wheelFields, &s.Wheel)
	s.Shutdown = ShutdownConfig{Quiet: defaultQuiet, Timeout: defaultTimeout}
	if m := d.mapping(top.get("shutdown"), "shutdown", keysOf(shutdownFields)); m != nil {
		s.Shutdown = d.shutdownTimes(m, s.Shutdown)
	}
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

// loop reads the loop settings, then checks them against the loop design:
// 4.2 has no ioRatio (setIoRatio is a no-op) and no edge-triggered epoll
// (setEpollMode is a no-op), so both warn; the task quantum exists only in
// 4.2.
func (d *decoder) loop(n *yaml.Node, s *Scenario) {
	s.Loop = LoopConfig{
		IORatio:          defaultIORatio,
		RebuildThreshold: defaultRebuildThreshold,
		Selector:         SelectorNIO,
		Trigger:          TriggerLevel,
		ReadBuffer:       defaultReadBuffer,
		TaskQuantum:      defaultTaskQuantum,
	}
	m := fields(d, n, "loop", "", loopFields, s)
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

// shutdownTimes reads quiet: and timeout: over c, for the shutdown: section
// and a timeline shutdown alike, so both report the same problems. The two
// are compared only when both parsed, so a bad value gives one error, and
// only when this mapping sets one of them: inherited values were checked
// where they were written.
func (d *decoder) shutdownTimes(m *mapping, c ShutdownConfig) ShutdownConfig {
	walk(d, m, "", "", shutdownFields, &c)
	at := m.get("timeout")
	if at == nil {
		at = m.get("quiet")
	}
	if at != nil && !m.bad["quiet"] && !m.bad["timeout"] && c.Timeout < c.Quiet {
		d.errorf(at, "shutdown timeout %s is shorter than the quiet period %s", durationString(c.Timeout), durationString(c.Quiet))
	}
	return c
}

func (d *decoder) clients(n *yaml.Node, s *Scenario) {
	total, inFlight := 0, 0
	var conns, factors []*yaml.Node // for the overrides among them
	for i, item := range d.list(n, "clients", maxClients) {
		m := d.mapping(item, "a client", keysOf(clientFields))
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
		// A client of an http+resp server sends one of the two, and must say which.
		if m.get("protocol") == nil && s.Server.Protocol == ProtocolHTTPRESP {
			d.errorf(item, "a client of an http+resp server needs protocol: http or resp")
		}
		walk(d, m, "", "", clientFields, &c)
		if v := m.get("stop"); v != nil && !m.bad["start"] && !m.bad["stop"] && c.Stop <= c.Start && c.Start < s.Duration {
			d.errorf(v, "stop %s must come after start %s", durationString(c.Stop), durationString(c.Start))
		}
		conns = append(conns, m.get("connections"))
		factors = append(factors, m.get("connections"), m.get("payload"), m.get("pipeline"))
		total += c.Connections
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
	var v *verb
	for i := 0; i < len(item.Content); i += 2 {
		k := item.Content[i]
		j := slices.IndexFunc(verbs, func(v verb) bool { return v.key == k.Value })
		if j < 0 || m.keys[k.Value] != k {
			continue
		}
		if v != nil {
			d.errorf(k, "a timeline entry does one thing; it has both %s and %s", v.key, k.Value)
			return nil
		}
		v = &verbs[j]
	}
	if v == nil {
		d.errorf(item, "a timeline entry needs one of %s", oneOf(verbKeys()))
		return nil
	}
	var step Step
	walk(d, m, "a timeline entry", "", entryFields, &step)
	vn := m.get(v.key)
	value, ok := d.scalar(vn, v.key, v.want)
	if !ok {
		return nil
	}
	takes, what := v.takes(), v.key+" "+value
	switch v.key {
	case "inject":
		if !slices.Contains(faults, value) {
			d.errorf(vn, "unknown fault %s%s", clip(value), hint(value, faults, "the faults are"))
			return nil
		}
		fv := faultVerbs[Fault(value)]
		fv.key, fv.init.fault, fv.build = v.key, Fault(value), v.build
		takes, v = keysOf(fv.params), &fv
	case "submit":
		if value != "tasks" && value != "tail-tasks" {
			d.errorf(vn, "submit must be tasks or tail-tasks, got %s", clip(value))
			return nil
		}
	case "schedule", "wheel", "set", "shutdown":
		if value != v.want {
			d.errorf(vn, "%s must be %s, got %s", v.key, v.want, clip(value))
			return nil
		}
	case "pause":
		what = "pause"
	}
	ok = true
	for _, k := range timelineKeys {
		if k == "at" || m.get(k) == nil || slices.Contains(takes, k) || slices.ContainsFunc(verbs, func(v verb) bool { return v.key == k }) {
			continue // a second verb was reported above
		}
		d.errorf(m.keys[k], "%s does not apply to %s (it takes %s)", k, what, oneOf(takes))
		ok = false
	}
	if !ok {
		return nil
	}
	p := v.init
	switch v.key {
	case "shutdown":
		c := d.shutdownTimes(m, s.Shutdown)
		return Shutdown{Step: step, Quiet: c.Quiet, Timeout: c.Timeout}
	case "pause":
		arg, _ := d.read(&v.arg, vn, v.key)
		p.dur = arg.d
	case "offload":
		switch strings.ToLower(vn.Value) {
		case "on", "true":
			p.on = true
		case "off", "false":
		default:
			d.errorf(vn, "offload must be on or off, got %s", describe(vn))
		}
		if pool := m.get("pool"); pool != nil && !p.on {
			d.errorf(pool, "pool applies to offload: on")
			delete(m.vals, "pool")
		}
	}
	walk(d, m, what, "", v.params, &p)
	if v.key == "set" && s.Netty == Netty42 {
		d.warnf(m.node, "set io_ratio has no effect under netty 4.2 (setIoRatio is a no-op there)")
	}
	return v.build(d, step, value, &p)
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
