//go:build linux && !nolive

package sim

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reactorviz/reactorviz/reactor"
)

// injectJDKEpollBug reproduces the JDK epoll bug on loop l with a real TCP
// connection: the server end is registered on l with interest 0, then the
// client end resets it (SO_LINGER 0). Epoll reports HUP|ERR whatever the
// interest; under nio semantics nothing is selected and select spins.
func (r *Run) injectJDKEpollBug(l *reactor.EventLoop) error {
	srv, cli, err := tcpPair()
	if err != nil {
		return err
	}
	ready := make(chan struct{})
	err = l.Register(srv, func(ch *reactor.Channel) {
		ch.Pipeline().AddLast("victim", &activeHook{fn: func(ch *reactor.Channel) {
			ch.InjectInterestZero()
			close(ready)
		}})
	})
	if err != nil {
		unix.Close(cli)
		return err
	}
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
	}
	_ = unix.SetsockoptLinger(cli, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
	return unix.Close(cli)
}

// activeHook calls fn once the channel is active.
type activeHook struct {
	reactor.HandlerAdapter
	fn func(*reactor.Channel)
}

func (h *activeHook) ChannelActive(ctx *reactor.Context) { h.fn(ctx.Channel()) }

// tcpPair returns both ends of a fresh loopback TCP connection.
func tcpPair() (server, client int, err error) {
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	defer unix.Close(ln)
	lo := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.Bind(ln, lo); err != nil {
		return -1, -1, err
	}
	if err := unix.Listen(ln, 1); err != nil {
		return -1, -1, err
	}
	sa, err := unix.Getsockname(ln)
	if err != nil {
		return -1, -1, err
	}
	client, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	if err := unix.Connect(client, sa); err != nil {
		unix.Close(client)
		return -1, -1, err
	}
	server, _, err = unix.Accept4(ln, unix.SOCK_CLOEXEC)
	if err != nil {
		unix.Close(client)
		return -1, -1, errors.Join(errors.New("accept"), err)
	}
	return server, client, nil
}
