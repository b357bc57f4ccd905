//go:build linux

// Command gobaseline is the smallest Go server of the bare C peer's shape:
// one OS thread, level-triggered epoll through the Go runtime, raw read and
// write system calls into one shared buffer, inline PING answered with
// +PONG and nothing else. It exists to measure what Go itself costs per
// request on a machine, apart from anything reactorviz's engine does; see
// docs/benchmarks.md ("Where reactorviz's extra CPU goes").
//
//	go build -o /tmp/gobaseline ./docs/bench/gobaseline
//	GOMAXPROCS=3 taskset -c 1 /tmp/gobaseline -addr 127.0.0.1:19050
//	taskset -c 0 redis-benchmark -p 19050 -c 64 -P 16 -n 2000000 -t ping_inline
//
// GOMAXPROCS=3 matches what reactorviz runs with (two loops and a CPU), so
// that the runtime never takes the thread's P away while it sleeps in
// epoll_wait.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:19050", "IPv4 address to listen on")
	flag.Parse()
	if err := serve(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "gobaseline:", err)
		os.Exit(1)
	}
}

func serve(addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() {
		return fmt.Errorf("-addr %q: want an IPv4 HOST:PORT", addr)
	}
	runtime.LockOSThread()
	ln, err := listen(ap)
	if err != nil {
		return err
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	if err := watch(ep, ln); err != nil {
		return err
	}
	events := make([]unix.EpollEvent, 1024)
	in, out := make([]byte, 64<<10), make([]byte, 0, 64<<10)
	for {
		n, err := unix.EpollWait(ep, events, -1)
		if err != nil && err != unix.EINTR {
			return err
		}
		for _, ev := range events[:max(n, 0)] {
			if fd := int(ev.Fd); fd == ln {
				accept(ep, ln)
			} else {
				out = answer(fd, in, out)
			}
		}
	}
}

func listen(ap netip.AddrPort) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		return -1, err
	}
	return fd, unix.Listen(fd, 1024)
}

func watch(ep, fd int) error {
	return unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)})
}

func accept(ep, ln int) {
	for {
		fd, _, err := unix.Accept4(ln, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return
		}
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		if watch(ep, fd) != nil {
			unix.Close(fd)
		}
	}
}

// answer makes one read and one write, as the C peer does; a request split
// across reads is not kept, which redis-benchmark's 6-byte PINGs never meet.
func answer(fd int, in, out []byte) []byte {
	n, err := rawIO(unix.SYS_READ, fd, in)
	if n <= 0 && err != unix.EAGAIN {
		unix.Close(fd) // the epoll registration goes with the last descriptor
		return out
	}
	out = out[:0]
	for b := in[:max(n, 0)]; ; {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			break
		}
		if bytes.Equal(bytes.TrimRight(b[:nl], "\r"), []byte("PING")) {
			out = append(out, "+PONG\r\n"...)
		} else {
			out = append(out, "-ERR unknown command\r\n"...)
		}
		b = b[nl+1:]
	}
	if len(out) > 0 {
		_, _ = rawIO(unix.SYS_WRITE, fd, out)
	}
	return out
}

// rawIO is read or write on a non-blocking socket, without the runtime's
// system-call bookkeeping: it cannot block.
func rawIO(trap uintptr, fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
