package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/reactor/trace/sample"
)

// A sample (reactor/trace/sample) is written as one line per loop, then a
// line for the run that completes it:
//
//	{"sample_loop":"worker-0","tid":4312,"state":"RUNNING","stats":{"iterations":7,...},"gate":{...},"io_ratio":50,"split":{...},"clients":{...}}
//	{"sample":1250000000,"reason":"tick","elapsed_ns":...,"clients":{...},"wheel":{...},...}
//
// A loop's counters list only those that are not zero, and the wheel's
// slots only those that hold a timeout, as slot and count pairs. Each line
// stays under MaxLineBytes: a run line too long for it loses the wheel's
// slots, then the histograms' buckets (their counts and maxima stay).
// Version 1 traces have no sample lines.

// loopLine is a sample's line for one loop.
type loopLine struct {
	Name  string          `json:"sample_loop"`
	State string          `json:"state"`
	Stats json.RawMessage `json:"stats"`
	sample.Loop
}

// runLine is a sample's line for the run.
type runLine struct {
	Time int64 `json:"sample"`
	T    int64 `json:"t,omitempty"` // shadows Sample.Time, which "sample" holds
	*sample.Sample
	Wheel *wheelLine `json:"wheel,omitempty"` // shadows Sample.Wheel
}

// wheelLine is the wheel with its slots as pairs.
type wheelLine struct {
	sample.Wheel
	Size  int   `json:"size"`
	Slots []int `json:"slots,omitempty"` // slot, count, slot, count, ...
}

// ConsumeRecord writes a sample: it implements trace.RecordSink, so the
// collector hands it the run's samples in order with the events. Other
// records are ignored.
func (w *Writer) ConsumeRecord(rec any) {
	s, ok := rec.(*sample.Sample)
	if !ok || s == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return
	}
	w.open()
	if w.hists == nil {
		w.hists = map[int]sample.Hist{}
	}
	for i := range s.Loops {
		l := &s.Loops[i]
		if l.Index < 0 || l.Index >= MaxLoops {
			continue
		}
		if l.Index >= len(w.loops) {
			w.resolveLoop(l.Index)
		}
		ll := loopLineOf(w.loopName(l.Index), l)
		ll.Clients = w.delta(l.Index, ll.Clients)
		var full bool
		w.buf, full = appendLine(w.buf, ll, func(v any) any {
			ll := v.(loopLine)
			ll.Clients.Counts, ll.Clients.Delta = nil, false
			return ll
		})
		w.keep(l.Index, l.Clients, full)
	}
	rl := runLineOf(s, true)
	c := *rl.Sample
	c.Clients.Latency, c.Clients.Accept = w.delta(histLatency, c.Clients.Latency), w.delta(histAccept, c.Clients.Accept)
	rl.Sample = &c
	var full bool
	w.buf, full = appendLine(w.buf, rl, func(any) any {
		rl := runLineOf(s, false)
		c := *rl.Sample
		c.Clients.Latency.Counts, c.Clients.Accept.Counts = nil, nil
		rl.Sample = &c
		return rl
	})
	w.keep(histLatency, s.Clients.Latency, full)
	w.keep(histAccept, s.Clients.Accept, full)
	w.write() // a sample marks a moment the learner may look at the file
}

// The keys of the run's histograms among the loops' (by loop index) in
// the chains of Writer.hists and Reader.hists.
const (
	histLatency = -1
	histAccept  = -2
)

// delta writes h as the buckets that grew since the same histogram's
// previous line, which a reader adds back: the latency histograms are most
// of a sample, and most of their buckets stay the same from one sample to
// the next.
func (w *Writer) delta(key int, h sample.Hist) sample.Hist {
	if prev, ok := w.hists[key]; ok {
		return h.DeltaFrom(&prev)
	}
	return h
}

// keep remembers h as the last line of its chain when the line went out
// whole; otherwise the next line of the chain is written in full.
func (w *Writer) keep(key int, h sample.Hist, full bool) {
	if full {
		w.hists[key] = h
	} else {
		delete(w.hists, key)
	}
}

// loopName is the name written for loop index i.
func (w *Writer) loopName(i int) string {
	// w.loops[i] is `,"loop":"name"`, pre-encoded.
	var name string
	enc := w.loops[i][len(`,"loop":`):]
	if err := json.Unmarshal([]byte(enc), &name); err != nil {
		return ""
	}
	return name
}

func loopLineOf(name string, l *sample.Loop) loopLine {
	b := []byte{'{'}
	for _, c := range counters.Table() {
		if v := c.Get(&l.Stats); v != 0 {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, c.Name)
			b = append(b, ':')
			b = strconv.AppendInt(b, v, 10)
		}
	}
	return loopLine{Name: name, State: l.State.String(), Stats: append(b, '}'), Loop: *l}
}

func runLineOf(s *sample.Sample, slots bool) runLine {
	rl := runLine{Time: s.Time, Sample: s}
	if w := s.Wheel; w != nil {
		wl := &wheelLine{Wheel: *w, Size: len(w.Slots)}
		wl.Wheel.Slots = nil
		if slots {
			for i, n := range w.Slots {
				if n != 0 {
					wl.Slots = append(wl.Slots, i, n)
				}
			}
		} else {
			wl.Size = 0
		}
		rl.Wheel = wl
	}
	return rl
}

// appendLine appends v as one line, or smaller(v) when v's line would be
// longer than a reader takes; full says v went out as it was.
func appendLine(b []byte, v any, smaller func(any) any) (out []byte, full bool) {
	line, err := json.Marshal(v)
	full = true
	if err == nil && len(line) >= MaxLineBytes {
		line, err = json.Marshal(smaller(v))
		full = false
	}
	if err != nil || len(line) >= MaxLineBytes {
		return b, false
	}
	return append(append(b, line...), '\n'), full
}

// undelta reads a histogram of a chain: a delta is added to the chain's
// previous histogram, which the result replaces (or, for a histogram
// without its buckets, ends the chain).
func (r *Reader) undelta(key int, h sample.Hist) (sample.Hist, error) {
	if r.hists == nil {
		r.hists = map[int]sample.Hist{}
	}
	if h.Delta {
		prev, ok := r.hists[key]
		if !ok {
			return h, errors.New("histogram delta without a histogram before it")
		}
		h = h.Undelta(&prev)
	}
	if !h.Valid() {
		return h, errors.New("bad histogram")
	}
	if len(h.Counts) > 0 || h.N == 0 {
		r.hists[key] = h
	} else {
		delete(r.hists, key)
	}
	return h, nil
}

// Placed is a sample with its place in the stream: after the first Events
// events of the trace.
type Placed struct {
	Events int
	*sample.Sample
}

// isSampleLine reports whether a line's members make it a sample line.
func isSampleLine(mem []member) (loop, run bool) {
	for i := range mem {
		switch string(mem[i].key) {
		case "sample_loop":
			return true, false
		case "sample":
			return false, true
		}
	}
	return false, false
}

// sampleLoop reads a sample's loop line into the sample being assembled.
func (r *Reader) sampleLoop(line []byte) error {
	var ll loopLine
	if err := strictDecode(line, &ll); err != nil {
		return err
	}
	idx, ok := r.byName[ll.Name]
	if !ok {
		return fmt.Errorf("sample of unknown loop %q", ll.Name)
	}
	st, ok := trace.ParseState(ll.State)
	if !ok {
		return fmt.Errorf("sample of %s: unknown state %q", ll.Name, ll.State)
	}
	l := ll.Loop
	l.Index, l.State = int(idx), st
	if len(ll.Stats) > 0 {
		if err := json.Unmarshal(ll.Stats, &l.Stats); err != nil {
			return fmt.Errorf("sample of %s: stats: %v", ll.Name, err)
		}
	}
	var err error
	if l.Clients, err = r.undelta(l.Index, l.Clients); err != nil {
		return fmt.Errorf("sample of %s: clients: %v", ll.Name, err)
	}
	for _, p := range r.pending {
		if p.Index == l.Index {
			return fmt.Errorf("sample of %s twice", ll.Name)
		}
	}
	if len(r.pending) >= MaxLoops {
		return errors.New("too many sample_loop lines")
	}
	r.pending = append(r.pending, l)
	return nil
}

// sampleRun reads a sample's run line and returns the sample it completes.
func (r *Reader) sampleRun(line []byte) (*sample.Sample, error) {
	var s sample.Sample
	rl := runLine{Sample: &s}
	if err := strictDecode(line, &rl); err != nil {
		return nil, err
	}
	s.Time = rl.Time
	switch {
	case s.Time < 0 || s.Time > MaxTime:
		return nil, fmt.Errorf("field \"sample\": want 0..%d", MaxTime)
	}
	var err error
	if s.Clients.Latency, err = r.undelta(histLatency, s.Clients.Latency); err != nil {
		return nil, fmt.Errorf("sample: clients latency: %v", err)
	}
	if s.Clients.Accept, err = r.undelta(histAccept, s.Clients.Accept); err != nil {
		return nil, fmt.Errorf("sample: clients accept: %v", err)
	}
	for _, f := range s.Fired {
		for _, l := range f.Loops {
			if l < 0 || l >= len(r.loops) {
				return nil, fmt.Errorf("sample: fired action reaches loop %d, not in the trace", l)
			}
		}
	}
	if w := rl.Wheel; w != nil {
		wh := w.Wheel
		if w.Size < 0 || w.Size > 1<<20 || len(w.Slots)%2 != 0 {
			return nil, errors.New("sample: bad wheel")
		}
		if w.Size > 0 {
			wh.Slots = make([]int, w.Size)
			for i := 0; i < len(w.Slots); i += 2 {
				if w.Slots[i] < 0 || w.Slots[i] >= w.Size {
					return nil, errors.New("sample: wheel slot out of range")
				}
				wh.Slots[w.Slots[i]] = w.Slots[i+1]
			}
		}
		s.Wheel = &wh
	}
	s.Loops, r.pending = r.pending, nil
	return &s, nil
}

// strictDecode decodes one JSON line.
func strictDecode(line []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(line))
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("sample: %v", err)
	}
	return nil
}
