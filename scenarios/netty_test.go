package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestNettyFlavour(t *testing.T) {
	s, err := Parse("n.yaml", []byte("name: n\n"))
	if err != nil || s.Netty != Netty4143 || s.Loop.TaskQuantum != time.Second {
		t.Fatalf("default: netty %q quantum %v, %v", s.Netty, s.Loop.TaskQuantum, err)
	}
	s, err = Parse("n.yaml", []byte("name: n\nnetty: \"4.2\"\nloop: {task_quantum: 200ms}\n"))
	if err != nil || s.Netty != Netty42 || s.Loop.TaskQuantum != 200*time.Millisecond {
		t.Fatalf("4.2: netty %q quantum %v, %v", s.Netty, s.Loop.TaskQuantum, err)
	}
	for _, tc := range []struct{ src, want string }{
		{"name: n\nnetty: 4.3\n", "n.yaml:2:8: netty must be one of"},
		{"name: n\nnetty: \"4.2\"\nloop: {task_quantum: 10ms}\n", "n.yaml:3:22: task_quantum must be 100ms..10s"},
	} {
		_, err := Parse("n.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestNettyWarnings(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"name: n\nnetty: \"4.2\"\nloop: {io_ratio: 20}\n", "n.yaml:3:18: io_ratio has no effect under netty 4.2"},
		{"name: n\nnetty: \"4.2\"\nloop: {selector: epoll, trigger: edge}\n", "n.yaml:3:34: trigger: edge has no effect under netty 4.2"},
		{"name: n\nloop: {task_quantum: 2s}\n", "n.yaml:2:22: task_quantum has no effect under netty 4.1.43"},
		{"name: n\nnetty: \"4.2\"\ntimeline:\n  - {at: 1s, set: io_ratio, value: 20}\n", "n.yaml:4:5: set io_ratio has no effect under netty 4.2"},
	} {
		s, err := Parse("n.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		w := s.Warnings()
		if len(w) != 1 || !strings.HasPrefix(w[0].String(), tc.want) {
			t.Errorf("%q: warnings %v, want %q", tc.src, w, tc.want)
		}
	}
}
