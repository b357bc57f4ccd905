//go:build linux && !nolive

package reactor

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// listenBacklog is the accept queue length asked of the kernel (capped by
// net.core.somaxconn), like Netty's SOMAXCONN default.
const listenBacklog = 4096

func resolveTCP(addr string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err == nil {
		return ap, nil
	}
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return netip.AddrPort{}, err
	}
	return ta.AddrPort(), nil
}

func sockaddr(ap netip.AddrPort) (unix.Sockaddr, int) {
	if ap.Addr().Is4() || ap.Addr().Is4In6() {
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().Unmap().As4()}, unix.AF_INET
	}
	return &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}, unix.AF_INET6
}

// listenTCP opens a non-blocking, close-on-exec listening socket.
// reusePort sets SO_REUSEPORT, so several server channels, each on its own
// boss loop, can share one port and the kernel spreads connections over them.
func listenTCP(addr string, reusePort bool) (int, netip.AddrPort, error) {
	ap, err := resolveTCP(addr)
	if err != nil {
		return -1, ap, err
	}
	sa, family := sockaddr(ap)
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, ap, os.NewSyscallError("socket", err)
	}
	fail := func(op string, err error) (int, netip.AddrPort, error) {
		unix.Close(fd)
		return -1, ap, os.NewSyscallError(op, err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", err)
	}
	if reusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			return fail("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	if err := unix.Listen(fd, listenBacklog); err != nil {
		return fail("listen", err)
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	return fd, addrPortOf(bound), nil
}

func addrPortOf(sa unix.Sockaddr) netip.AddrPort {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port))
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr), uint16(a.Port))
	}
	return netip.AddrPort{}
}

func portOf(sa unix.Sockaddr) int {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port
	case *unix.SockaddrInet6:
		return a.Port
	}
	return 0
}

// acceptChild takes one pending connection as a non-blocking, close-on-exec
// socket with TCP_NODELAY (Netty's child default).
func acceptChild(lfd int) (int, int, error) {
	fd, sa, err := unix.Accept4(lfd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if err != nil {
		return -1, 0, err
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return fd, portOf(sa), nil
}

// connectTCP starts a non-blocking connect. done is true when the connect
// finished at once (possible on loopback); otherwise the socket becomes
// writable when it completes (OP_CONNECT).
func connectTCP(addr string) (fd int, done bool, err error) {
	ap, err := resolveTCP(addr)
	if err != nil {
		return -1, false, err
	}
	sa, family := sockaddr(ap)
	fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, false, os.NewSyscallError("socket", err)
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	switch err := unix.Connect(fd, sa); err {
	case nil:
		return fd, true, nil
	case unix.EINPROGRESS, unix.EINTR:
		return fd, false, nil
	default:
		unix.Close(fd)
		return -1, false, fmt.Errorf("connect %s: %w", addr, err)
	}
}

// socketError reads and clears SO_ERROR: the outcome of a connect.
func socketError(fd int) error {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	if v != 0 {
		return os.NewSyscallError("connect", unix.Errno(v))
	}
	return nil
}

func closeFD(fd int) { unix.Close(fd) }

// sockRead and sockWrite are read(2) and write(2) on a channel's socket.
// Every channel socket is non-blocking, so neither call can sleep, and they
// go through RawSyscall: the runtime's entersyscall/exitsyscall pair exists
// to hand the P to another thread during a call that may block, and on a
// loop thread that makes two calls per request it is pure overhead (see
// internal/poll). They return 0, not -1, with an error.
func sockRead(fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func sockWrite(fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// localPort is the port a socket is bound to; 0 when it has none.
func localPort(fd int) int {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return 0
	}
	switch in := sa.(type) {
	case *unix.SockaddrInet4:
		return in.Port
	case *unix.SockaddrInet6:
		return in.Port
	}
	return 0
}
