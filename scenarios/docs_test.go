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

// TestDocsListFields checks docs/scenarios.md's field tables against the
// decoder's: each table row of a section is a field of its table, with the
// same type and default, and each field has a row; each timeline action
// and fault has a row naming every parameter it takes.
func TestDocsListFields(t *testing.T) {
	raw, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, sec := range fieldSections() {
		rows := docRows(t, doc, sec.heading)
		seen := map[string]bool{}
		for _, f := range sec.fields {
			key := sec.prefix + f.key
			seen[key] = true
			cells, ok := rows[key]
			switch {
			case !ok:
				t.Errorf("docs/scenarios.md, %s: no row for %s", sec.heading, key)
			case len(cells) < 2 || sec.keysOnly:
			case !strings.HasPrefix(plain(cells[0]), f.typeText()):
				t.Errorf("docs/scenarios.md, %s: %s is %q in the docs, %q in the table", sec.heading, key, plain(cells[0]), f.typeText())
			case plain(cells[1]) != plain(f.def):
				t.Errorf("docs/scenarios.md, %s: %s defaults to %q in the docs, %q in the table", sec.heading, key, plain(cells[1]), f.def)
			case (f.kind == kInt || f.kind == kDuration || f.kind == kSize) && !strings.Contains(cells[2], f.rangeText()[strings.Index(f.rangeText(), ".."):]):
				t.Errorf("docs/scenarios.md, %s: %s's range is not %s in the docs", sec.heading, key, f.rangeText())
			}
		}
		for key := range rows {
			if !seen[key] && (sec.prefix == "" || strings.HasPrefix(key, sec.prefix)) {
				t.Errorf("docs/scenarios.md, %s: row %s is no field of the table", sec.heading, key)
			}
		}
	}
	captions := docSection(t, doc, "## Captions")
	for _, k := range keysOf(watchFields) {
		if !strings.Contains(captions, k+":") {
			t.Errorf("docs/scenarios.md, Captions: no %s:", k)
		}
	}
	actions := docRows(t, doc, "## timeline")
	for _, v := range verbs {
		found := false
		for first, cells := range actions {
			if !strings.HasPrefix(first, v.key+": ") {
				continue
			}
			found = true
			for _, k := range v.takes() {
				if v.key != "inject" && !strings.Contains(cells[0], "`"+k+"`") && !strings.Contains(cells[0], "as `") {
					t.Errorf("docs/scenarios.md, timeline: %s does not name its parameter %s", first, k)
				}
			}
		}
		if !found {
			t.Errorf("docs/scenarios.md, timeline: no row for %s", v.key)
		}
	}
	faultRows := docRows(t, doc, "## Faults")
	for _, f := range faults {
		v, ok := faultVerbs[Fault(f)]
		if !ok {
			t.Errorf("fault %s has no parameters' table in faultVerbs", f)
		}
		cells, ok := faultRows[f]
		if !ok {
			t.Errorf("docs/scenarios.md, Faults: no row for %s", f)
			continue
		}
		for _, k := range keysOf(v.params) {
			if k != "loop" && !strings.Contains(cells[0], "`"+k+"`") {
				t.Errorf("docs/scenarios.md, Faults: %s does not name its parameter %s", f, k)
			}
		}
	}
}

type fieldSection struct {
	heading, prefix string
	fields          []spec
	keysOnly        bool // a table of field and meaning
}

func fieldSections() []fieldSection {
	return []fieldSection{
		{"## Top-level fields", "", specsOf(topFields), false},
		{"## autoscale", "", specsOf(autoScaleFields), false},
		{"## loop", "", specsOf(loopFields), false},
		{"## server", "", specsOf(serverFields), false},
		{"## clients", "", specsOf(clientFields), false},
		{"## wheel and shutdown", "wheel.", specsOf(wheelFields), false},
		{"## wheel and shutdown", "shutdown.", specsOf(shutdownFields), false},
		{"## Predictions", "", specsOf(predictFields), true},
	}
}

// docRows reads the table rows of a section of the docs, by the text in
// backticks that starts each: its other cells.
func docRows(t *testing.T, doc, heading string) map[string][]string {
	body := docSection(t, doc, heading)
	rows := map[string][]string{}
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "¦"), "|")
		first := strings.Trim(cells[1], "` ")
		if k := strings.Index(first, "`"); k >= 0 {
			first = first[:k]
		}
		rows[first] = cells[2:]
	}
	return rows
}

// docSection is the text under a heading, up to the next.
func docSection(t *testing.T, doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/scenarios.md has no %s", heading)
	}
	body := doc[i+len(heading)+2:]
	if j := strings.Index(body, "\n## "); j >= 0 {
		body = body[:j]
	}
	return body
}

// plain is a cell's text without its markup.
func plain(s string) string {
	s = strings.NewReplacer("`", "", `"`, "", "¦", "|", "|", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}
