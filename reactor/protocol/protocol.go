// Package protocol puts the codecs of package codec into an engine pipeline:
// one handler per channel that feeds what it reads to a codec, appends the
// replies straight to the channel's outbound buffer, and flushes once per
// read batch — the shape of a Netty ByteToMessageDecoder that writes on
// channelReadComplete.
package protocol

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/codec"
)

// Names lists the protocols New accepts.
var Names = []string{"echo", "http", "resp", "http+resp"}

// New returns a channel initializer serving the named protocol. limit caps
// one request (codec.DefaultLimit when 0): a client that sends more gets an
// error reply and is disconnected, so it cannot grow the server's memory.
func New(name string, limit int) (func(*reactor.Channel), error) {
	return NewCounted(name, limit, nil)
}

// NewCounted is New with a count of the requests answered: answered, if not
// nil, gives each channel the counter of its loop, which the channel's
// handler adds to once per read (on the loop thread, so a counter per loop
// is written by one thread only).
func NewCounted(name string, limit int, answered func(*reactor.Channel) *atomic.Int64) (func(*reactor.Channel), error) {
	var fn codec.Handler
	var errReply func([]byte, error) []byte
	switch name {
	case "echo":
		fn = codec.HandleEcho
	case "http":
		fn, errReply = codec.HandleHTTP, codec.AppendHTTPError
	case "resp":
		fn, errReply = codec.HandleRESP, codec.AppendRESPError
	case "http+resp":
		// Both on one port, told apart per request as the peer servers do;
		// a bad request's protocol may be unknown, so it closes unanswered.
		fn = codec.HandleMixed
	default:
		return nil, fmt.Errorf("unknown protocol %q (want one of %v)", name, Names)
	}
	if limit <= 0 {
		limit = codec.DefaultLimit
	}
	return func(ch *reactor.Channel) {
		h := &handler{fn: fn, errReply: errReply, limit: limit}
		if answered != nil {
			h.answered = answered(ch)
		}
		ch.Pipeline().AddLast(name, h)
	}, nil
}

// handler is one channel's protocol state: only the unparsed tail of a
// request split across reads, allocated when that happens.
type handler struct {
	reactor.HandlerAdapter
	fn       codec.Handler
	errReply func([]byte, error) []byte
	limit    int
	pending  []byte
	closing  bool
	answered *atomic.Int64 // the loop's count of requests answered; nil: not counted
}

func (h *handler) ChannelRead(ctx *reactor.Context, msg []byte) {
	if h.closing {
		return
	}
	in := msg
	if len(h.pending) > 0 {
		h.pending = append(h.pending, msg...)
		in = h.pending
	}
	consumed, n, out, closeConn, err := h.fn(in, ctx.Outbound(), h.limit)
	if n > 0 && h.answered != nil {
		h.answered.Add(int64(n))
	}
	if err != nil && h.errReply != nil {
		out = h.errReply(out, err)
	}
	ctx.SetOutbound(out)
	if err != nil || closeConn {
		h.closing = true
		h.pending = nil
		return
	}
	h.keep(in[consumed:])
}

// keep saves the unparsed rest for the next read. The read buffer is the
// loop's, reused at once, so the rest must be copied out of it.
func (h *handler) keep(rest []byte) {
	switch {
	case len(rest) == 0:
		h.pending = h.pending[:0]
		if cap(h.pending) > 4<<10 {
			h.pending = nil // do not pin a large buffer to an idle connection
		}
	case len(h.pending) > 0 && &rest[0] == &h.pending[len(h.pending)-len(rest)]:
		h.pending = slices.Delete(h.pending, 0, len(h.pending)-len(rest))
	default:
		h.pending = append(h.pending[:0], rest...)
	}
}

func (h *handler) ChannelReadComplete(ctx *reactor.Context) {
	if h.closing {
		ctx.CloseAfterFlush()
		return
	}
	ctx.Flush()
}
