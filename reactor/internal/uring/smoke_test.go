//go:build linux

package uring

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestSmoke(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := New(Options{Entries: 8})
	if errors.Is(err, ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t.Logf("features %v sq %d cq %d", r.Features(), r.SQEntries(), r.CQEntries())
	efd, _ := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	defer unix.Close(efd)
	buf := make([]byte, 8)
	s := r.GetSQE()
	s.PrepRead(efd, buf)
	s.UserData = 7
	n, err := r.SubmitAndWait(1, 50*time.Millisecond)
	t.Log(n, err)
	var cq [4]CQE
	t.Log(r.Reap(cq[:]), r.Stats())
	go unix.Write(efd, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	n, err = r.SubmitAndWait(1, -1)
	k := r.Reap(cq[:])
	t.Log(n, err, k, cq[0], buf, r.Stats(), r.InFlight())
	b, err := r.NewBufRing(1, 4, 64)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
}
