package model

import (
	"github.com/reactorviz/reactorviz/reactor/netty"
	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
	"strconv"
)

// Query says what a Snapshot should include beyond the per-loop rows.
type Query struct {
	// Focus is the trace index of the loop whose queue head and heap top
	// are wanted; -1 for none.
	Focus int
	// Head is how many queued tasks and scheduled timers of the focused
	// loop to list.
	Head int
	// Log is how many of the latest log events to return.
	Log int
	// Filter selects the log events returned.
	Filter Filter
	// Timeline asks for each loop's lane; none when Cols is 0.
	Timeline TimelineQuery
	// Slice asks for the events of one loop in one stretch of time: the
	// timeline cursor's column, for the inspect panel.
	Slice SliceQuery
	// Follow asks for the events of one task or channel.
	Follow FollowQuery
}

// FollowQuery selects the events of one item across every loop: a task
// by its id (Field "id": task_submit, task_run, task_panic) or a channel
// by its id (Field "channel": accept, register, read, write, close…), at
// most Max of them (the latest); none when Max is 0.
type FollowQuery struct {
	Field string
	ID    int64
	Max   int
}

// SliceQuery selects the events of trace loop Loop in [From, To), at most
// Max of them (the latest); none when Max is 0.
type SliceQuery struct {
	Loop     int
	From, To int64
	Max      int
}

// Snapshot is a copy of the folded state, safe to read while the fold goes on.
type Snapshot struct {
	Events  uint64 // events folded
	Time    int64  // time of the latest event, ns since the run's epoch
	Dropped uint64 // events the run lost to full rings
	Loops   []Loop // event loops (the wheel thread excluded) by trace index order
	Groups  []Group
	Wheel   Wheel
	Paused  int // loops whose latest gate event is a pause
	Log     []LogLine
	// SliceLog is what Query.Slice asked for; SliceOlder says the log no
	// longer reaches back to the slice's start, so some may be missing.
	SliceLog   []LogLine
	SliceOlder bool
	// FollowLog is what Query.Follow asked for, oldest first.
	FollowLog []LogLine
	// Sample is the run's latest sample up to here: what no event
	// carries (nil for a trace without samples, or before the first).
	Sample *sample.Sample
	// Fired lists the script actions the samples up to here fired.
	Fired []sample.Fired
}

// Loop is one event loop in a Snapshot.
type Loop struct {
	Index       int // trace loop index
	Name        string
	Group       string
	TID         int64
	State       trace.State
	Phase       trace.Phase // the phase ring's: see phases.Cursor.At
	Paused      bool
	PausePhase  trace.Phase
	PauseReason string
	Mode        string // select or select_now
	Timeout     int64  // timeout of the latest blocking select, ns
	Budget      int64  // budget of the latest runAllTasks, ns; -1 unlimited
	IOTime      int64  // took_ns of the latest io_end: the ioTime the next budget is cut from
	IOKeys      int64  // keys the latest io_end processed
	Fault       string // latest injected fault
	IORatio     int    // as its latest io_ratio event set it; 0 before one
	Ring        Ring   // zero unless the loop runs on io_uring
	Counters
	History      []int64 // queue depth per HistoryBucket, oldest first
	Timers       int64   // scheduled tasks pending
	NextDeadline int64   // earliest deadline, ns; valid when HasDeadline
	HasDeadline  bool
	QueueHead    []TaskRef  // focused loop only
	QueueHidden  int64      // queued tasks QueueHead leaves out: QueueDepth less the head
	TimerHead    []TimerRef // focused loop only
	Producers    Producers  // who fed its task queue; focused loop only
	Keys         Keys       // its selected keys, this I/O phase's or the last; focused loop only
	Shutdown     Shutdown   // its graceful shutdown, if one began
	Last         int64      // time of its latest event
	Lane         Lane       // its timeline, when the query asked for one
	Split        TimeSplit  // its last second from its phase events, when asked
}

// Ring is what an io_uring loop's events say of its ring: enters so far,
// the SQ fill its latest enter submitted and the CQ fill it found, and the
// operations in flight at its latest submission.
type Ring struct {
	Enters, SQ, CQ, InFlight int64
}

// Group is a set of loops sharing a group name, in order of appearance.
type Group struct {
	Name    string
	Loops   []int  // indexes into Snapshot.Loops
	Chooser string // what Netty's chooser factory would pick for the size (C4)
}

// Wheel is the HashedWheelTimer as the trace shows it.
type Wheel struct {
	Present bool
	Index   int   // its trace loop index: the wheel is a thread of its own
	TID     int64 // its thread id; 0 until it started
	Name    string
	State   trace.State
	Tick    int64 // ticks done
	Slot    int64 // slot of the latest tick
	Size    int   // wheel length inferred from the slots seen (a power of two)
	Pending int64
	Expired int64 // timeouts expired in all
	Recent  []WheelExpire
}

// WheelExpire is one expired wheel timeout.
type WheelExpire struct {
	Tick, Slot, ID, Deadline int64
}

// LogLine is one event of the log with its loop's name.
type LogLine struct {
	Event trace.Event
	Loop  string
	// Repeat counts the earlier events of a periodic kind (wheel_tick)
	// this line stands for: the log folds a run of them into one line,
	// the latest.
	Repeat int
	// Why says why a select_end's select returned (WhySelect); empty for
	// other kinds.
	Why string
}

// LoopName returns the name of a loop index, or its placeholder.
func (s *State) LoopName(i uint16) string {
	if int(i) < len(s.loops) && s.loops[i] != nil {
		return s.loops[i].info.Name
	}
	return placeholderName(int(i))
}

// ChooserPick says where an accept's channel went and the chooser's
// arithmetic that sent it there, as Netty's DefaultEventExecutorChooserFactory
// picks: idx & (n−1) when the group's size n is a power of two, idx % n
// otherwise. Empty when the event does not carry the pick (an
// auto-scaling group, or a trace from before it was traced).
func (s *State) ChooserPick(e *trace.Event) string {
	if e.Kind != trace.KindAccept || !e.Flag || e.D < 0 || e.D >= int64(len(s.loops)) || s.loops[e.D] == nil {
		return ""
	}
	to := uint16(e.D)
	group := s.loops[to].info.Group
	n := 0
	for _, l := range s.loops {
		if l != nil && l.info.Group == group {
			n++
		}
	}
	pick := strconv.FormatUint(uint64(e.E), 10)
	size := strconv.Itoa(n)
	switch {
	case n <= 1:
		return "→ " + s.LoopName(to) + ", the group's one loop"
	case n&(n-1) == 0:
		return "→ " + s.LoopName(to) + ": chooser pick " + pick + " & (" + size + "−1) = " + strconv.FormatUint(uint64(e.E)&uint64(n-1), 10)
	}
	return "→ " + s.LoopName(to) + ": chooser pick " + pick + " % " + size + " = " + strconv.FormatUint(uint64(e.E)%uint64(n), 10)
}

// names returns the loop name table, for filters and log lines.
func (s *State) names() []string {
	out := make([]string, len(s.loops))
	for i := range s.loops {
		out[i] = s.LoopName(uint16(i))
	}
	return out
}

// snapshot copies the fold; the caller adds the log.
func (s *State) snapshot(q Query) *Snapshot {
	snap := &Snapshot{Events: s.events, Time: s.time, Dropped: max(s.dropped, s.extDrop)}
	groupAt := map[string]int{}
	for i, l := range s.loops {
		if l == nil || l.isWheel || !(l.named || l.isLoop) {
			continue
		}
		ls := Loop{
			Index: i, Name: l.info.Name, Group: l.info.Group, TID: l.fold.TID, State: l.fold.State,
			Phase: l.stand.cur.At(), Paused: l.stand.paused, PausePhase: l.stand.pausePhase, PauseReason: l.stand.pauseReason,
			Mode: l.mode, Timeout: l.timeout, Budget: l.budget, IOTime: l.ioTime, IOKeys: l.ioKeys, Fault: l.fault,
			IORatio: int(l.fold.IORatio), Ring: l.ring,
			Counters: Counters{Stats: l.fold.Stats, MaxQueueDepth: l.maxDepth}, History: l.hist.upTo(s.time), Timers: l.timers.count(),
			Last: l.last, Shutdown: l.shutdown,
		}
		if l.stand.paused {
			snap.Paused++
		}
		ls.NextDeadline, ls.HasDeadline = l.timers.nextDeadline()
		if i == q.Focus && q.Head > 0 {
			ls.QueueHead = l.queue.first(q.Head)
			for j := range ls.QueueHead {
				ls.QueueHead[j].From = producerName(&ls.QueueHead[j], s.LoopName)
			}
			ls.TimerHead = l.timers.top(q.Head)
			ls.Producers = l.producers.view(s.LoopName)
			ls.Keys = l.keys.view()
		}
		// The engine's depth, not the mirror, says how many tasks wait:
		// submissions whose events were dropped never reach the mirror.
		ls.QueueHidden = max(ls.QueueDepth-int64(len(ls.QueueHead)), 0)
		g, ok := groupAt[ls.Group]
		if !ok {
			g = len(snap.Groups)
			groupAt[ls.Group] = g
			snap.Groups = append(snap.Groups, Group{Name: ls.Group})
		}
		snap.Groups[g].Loops = append(snap.Groups[g].Loops, len(snap.Loops))
		snap.Loops = append(snap.Loops, ls)
	}
	for i := range snap.Groups {
		snap.Groups[i].Chooser = netty.Chooser(len(snap.Groups[i].Loops))
	}
	w := &s.wheel
	if w.present {
		snap.Wheel = Wheel{
			Present: true, Index: w.loop, Name: s.LoopName(uint16(w.loop)), State: w.state,
			TID:  s.loop(uint16(w.loop)).fold.TID,
			Tick: w.fold.Tick, Slot: w.fold.Slot, Size: pow2AtLeast(w.maxSlot + 1),
			Pending: w.fold.Pending, Expired: w.fold.Expired,
		}
		k := min(w.nrecent, len(w.recent))
		for i := range k {
			snap.Wheel.Recent = append(snap.Wheel.Recent, w.recent[(w.nrecent-k+i)%len(w.recent)])
		}
	}
	return snap
}

func pow2AtLeast(n int64) int {
	p := 1
	for int64(p) < n && p < 1<<20 {
		p <<= 1
	}
	return p
}
