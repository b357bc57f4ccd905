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
	for i := range s.Loops {
		l := &s.Loops[i]
		if l.Index < 0 || l.Index >= MaxLoops {
			continue
		}
		if l.Index >= len(w.loops) {
			w.resolveLoop(l.Index)
		}
		w.buf = appendLine(w.buf, loopLineOf(w.loopName(l.Index), l), func(v any) any {
			ll := v.(loopLine)
			ll.Clients.Counts = nil
			return ll
		})
	}
	w.buf = appendLine(w.buf, runLineOf(s, true), func(any) any {
		rl := runLineOf(s, false)
		c := *rl.Sample
		c.Clients.Latency.Counts, c.Clients.Accept.Counts = nil, nil
		rl.Sample = &c
		return rl
	})
	w.write() // a sample marks a moment the learner may look at the file
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
// longer than a reader takes.
func appendLine(b []byte, v any, smaller func(any) any) []byte {
	line, err := json.Marshal(v)
	if err == nil && len(line) >= MaxLineBytes {
		line, err = json.Marshal(smaller(v))
	}
	if err != nil || len(line) >= MaxLineBytes {
		return b
	}
	return append(append(b, line...), '\n')
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
	if !l.Clients.Valid() {
		return fmt.Errorf("sample of %s: bad clients histogram", ll.Name)
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
	case !s.Clients.Latency.Valid() || !s.Clients.Accept.Valid():
		return nil, errors.New("sample: bad clients histogram")
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
