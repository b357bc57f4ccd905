package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestUnits(t *testing.T) {
	sizes := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{in: "64B", want: 64},
		{in: "4KiB", want: 4096},
		{in: "1MiB", want: 1 << 20},
		{in: "512", want: 512},
		{in: "4KB", wantErr: true},
		{in: "KiB", wantErr: true},
		{in: "-1B", wantErr: true},
		{in: "1.5KiB", wantErr: true},
		{in: "9999999999B", wantErr: true},
	}
	for _, c := range sizes {
		got, err := parseSize(c.in)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v", c.in, got, err)
		}
	}
	for _, n := range []int{1, 100, 1024, 3072, 1 << 20, 1<<20 + 1} {
		if back, err := parseSize(formatSize(n)); err != nil || back != n {
			t.Errorf("formatSize(%d) = %q does not read back", n, formatSize(n))
		}
	}
	rates := []struct {
		in       string
		interval time.Duration
		str      string
		wantErr  bool
	}{
		{in: "max", interval: 0, str: "max"},
		{in: "200/s", interval: 5 * time.Millisecond, str: "200/s"},
		{in: "0.5/s", interval: 2 * time.Second, str: "0.5/s"},
		{in: "200", wantErr: true},
		{in: "/s", wantErr: true},
		{in: "1e3/s", wantErr: true},
		{in: "1..2/s", wantErr: true},
	}
	for _, c := range rates {
		r, err := parseRate(c.in)
		if (err != nil) != c.wantErr {
			t.Errorf("parseRate(%q) error %v", c.in, err)
			continue
		}
		if !c.wantErr && (r.Interval() != c.interval || r.String() != c.str) {
			t.Errorf("parseRate(%q) = interval %v, %q", c.in, r.Interval(), r.String())
		}
	}
	durations := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{in: "0", want: 0},
		{in: "2s", want: 2 * time.Second},
		{in: "20us", want: 20 * time.Microsecond},
		{in: "2", wantErr: true},
		{in: "1.5", wantErr: true},
		{in: "soon", wantErr: true},
	}
	for _, c := range durations {
		got, err := parseDuration(c.in)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("parseDuration(%q) = %v, %v", c.in, got, err)
		}
	}
	for d, want := range map[time.Duration]string{10 * time.Minute: "10m", 2 * time.Hour: "2h", 90 * time.Second: "1m30s", 0: "0s"} {
		if got := durationString(d); got != want {
			t.Errorf("durationString(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestMessagesStayOnOneLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain", in: "abc", want: "abc"},
		{name: "newline", in: "a\nb", want: `a\nb`},
		{name: "tab and NUL", in: "a\tb\x00", want: `a\tb\x00`},
		{name: "long", in: strings.Repeat("é", 50), want: strings.Repeat("é", 40) + "…"},
	}
	for _, tt := range tests {
		if got := oneLine(clip(tt.in)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
