//go:build linux && !nolive

package poll

import (
	"testing"

	"golang.org/x/sys/unix"
)

// An eventfd registered edge-triggered and never read still reports one
// event per write: the property the loop's wakeup relies on.
func TestEventFDEdgeTriggeredNotifiesPerWrite(t *testing.T) {
	p, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	efd, err := NewEventFD()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(efd)
	if err := p.Add(efd, In|ET); err != nil {
		t.Fatal(err)
	}
	events := make([]Event, 8)
	if n, _ := p.Wait(events, 0); n != 0 {
		t.Fatalf("ready before any write: %d", n)
	}
	for round := 0; round < 3; round++ {
		if err := WriteEventFD(efd); err != nil {
			t.Fatal(err)
		}
		n, err := p.Wait(events, 1000)
		if err != nil || n != 1 || int(events[0].Fd) != efd {
			t.Fatalf("round %d: n=%d err=%v", round, n, err)
		}
		if n, _ := p.Wait(events, 0); n != 0 {
			t.Fatalf("round %d: edge reported twice", round)
		}
	}
}

func TestModDelAndErrors(t *testing.T) {
	p, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	efd, err := NewEventFD()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(efd)
	if err := p.Mod(efd, In); err == nil {
		t.Fatal("Mod of an unregistered fd succeeded")
	}
	if err := p.Add(efd, 0); err != nil {
		t.Fatal(err)
	}
	_ = WriteEventFD(efd)
	events := make([]Event, 4)
	if n, _ := p.Wait(events, 0); n != 0 {
		t.Fatal("interest 0 reported IN")
	}
	if err := p.Mod(efd, In); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Wait(events, 0); n != 1 {
		t.Fatal("level-triggered IN not reported")
	}
	if err := p.Del(efd); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Wait(events, 0); n != 0 {
		t.Fatal("deleted fd still reported")
	}
}
