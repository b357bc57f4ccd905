package scenarios

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDocsCoverFormat keeps docs/scenarios.md in step with the code: every
// field, action, fault, summary key, condition key, built-in and limit the
// parser knows must be documented.
func TestDocsCoverFormat(t *testing.T) {
	raw, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	var names []string
	add := func(prefix string, words ...string) {
		for _, w := range words {
			names = append(names, prefix+w)
		}
	}
	add("`", suffixAll(keysOf(topFields), "`")...)
	add("`", suffixAll(keysOf(loopFields), "`")...)
	add("`", suffixAll(keysOf(serverFields), "`")...)
	add("`", suffixAll(keysOf(clientFields), "`")...)
	add("`", timelineKeys...) // written as `at:` or `inject: FAULT`
	add("`", suffixAll(faults, "`")...)
	add("`", suffixAll(models, "`")...)
	add("`", suffixAll(selectors, "`")...)
	add("`", suffixAll(triggers, "`")...)
	add("`", suffixAll(vias, "`")...)
	add("`", suffixAll(loads, "`")...)
	add("`", suffixAll(origins, "`")...)
	add("`", suffixAll(scheduleModes, "`")...)
	add("`", suffixAll(configKeyPaths(), "`")...)
	add("`", suffixAll(builtinOrder, "`")...)
	add("`", suffixAll(aggregates, "`")...)
	add("", states...)
	add("", "`submit: tasks`", "`submit: tail-tasks`", "`schedule: timers`", "`wheel: timeouts`",
		"`set: io_ratio`", "`offload: on`", "`shutdown: graceful`", "`pause: DURATION`",
		"`wheel.tick`", "`wheel.ticks_per_wheel`", "`shutdown.quiet`", "`shutdown.timeout`")
	for _, k := range loopKeys {
		if strings.HasPrefix(k.Path, "time.") {
			continue // documented on a few rows
		}
		names = append(names, "| `"+k.Path+"` |")
	}
	for _, k := range runKeys {
		if strings.HasPrefix(k.Path, "clients.latency_us.") || strings.HasPrefix(k.Path, "clients.accept_us.") {
			continue // documented on one row
		}
		names = append(names, "| `"+k.Path+"`")
	}
	// Bounds and defaults that a reader relies on.
	for _, n := range []int{maxClients, maxTimeline, maxExpects, maxNodes, maxSeparators, maxDepth, maxConnections, maxTotalTasks, maxName, maxSummary, maxNotes, maxExpectLen, maxRebuildThreshold, maxTaskQueue, maxBosses, maxWorkers, maxClientLoops, maxPorts, maxPipeline, maxRequests, maxRatePerSec, maxTicksPerWheel, maxPool, maxPanics, maxTimers, maxCount} {
		names = append(names, strconv.Itoa(n))
	}
	for _, n := range names {
		if !strings.Contains(doc, n) {
			t.Errorf("docs/scenarios.md does not mention %s", n)
		}
	}
}

func suffixAll(words []string, suffix string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w + suffix
	}
	return out
}
