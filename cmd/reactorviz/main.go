// Command reactorviz runs the engine. Until the scenario layer lands it runs
// a short headless demo: an echo server on one boss and two workers, eight
// clients, and the per-loop counters at the end.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/reactorviz/reactorviz/reactor"
)

type echo struct{ reactor.HandlerAdapter }

func (echo) ChannelRead(ctx *reactor.Context, msg []byte) { ctx.Write(msg) }
func (echo) ChannelReadComplete(ctx *reactor.Context)     { ctx.Flush() }

func main() {
	if err := demo(); err != nil {
		fmt.Fprintln(os.Stderr, "reactorviz:", err)
		os.Exit(3)
	}
}

func demo() error {
	boss, err := reactor.NewEventLoopGroup("boss", 1, reactor.Config{})
	if err != nil {
		return err
	}
	worker, err := reactor.NewEventLoopGroup("worker", 2, reactor.Config{})
	if err != nil {
		return err
	}
	b := &reactor.ServerBootstrap{Boss: boss, Worker: worker,
		ChildInit: func(ch *reactor.Channel) { ch.Pipeline().AddLast("echo", echo{}) }}
	sc, err := b.Bind("127.0.0.1:0")
	if err != nil {
		return err
	}
	for i := 0; i < 8; i++ {
		c, err := net.Dial("tcp", sc.Addr().String())
		if err != nil {
			return err
		}
		msg := []byte(fmt.Sprintf("ping %d", i))
		buf := make([]byte, len(msg))
		if _, err := c.Write(msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			return err
		}
		c.Close()
	}
	boss.ShutdownGracefully(0, time.Second)
	worker.ShutdownGracefully(0, time.Second)
	boss.AwaitTermination(5 * time.Second)
	worker.AwaitTermination(5 * time.Second)
	out := map[string]any{}
	for _, l := range append(boss.Loops(), worker.Loops()...) {
		out[l.Name()] = l.Stats()
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
