package sim

import (
	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/scenarios"
	"github.com/reactorviz/reactorviz/sim/load"
)

// costStage burns the scenario's handler cost on the loop thread for every
// request read, before the protocol handler answers: a handler doing real
// work in channelRead, as a Netty handler that computes its reply on the
// I/O thread does. Reads carry bytes, not requests, so it counts requests
// by the request size of the run's clients; a read that ends inside a
// request pays for it when the request completes.
type costStage struct {
	reactor.HandlerAdapter
	spins   int    // rounds per request
	reqSize int    // bytes per request
	partial int    // bytes of an incomplete request seen so far
	sink    uint64 // keeps the work live; only this channel's loop writes it
}

func (h *costStage) ChannelRead(ctx *reactor.Context, msg []byte) {
	for i, n := 0, h.requests(len(msg)); i < n; i++ {
		h.sink = spin(h.spins, h.sink|1)
	}
	ctx.FireChannelRead(msg)
}

// requests counts the whole requests that n more bytes complete.
func (h *costStage) requests(n int) int {
	h.partial += n
	done := h.partial / h.reqSize
	h.partial %= h.reqSize
	return done
}

// requestSize is the size of one request of the scenario's clients, by
// which the cost stage counts requests: the first client's, as every
// client of a server speaks its protocol. A server with no clients (serve)
// counts 64 bytes as a request.
func requestSize(sc *scenarios.Scenario) int {
	if len(sc.Clients) > 0 {
		c := sc.Clients[0]
		if n := load.RequestSize(string(c.Protocol), c.Payload); n > 0 {
			return n
		}
	}
	return 64
}
