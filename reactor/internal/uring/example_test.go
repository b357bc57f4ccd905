//go:build linux

package uring_test

import (
	"fmt"
	"runtime"
	"time"

	"github.com/reactorviz/reactorviz/reactor/internal/uring"
	"golang.org/x/sys/unix"
)

// One loop iteration on a ring: keep a read armed on the wakeup eventfd,
// submit and wait in one io_uring_enter, reap. Another thread's write to
// the eventfd is what completes the read and wakes the loop. (Compiled,
// not run: a machine without io_uring has no output to compare.)
func Example() {
	runtime.LockOSThread() // the ring belongs to this thread (SINGLE_ISSUER)
	defer runtime.UnlockOSThread()
	ring, err := uring.New(uring.Options{Entries: 64})
	if err != nil { // errors.Is(err, uring.ErrUnavailable) says io_uring is off here
		fmt.Println(err)
		return
	}
	defer ring.Close()
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer unix.Close(efd)

	counter := make([]byte, 8) // the kernel writes here; it stays reachable
	sqe := ring.GetSQE()
	sqe.PrepRead(efd, counter)
	sqe.UserData = 1

	go unix.Write(efd, []byte{1, 0, 0, 0, 0, 0, 0, 0}) // another thread wakes the loop

	cqes := make([]uring.CQE, 16)
	for {
		if _, err := ring.SubmitAndWait(1, time.Second); err != nil {
			fmt.Println(err)
			return
		}
		if n := ring.Reap(cqes); n > 0 {
			fmt.Printf("woken: user data %d, read %d bytes, %d enters\n", cqes[0].UserData, cqes[0].Res, ring.Stats().Enters)
			return
		}
	}
}
