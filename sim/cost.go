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
	h.partial += len(msg)
	n := h.partial / h.reqSize
	h.partial %= h.reqSize
	for i := 0; i < n; i++ {
		h.sink = spin(h.spins, h.sink|1)
	}
	ctx.FireChannelRead(msg)
}

// requestSize is the size of one request of the scenario's clients, by
// which the cost stage counts requests: the first client's, as every
// client of a server speaks its protocol.
func requestSize(sc *scenarios.Scenario) int {
	for _, c := range sc.Clients {
		return load.RequestSize(string(c.Protocol), c.Payload)
	}
	return load.RequestSize(string(sc.Server.Protocol), 64)
}
