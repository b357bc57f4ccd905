//go:build linux

package wheel

import "golang.org/x/sys/unix"

// gettid is the calling thread's id: the wheel thread is told apart by it,
// as Netty's HashedWheelTimer compares Thread.currentThread() with its
// workerThread.
func gettid() int { return unix.Gettid() }
