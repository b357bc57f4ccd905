package sim

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
	"github.com/reactorviz/reactorviz/reactor/protocol"
)

// loopFaults holds the handler faults injected into one loop. The loop's
// handlers read it with atomic loads on every read.
type loopFaults struct {
	blockNanos atomic.Int64 // blocking-handler: sleep this long per read
	panics     atomic.Int64 // panic-handler: panics still to throw
}

// childInit builds a child pipeline: a fault stage in front of the protocol
// handler. The fault stage is where a handler blocks or panics on purpose,
// and where work moves to the business pool when offloading is on (C19).
func (r *Run) childInit(proto string) (func(*reactor.Channel), error) {
	codecInit, err := protocol.NewCounted(proto, 0, func(ch *reactor.Channel) *atomic.Int64 {
		return &r.answered[ch.EventLoop()].Int64
	})
	if err != nil {
		return nil, err
	}
	spins, reqSize := 0, requestSize(r.sc)
	if r.sc.Server.Cost > 0 {
		spins = spinsFor(r.sc.Server.Cost)
	}
	return func(ch *reactor.Channel) {
		if i, ok := r.index[ch.EventLoop()]; ok {
			r.served.note(ch.RemotePort(), i)
		}
		ch.Pipeline().AddLast("faults", &faultStage{run: r, f: r.faults[ch.EventLoop()]})
		if spins > 0 {
			ch.Pipeline().AddLast("cost", &costStage{spins: spins, reqSize: reqSize})
		}
		codecInit(ch)
	}, nil
}

type faultStage struct {
	reactor.HandlerAdapter
	run *Run
	f   *loopFaults
}

func (h *faultStage) ChannelRead(ctx *reactor.Context, msg []byte) {
	if h.f.panics.Load() > 0 && h.f.panics.Add(-1) >= 0 {
		panic("injected handler panic")
	}
	block := time.Duration(h.f.blockNanos.Load())
	if block <= 0 {
		ctx.FireChannelRead(msg)
		return
	}
	if p := h.run.activePool(); p != nil {
		// Offloaded: the slow part runs on the business pool; its result
		// comes back to the loop as a task, as Netty's handlers hand work
		// to an EventExecutorGroup and write from there.
		data := append([]byte(nil), msg...)
		p.submit(ctx.Channel().ID(), func() {
			time.Sleep(block)
			_ = ctx.EventLoop().ExecuteNamed("offloaded reply", func() {
				if ctx.Channel().IsActive() {
					ctx.FireChannelRead(data)
					ctx.FireChannelReadComplete()
				}
			})
		})
		return
	}
	time.Sleep(block) // blocking the I/O thread stalls every channel on it
	ctx.FireChannelRead(msg)
}

// pool is the business thread pool handlers offload to. Work for one
// channel always goes to the same goroutine, so replies keep their order.
type pool struct {
	queues []chan func()
	wg     sync.WaitGroup
	ran    atomic.Int64
	once   sync.Once
}

func newPool(n int) *pool {
	p := &pool{queues: make([]chan func(), max(n, 1))}
	for i := range p.queues {
		q := make(chan func(), 4096)
		p.queues[i] = q
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for fn := range q {
				fn()
				p.ran.Add(1)
			}
		}()
	}
	return p
}

func (p *pool) submit(key uint64, fn func()) {
	defer func() { _ = recover() }() // a send racing stop finds a closed queue: drop it
	p.queues[key%uint64(len(p.queues))] <- fn
}

func (p *pool) stop() {
	p.once.Do(func() {
		for _, q := range p.queues {
			close(q)
		}
	})
	p.wg.Wait()
}

// activePool returns the business pool while offloading is on.
func (r *Run) activePool() *pool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.offloading {
		return r.pool
	}
	return nil
}

func (r *Run) setOffload(on bool, size int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on && r.pool == nil {
		r.pool = newPool(size)
	}
	r.offloading = on
}
