package model

import (
	"slices"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// The selected-key set (C20) is an array the select fills and the I/O phase
// walks in index order; each key's ready ops are handled CONNECT, then
// WRITE, then READ or ACCEPT (NioEventLoop.processSelectedKey, C21). No
// event names a key, but every op a key's handling does emits one for its
// channel, in the order it does them, so the keys of one I/O phase are the
// runs of consecutive events on one channel. keyLog rebuilds them from the
// events, for the phase running and the one before.

// keyCap bounds the keys kept per phase; the rest are counted.
const keyCap = 16

// opCap bounds the ops kept per key: CONNECT, WRITE, READ and the reply's
// write, with room for a close.
const opCap = 5

// KeyOp is one op a key's handling did, as its event shows it.
type KeyOp uint8

const (
	OpConnect KeyOp = iota + 1 // OP_CONNECT: finishConnect
	OpWrite                    // bytes written before the key's read: OP_WRITE's flush, or what channelActive wrote after a connect
	OpRead                     // OP_READ: bytes read
	OpReply                    // a write after the key's read: the reply flushed on readComplete
	OpAccept                   // OP_ACCEPT on a listening channel
	OpClose                    // the channel closed while its key was handled
)

var opNames = [...]string{OpConnect: "connect", OpWrite: "write", OpRead: "read", OpReply: "reply",
	OpAccept: "accept", OpClose: "close"}

func (o KeyOp) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "?"
}

// Key is one selected key of an I/O phase: its channel and what its
// handling did, in order. A listening channel's key accepts: Accepts
// counts the children it took, and Channel is the first of them.
type Key struct {
	Channel int64
	Ops     []KeyOp
	Accepts int
}

// Keys is the selected-key array of one I/O phase, as far as its events
// show it.
type Keys struct {
	List     []Key
	Unlisted int   // keys past keyCap
	Selected int64 // keys the phase reported (io_end), -1 while it runs
	Time     int64 // when the phase began
	// EmptyAfter counts the I/O phases with no key since this one: the
	// view keeps the latest phase that had keys, as a loop that has
	// just been stepped usually stands after an empty one (a select
	// interrupted by the pause returns none).
	EmptyAfter int64
}

type keyRec struct {
	channel int64
	ops     [opCap]KeyOp
	nOps    uint8
	accepts int32
}

func (k *keyRec) add(op KeyOp) {
	if int(k.nOps) < opCap && (k.nOps == 0 || k.ops[k.nOps-1] != op) {
		k.ops[k.nOps] = op
		k.nOps++
	}
}

// keyPhase is one I/O phase's keys; a value, so a loop's state clones by
// copy.
type keyPhase struct {
	keys     [keyCap]keyRec
	n        int
	unlisted int
	selected int64
	time     int64
}

type keyLog struct {
	cur, last keyPhase // the phase running, the latest with keys
	inIO      bool
	empty     int64 // phases with no key since last
}

// apply folds one event of the loop.
func (k *keyLog) apply(e *trace.Event) {
	switch e.Kind {
	case trace.KindIOBegin:
		k.cur = keyPhase{selected: -1, time: e.Time}
		k.inIO = true
	case trace.KindIOEnd:
		if !k.inIO {
			return
		}
		k.inIO = false
		k.cur.selected = e.A
		if k.cur.n == 0 && k.cur.unlisted == 0 && e.A <= 0 {
			k.empty++
			return
		}
		k.last, k.empty = k.cur, 0
	case trace.KindAccept:
		if k.inIO {
			k.cur.accept(e.A)
		}
	case trace.KindConnect, trace.KindRead, trace.KindWrite, trace.KindClose:
		if k.inIO {
			k.cur.op(e)
		}
	}
}

func (p *keyPhase) accept(child int64) {
	if p.n > 0 && p.keys[p.n-1].accepts > 0 {
		p.keys[p.n-1].accepts++
		return
	}
	if r := p.next(child); r != nil {
		r.add(OpAccept)
		r.accepts = 1
	}
}

func (p *keyPhase) op(e *trace.Event) {
	var r *keyRec
	if p.n > 0 && p.keys[p.n-1].channel == e.A && p.keys[p.n-1].accepts == 0 {
		r = &p.keys[p.n-1]
	} else if r = p.next(e.A); r == nil {
		return
	}
	switch e.Kind {
	case trace.KindConnect:
		r.add(OpConnect)
	case trace.KindRead:
		r.add(OpRead)
	case trace.KindWrite:
		if slices.Contains(r.ops[:r.nOps], OpRead) {
			r.add(OpReply)
		} else {
			r.add(OpWrite)
		}
	case trace.KindClose:
		r.add(OpClose)
	}
}

// next starts the next key, or counts it when the array is full.
func (p *keyPhase) next(channel int64) *keyRec {
	if p.n == keyCap {
		p.unlisted++
		return nil
	}
	p.keys[p.n] = keyRec{channel: channel}
	p.n++
	return &p.keys[p.n-1]
}

// view is the phase running once it has a key, else the latest that had
// one.
func (k *keyLog) view() Keys {
	p, empty := &k.last, k.empty
	if k.inIO && (k.cur.n > 0 || k.cur.unlisted > 0) {
		p, empty = &k.cur, 0
	}
	out := Keys{Unlisted: p.unlisted, Selected: p.selected, Time: p.time, EmptyAfter: empty}
	for _, r := range p.keys[:p.n] {
		out.List = append(out.List, Key{Channel: r.channel, Ops: append([]KeyOp(nil), r.ops[:r.nOps]...), Accepts: int(r.accepts)})
	}
	return out
}
