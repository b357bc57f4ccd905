//go:build linux && !nolive

package reactor

// Live reports whether this build has the live engine (epoll, eventfd).
const Live = true
