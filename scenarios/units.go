package scenarios

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// Unit parse errors read as the end of "X must be ...".
var (
	errSize     = errors.New("a size such as 64B, 4KiB or 1MiB")
	errRate     = errors.New(`"max" or a rate such as 200/s`)
	errDuration = errors.New("a duration such as 2s, 500ms or 20us")
)

// parseSize reads a byte size: a whole number of B, KiB or MiB ("64B",
// "4KiB", "1MiB"), or a bare integer meaning bytes. Decimal units (KB, MB)
// are refused because "4KB" is ambiguous between 4000 and 4096.
func parseSize(s string) (int, error) {
	units := []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"B", 1}}
	num, mult := s, 1
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" || len(num) > 9 {
		return 0, errSize
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0, errSize
	}
	return n * mult, nil
}

// formatSize writes a size the way parseSize reads it.
func formatSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

// parseRate reads "max" or a per-second rate such as "200/s" or "0.5/s".
func parseRate(s string) (Rate, error) {
	if s == "max" {
		return Rate{}, nil
	}
	num, ok := strings.CutSuffix(s, "/s")
	if !ok || num == "" || strings.TrimLeft(num, "0123456789.") != "" {
		return Rate{}, errRate
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return Rate{}, errRate
	}
	return Rate{PerSecond: f}, nil
}

// parseDuration reads a Go duration string. A bare number other than 0 is
// refused: "duration: 2" is far more likely to mean seconds than
// nanoseconds, and guessing would hide the mistake.
func parseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	if s == "" || strings.TrimLeft(s, "0123456789.") == "" {
		return 0, errDuration
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errDuration
	}
	return d, nil
}

// durationString formats a duration for messages the way files write it:
// 10m rather than Go's 10m0s.
func durationString(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
