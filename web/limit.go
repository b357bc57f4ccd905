package web

import (
	"errors"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// connLimiter is a listener that holds at most max connections open. The
// server runs a goroutine per connection, so this bounds them too. At the
// cap, the connection idle the longest (kept alive between requests, or
// not yet through its first request line) is closed to make room: a
// thousand idle sockets do not keep a new visitor out. When every
// connection is busy, Accept waits for one to end or go idle, and the
// kernel's backlog holds the newcomers meanwhile.
//
// An accept that fails for want of file descriptors (EMFILE, ENFILE) lets
// go an idle connection too, and is returned to the server as the
// temporary error it is: net/http's Server.Serve waits and tries again,
// never ending the server for it.
type connLimiter struct {
	net.Listener
	max int

	mu    sync.Mutex
	open  map[*limitedConn]struct{}
	freed chan struct{} // signalled when a connection closes or goes idle
	done  chan struct{} // closed by Close
	once  sync.Once
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, open: map[*limitedConn]struct{}{},
		freed: make(chan struct{}, 1), done: make(chan struct{})}
}

// limitedConn is a connection the limiter counts.
type limitedConn struct {
	net.Conn
	l         *connLimiter
	idle      bool      // under l.mu: no request in progress
	idleSince time.Time // under l.mu
	closeOnce sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		c.l.mu.Lock()
		delete(c.l.open, c)
		c.l.mu.Unlock()
		c.l.signal()
	})
	return err
}

func (l *connLimiter) signal() {
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		n := len(l.open)
		l.mu.Unlock()
		if n < l.max {
			break
		}
		if l.evictIdle() {
			continue
		}
		select {
		case <-l.freed:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
			l.evictIdle()
		}
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l, idle: true, idleSince: time.Now()}
	l.mu.Lock()
	l.open[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// evictIdle closes the connection idle the longest, if one is, and
// reports whether it did.
func (l *connLimiter) evictIdle() bool {
	l.mu.Lock()
	var oldest *limitedConn
	for c := range l.open {
		if c.idle && (oldest == nil || c.idleSince.Before(oldest.idleSince)) {
			oldest = c
		}
	}
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close()
	return true
}

// track is the server's ConnState hook: it marks when a connection waits
// for a request, and when it is busy with one or was taken over by a
// WebSocket, which is never evicted.
func (l *connLimiter) track(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	switch s {
	case http.StateNew, http.StateIdle:
		lc.idle, lc.idleSince = true, time.Now()
	case http.StateActive, http.StateHijacked:
		lc.idle = false
	}
	l.mu.Unlock()
	if s == http.StateIdle {
		l.signal()
	}
}

func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}
