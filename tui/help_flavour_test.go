package tui

import (
	"strings"
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
)

// The help says what the loop design and transport running do: the tour
// (NIO, 4.1.43) accepts one connection per read, as its caption says; 4.1
// NIO up to 16; 4.1 has no idle select timeout.
func TestHelpFollowsTheDesignRunning(t *testing.T) {
	text := func(sets ...string) string {
		sc, err := scenarios.Load("tour")
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range sets {
			k, v, _ := strings.Cut(kv, "=")
			if err := sc.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		var b strings.Builder
		for _, e := range helpEntries(onLive, sc, nil, 0) {
			b.WriteString(e.Text + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		sets        []string
		has, hasNot string
	}{
		{nil, "one connection per read (NIO in Netty 4.1.43)", "up to 16"},
		{nil, "\"self\" counts", "i.e. the loop is (about to be) asleep"},
		{[]string{"netty=4.1"}, "up to 16 connections per read", "one connection per read"},
		{[]string{"netty=4.1"}, "no timeout at all", "1 s when nothing is scheduled"},
		{[]string{"netty=4.1"}, "i.e. the loop is (about to be) asleep", "\"self\" counts"},
		{[]string{"loop.selector=epoll", "loop.trigger=edge", "netty=4.1"}, "up to 16 connections per read (edge-triggered epoll)", "NIO in"},
	} {
		got := text(tc.sets...)
		if !strings.Contains(got, tc.has) || strings.Contains(got, tc.hasNot) {
			t.Errorf("%v: help should say %q and not %q", tc.sets, tc.has, tc.hasNot)
		}
	}
}
