package model

import (
	"sync"
	"sync/atomic"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// Model is the live fold: a trace.Sink the collector feeds on its own
// goroutine, and the source of the UI's snapshots. Consume holds the mutex
// for one batch and does a constant amount of work per event, so the UI
// taking a snapshot delays the collector by microseconds, never the loops.
type Model struct {
	mu    sync.Mutex
	st    *State
	log   *eventLog
	tl    timeline
	smp   sampleLog
	dirty atomic.Bool
}

// New returns an empty model that names loops by the given table (it may be
// nil and set later with SetLoops).
func New(loops []trace.LoopInfo) *Model {
	return &Model{st: NewState(loops), log: newEventLog(LogCap), smp: sampleLog{keep: liveSamples}}
}

// SetLoops names loops by trace index.
func (m *Model) SetLoops(loops []trace.LoopInfo) {
	m.mu.Lock()
	m.st.SetLoops(loops)
	m.mu.Unlock()
	m.dirty.Store(true)
}

// Consume folds a batch. It implements trace.Sink.
func (m *Model) Consume(batch []trace.Event) {
	if len(batch) == 0 {
		return
	}
	m.mu.Lock()
	for i := range batch {
		// One fold of where each loop stands, the state's, which the
		// timeline records.
		if mv, ok := m.st.apply(&batch[i]); ok {
			m.tl.record(&batch[i], mv)
		}
	}
	m.log.add(batch)
	m.mu.Unlock()
	m.dirty.Store(true)
}

// ConsumeRecord folds a sample (reactor/trace/sample), placed after the
// events folded so far. It implements trace.RecordSink; other records are
// ignored.
func (m *Model) ConsumeRecord(rec any) {
	s, ok := rec.(*sample.Sample)
	if !ok || s == nil {
		return
	}
	m.mu.Lock()
	m.smp.add(m.st.events, s)
	m.mu.Unlock()
	m.dirty.Store(true)
}

// TakeDirty reports whether events arrived since the last call, and clears
// the mark. The UI's ticker redraws only when it is set (or time moved).
func (m *Model) TakeDirty() bool { return m.dirty.Swap(false) }

// Events returns how many events have been folded.
func (m *Model) Events() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st.events
}

// Snapshot copies what the UI draws. Its cost depends on the number of
// loops and on q, not on how many events were folded.
func (m *Model) Snapshot(q Query) *Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.st.snapshot(q)
	m.tl.fill(s, q.Timeline, m.st.standing)
	m.smp.fill(s, m.st.events)
	ev := m.log.events()
	if q.Log > 0 {
		mt := q.Filter.compile(m.st.names())
		s.Log = ev.lines(q.Log, ev.n, mt.match, nil, m.st)
	}
	if sq := q.Slice; sq.Max > 0 {
		in := func(e *trace.Event) bool { return int(e.Loop) == sq.Loop && e.Time >= sq.From && e.Time < sq.To }
		s.SliceLog = ev.lines(sq.Max, ev.n, in, nil, m.st)
		s.SliceOlder = m.log.full() && ev.at(0).Time > sq.From
	}
	if fq := q.Follow; fq.Max > 0 && fq.Field != "" {
		s.FollowLog = pathLines(fq.followPath(ev.from(0)), m.st.LoopName)
	}
	return s
}
