package learn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Progress is what a learner has done on the path, kept between sessions
// in the user's configuration directory so the path can be resumed.
type Progress struct {
	Lessons map[string]Outcome `json:"lessons"`
}

// maxProgress bounds the file read back: it is the learner's, but a file
// is never trusted to be small.
const maxProgress = 1 << 16

// ProgressFile is where the progress is kept: reactorviz/learn.json under
// the user's configuration directory ($XDG_CONFIG_HOME, ~/.config).
func ProgressFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "reactorviz", "learn.json"), nil
}

// NewProgress is a fresh start: no lesson done.
func NewProgress() *Progress { return &Progress{Lessons: map[string]Outcome{}} }

// ParseProgress reads progress kept as JSON (a file's, or the page's
// localStorage); what cannot be read is a fresh start, with the error.
func ParseProgress(data []byte) (*Progress, error) {
	p := NewProgress()
	if err := json.Unmarshal(data, p); err != nil {
		return NewProgress(), err
	}
	if p.Lessons == nil {
		p.Lessons = map[string]Outcome{}
	}
	return p, nil
}

// LoadProgress reads the progress kept in path; a missing file is a
// fresh start.
func LoadProgress(path string) (*Progress, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewProgress(), nil
	}
	if err != nil {
		return NewProgress(), err
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxProgress+1))
	if err != nil {
		return NewProgress(), err
	}
	if len(buf) > maxProgress {
		return NewProgress(), fmt.Errorf("%s: larger than %d bytes; remove it to start over", path, maxProgress)
	}
	p, err := ParseProgress(buf)
	if err != nil {
		return p, fmt.Errorf("%s: %v; remove it to start over", path, err)
	}
	return p, nil
}

// Save writes the progress to path, creating its directory.
func (p *Progress) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Next returns the first lesson of the path not yet done, false when all
// are.
func (p *Progress) Next() (int, bool) {
	for i, l := range Path {
		if _, done := p.Lessons[l.Name]; !done {
			return i, true
		}
	}
	return 0, false
}

// ConceptResult is one line of the end summary: a concept, the lessons
// that teach it and how the learner did on them.
type ConceptResult struct {
	Concept string
	Lessons []string
	Result  string // "right", "right the second time", "wrong twice", "not yet", or a mix
}

// Summary lists each concept the path covers with the learner's result.
func (p *Progress) Summary() []ConceptResult {
	var out []ConceptResult
	for _, c := range Concepts() {
		r := ConceptResult{Concept: c}
		var words []string
		for _, l := range Path {
			if !slices.Contains(l.Concepts, c) {
				continue
			}
			r.Lessons = append(r.Lessons, l.Name)
			w := "not yet"
			if o, ok := p.Lessons[l.Name]; ok {
				w = o.Word()
			}
			if !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		r.Result = strings.Join(words, "; ")
		out = append(out, r)
	}
	return out
}
