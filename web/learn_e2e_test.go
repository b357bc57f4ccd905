package web

import (
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/internal/leaktest"
	"github.com/reactorviz/reactorviz/learn"
)

// TestBrowserLearn opens the page at #learn in a fresh Chromium (nothing
// in its localStorage): the first lesson asks its question with the run
// held before the moment; answered, it plays on and shows the verdict;
// Enter keeps the outcome in localStorage and opens the next lesson.
func TestBrowserLearn(t *testing.T) {
	exe := needChromium(t)
	leaktest.Check(t)
	site := browserSite(t)
	b := openPage(t, exe, serve(t, site)+"/#learn")
	first := learn.Path[0]
	b.waitScreen("the first lesson's question", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "lesson 1 of") && strings.Contains(s, "How many bytes will") && strings.Contains(s, "your answer")
	})
	b.key("0")
	b.key("Enter")
	verdict := b.waitScreen("the verdict", 20*time.Second, func(s string) bool { return strings.Contains(s, "Right.") })
	if !strings.Contains(verdict, "boss-0.bytes_read = 0") {
		t.Errorf("the verdict lacks the run's figure:\n%s", verdict)
	}
	b.key("Enter")
	b.waitScreen("the next lesson", 20*time.Second, func(s string) bool { return strings.Contains(s, "lesson 2 of") })
	var kept string
	b.eval(`localStorage.getItem("reactorviz.learn") || ""`, &kept)
	if !strings.Contains(kept, `"`+first.Name+`":{"first_right":true`) {
		t.Errorf("localStorage keeps %q, want the first lesson right", kept)
	}
}
