package model

// The task queue is multi-producer, single-consumer (Netty's MPSC queue,
// C13): any thread may offer a task, and only the loop's own thread polls.
// producers counts a loop's submissions by who made them, so the screen
// can draw the producers feeding the one consumer.

// producerSlots bounds the other loops counted by name; submissions from
// more are counted together. A loop is fed by its boss and a few peers.
const producerSlots = 8

// Producers is what a loop's queue was fed by, in submissions.
type Producers struct {
	Self    int64 // the loop's own thread (an in-loop execute, no wakeup)
	Outside int64 // a thread that is no loop: a client, the script, an executor
	Loops   []ProducerCount
	Others  int64 // other loops past the ones named
}

// ProducerCount is one other loop's submissions.
type ProducerCount struct {
	Loop int // trace index
	Name string
	N    int64
}

// Total is every submission counted.
func (p Producers) Total() int64 {
	n := p.Self + p.Outside + p.Others
	for _, l := range p.Loops {
		n += l.N
	}
	return n
}

type producerSlot struct {
	loop uint16
	n    int64
}

// producerTally is the fold's side of Producers: a value, so a loop's state
// clones by copy.
type producerTally struct {
	self, outside, others int64
	slots                 [producerSlots]producerSlot
	used                  int
}

// add counts one task_submit: external says another thread made it,
// producer is 1 + the submitting loop's trace index, 0 for no loop.
func (p *producerTally) add(external bool, producer int64) {
	switch {
	case !external:
		p.self++
	case producer <= 0 || producer > 1<<16:
		p.outside++
	default:
		p.addLoop(uint16(producer - 1))
	}
}

func (p *producerTally) addLoop(loop uint16) {
	for i := range p.used {
		if p.slots[i].loop == loop {
			p.slots[i].n++
			return
		}
	}
	if p.used == producerSlots {
		p.others++
		return
	}
	p.slots[p.used] = producerSlot{loop: loop, n: 1}
	p.used++
}

func (p *producerTally) view(name func(uint16) string) Producers {
	out := Producers{Self: p.self, Outside: p.outside, Others: p.others}
	for _, s := range p.slots[:p.used] {
		out.Loops = append(out.Loops, ProducerCount{Loop: int(s.loop), Name: name(s.loop), N: s.n})
	}
	return out
}

// producerName names who submitted t: a loop, "self", "outside", or "heap"
// for a scheduled task moved over when due.
func producerName(t *TaskRef, name func(uint16) string) string {
	switch {
	case t.Timer:
		return "heap"
	case !t.External:
		return "self"
	case t.Producer <= 0 || t.Producer > 1<<16:
		return "outside"
	default:
		return name(uint16(t.Producer - 1))
	}
}
