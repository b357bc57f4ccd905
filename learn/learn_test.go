package learn

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
)

var update = flag.Bool("update", false, "rewrite docs/glossary.md")

// TestGlossaryDoc keeps docs/glossary.md what the code defines.
func TestGlossaryDoc(t *testing.T) {
	want := GlossaryMarkdown()
	if *update {
		if err := os.WriteFile("../docs/glossary.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("../docs/glossary.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/glossary.md differs from the glossary; go test ./learn -run Glossary -update")
	}
}

// TestPathCoversChecklist: the lessons together teach C1..C26, each
// lesson's concepts are among its scenario's, and its questions exist.
func TestPathCoversChecklist(t *testing.T) {
	var want []string
	for i := 1; i <= 26; i++ {
		want = append(want, "C"+strconv.Itoa(i))
	}
	if got := Concepts(); !slices.Equal(got, want) {
		t.Errorf("the path covers %v, want %v", got, want)
	}
	for _, l := range Path {
		sc, err := scenarios.Load(l.Scenario)
		if err != nil {
			t.Fatalf("%s: %v", l.Name, err)
		}
		if l.Ask == l.Again || max(l.Ask, l.Again) >= len(sc.Predict) {
			t.Errorf("%s: questions %d and %d of %d", l.Name, l.Ask, l.Again, len(sc.Predict))
		}
		for _, c := range l.Concepts {
			if !slices.Contains(sc.Concepts, c) {
				t.Errorf("%s teaches %s, which %s does not list in concepts:", l.Name, c, l.Scenario)
			}
		}
	}
}

// TestTutorialFollowsPath: docs/tutorial.md has a section per lesson, in
// order, naming its recording, and stays short.
func TestTutorialFollowsPath(t *testing.T) {
	raw, err := os.ReadFile("../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	if n := len(regexp.MustCompile(`\S+`).FindAllString(doc, -1)); n > 4500 {
		t.Errorf("the tutorial is %d words; the path's budget is 4500", n)
	}
	pos := 0
	for i, l := range Path {
		head := regexp.MustCompile(`(?m)^## ` + strconv.Itoa(i+1) + `\. ` + regexp.QuoteMeta(l.Title) + `\b.*\n\nRecording: ` + "`" + regexp.QuoteMeta(l.Scenario) + "`")
		loc := head.FindStringIndex(doc[pos:])
		if loc == nil {
			t.Errorf("no section %d. %s on the recording %s after the previous one", i+1, l.Title, l.Scenario)
			continue
		}
		pos += loc[1]
	}
}
