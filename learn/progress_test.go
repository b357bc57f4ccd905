package learn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Progress read back: a file or localStorage value that is not progress,
// or is too big, is a fresh start with the reason; one without lessons
// still takes outcomes; a kept outcome comes back as it was saved.
func TestProgressReadBack(t *testing.T) {
	for _, bad := range []string{"", "not json", `{"lessons": 3}`} {
		p, err := ParseProgress([]byte(bad))
		if err == nil || p == nil || p.Lessons == nil || len(p.Lessons) != 0 {
			t.Errorf("%q: %+v, %v; want a fresh start and an error", bad, p, err)
		}
	}
	if p, err := ParseProgress([]byte(`{}`)); err != nil || p.Lessons == nil {
		t.Errorf("{}: %+v, %v; want an empty, usable progress", p, err)
	}

	path := filepath.Join(t.TempDir(), "reactorviz", "learn.json")
	if p, err := LoadProgress(path); err != nil || len(p.Lessons) != 0 {
		t.Fatalf("no file: %+v, %v; want a fresh start", p, err)
	}
	p := NewProgress()
	p.Lessons[Path[0].Name] = Outcome{First: true}
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadProgress(path)
	if err != nil || got.Lessons[Path[0].Name] != (Outcome{First: true}) || len(got.Lessons) != 1 {
		t.Errorf("saved and loaded: %+v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte(`{"lessons":{}}`+strings.Repeat(" ", maxProgress)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadProgress(path); err == nil || !strings.Contains(err.Error(), "larger than") || len(got.Lessons) != 0 {
		t.Errorf("an oversized file: %+v, %v; want a fresh start and the reason", got, err)
	}
}
