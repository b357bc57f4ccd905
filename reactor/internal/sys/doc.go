// Package sys is the handful of Unix calls and constants the engine's
// portable files use (close, set non-blocking, the thread id, errno values
// and epoll's interest bits), behind build constraints.
//
// On Linux it forwards to golang.org/x/sys/unix. Elsewhere, and on Linux
// with the nolive build tag, it only keeps the engine compiling: the poller
// refuses to open there (internal/poll), so no event loop ever starts and
// nothing here is called for real. Those files import it under the name
// unix, so that a call reads as the system call it is.
package sys
