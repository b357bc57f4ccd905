package tui

import (
	"strings"

	"github.com/reactorviz/reactorviz/tui/model"
)

// How the screens write what more than one of them shows: an error on a
// header or a column, a client latency on the compare screen and its
// lockstep replay.

// errText is err on one line; "unknown error" for none.
func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

// usText is a latency given in µs, "-" for none.
func usText(us float64) string {
	if us <= 0 {
		return "-"
	}
	return model.Duration(int64(us * 1000))
}
