package tui

import (
	"strconv"
	"strings"

	"github.com/reactorviz/reactorviz/tui/widgets"
)

// modeText is what a scenario varies that no table shows: the selector's
// semantics (nio or epoll) and the trigger mode (level or edge), as
// "nio/level" for the header.
func modeText(selector, trigger string) string {
	if selector == "" && trigger == "" {
		return ""
	}
	if selector == "io_uring" {
		return selector // completions, not readiness: no trigger mode
	}
	return strings.TrimSuffix(selector+"/"+trigger, "/")
}

// runWhat names a run in a header: scenario, model, mode, and the loop
// design when it is not the default.
func runWhat(name, mdl, mode, netty string) string {
	what := name + " · " + mdl
	if mode != "" {
		what += " · " + mode
	}
	if netty != "" {
		what += " · netty " + netty
	}
	return what
}

// headerMode reads the mode from a trace header's config words.
func headerMode(cfg string) string {
	words := headerWords(cfg)
	return modeText(words["selector"], words["trigger"])
}

// headerWords are a trace header's config words, key=value, by key.
func headerWords(cfg string) map[string]string {
	out := map[string]string{}
	for _, w := range strings.Fields(cfg) {
		k, v, _ := strings.Cut(w, "=")
		out[k] = v
	}
	return out
}

// ioRatioSegs name each loop's ioRatio in a group's title when they
// differ (io-ratio runs workers side by side at 10, 50, 90 and 100), in
// row order; nothing when they agree, as the detail pane says it then.
func ioRatioSegs(rows []widgets.LoopRow, th *widgets.Theme) []widgets.Seg {
	var ratios []string
	differ := false
	for _, r := range rows {
		if r.IORatio <= 0 {
			return nil
		}
		if len(ratios) > 0 && r.IORatio != rows[0].IORatio {
			differ = true
		}
		ratios = append(ratios, strconv.Itoa(r.IORatio))
	}
	if !differ {
		return nil
	}
	return []widgets.Seg{widgets.S(" · ioRatio by row ", th.Base), widgets.S(strings.Join(ratios, " "), th.Warn)}
}
