package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reactorviz/reactorviz/learn"
)

// answerWith runs learn with in as standard input.
func answerWith(t *testing.T, in string, args ...string) (int, string, string) {
	t.Helper()
	old := stdin
	stdin = strings.NewReader(in)
	defer func() { stdin = old }()
	return runCLI(t, args...)
}

// questions reads a lesson's two questions from its recording.
func questions(t *testing.T, l learn.Lesson) (m learn.Moments, first, again learn.Question) {
	t.Helper()
	m, err := openMoments(l.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if first, again, err = l.Questions(m); err != nil {
		t.Fatal(err)
	}
	return m, first, again
}

// TestLearnEveryLessonBothWays plays every lesson headless on its
// recording: the right answers get every verdict "right" and no second
// question; wrong ones get "wrong" and the second question.
func TestLearnEveryLessonBothWays(t *testing.T) {
	for _, l := range learn.Path {
		t.Run(l.Name, func(t *testing.T) {
			m, first, again := questions(t, l)
			if first.Question == again.Question {
				t.Errorf("the second question repeats the first: %q", first.Question)
			}
			code, out, errs := answerWith(t, first.RightAnswer()+"\n", "learn", l.Name, "--headless")
			if code != 0 {
				t.Fatalf("right answers: exit %d, stderr %q", code, errs)
			}
			if n := strings.Count(out, "verdict: right"); n != 1 || strings.Contains(out, "verdict: wrong") {
				t.Errorf("right answers: %d right verdicts, want 1 and no wrong one:\n%s", n, out)
			}
			if strings.Contains(out, "second question") {
				t.Errorf("a right answer brought the second question:\n%s", out)
			}
			code, out, errs = answerWith(t, first.WrongAnswer()+"\n"+again.WrongAnswer()+"\n", "learn", l.Name, "--headless")
			if code != 0 {
				t.Fatalf("wrong answers: exit %d, stderr %q", code, errs)
			}
			if n := strings.Count(out, "verdict: wrong"); n != 2 {
				t.Errorf("wrong answers: %d wrong verdicts, want 2:\n%s", n, out)
			}
			if !strings.Contains(out, "second question") || !strings.Contains(out, again.Question) {
				t.Errorf("a wrong answer did not bring the second question %q:\n%s", again.Question, out)
			}
			for _, q := range []learn.Question{first, again} {
				if q.At > m.(interface{ End() time.Duration }).End() && q.At < m.Scenario().Duration {
					t.Errorf("moment %s is past the recording's end", learn.Seconds(q.At))
				}
			}
		})
	}
}

// TestLearnListCoversChecklist: the lessons together name C1..C26.
func TestLearnListCoversChecklist(t *testing.T) {
	code, out, _ := runCLI(t, "learn", "--list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for i := 1; i <= 26; i++ {
		c := "C" + strconv.Itoa(i)
		if !regexp.MustCompile(`\b` + c + `\b`).MatchString(out) {
			t.Errorf("no lesson names %s:\n%s", c, out)
		}
	}
	if got := len(strings.Split(strings.TrimSpace(out), "\n")); got != len(learn.Path) {
		t.Errorf("%d lines for %d lessons", got, len(learn.Path))
	}
}

// TestLearnKeepsProgress: the text path saves each lesson's outcome in the
// configuration directory and resumes after it; the summary lists each
// concept with the result.
func TestLearnKeepsProgress(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	_, first, _ := questions(t, learn.Path[0])
	// One right answer, then the input ends: stopped, to resume at the
	// second lesson.
	code, out, errs := answerWith(t, first.RightAnswer()+"\n", "learn")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "resumes at "+learn.Path[1].Name) {
		t.Errorf("no resume point after the first lesson:\n%s", out)
	}
	code, out, _ = answerWith(t, "", "learn")
	if code != 0 || !strings.Contains(out, "lesson 2 of") {
		t.Errorf("learn did not resume at lesson 2 (exit %d):\n%s", code, out)
	}
	code, out, _ = runCLI(t, "learn", "--summary")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !regexp.MustCompile(`C1 +right +groups`).MatchString(out) || !regexp.MustCompile(`C23 +not yet`).MatchString(out) {
		t.Errorf("summary:\n%s", out)
	}
}

// Flags that each do one thing are refused together, rather than one of
// them dropped: --headless --summary would walk the path instead.
func TestLearnRefusesFlagsThatExcludeEachOther(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, args := range [][]string{{"--headless", "--summary"}, {"--headless", "--reset"}, {"--list", "--reset"}, {"--list", "--headless"}} {
		code, out, errs := answerWith(t, "", append([]string{"learn"}, args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, args[0]) {
			t.Errorf("learn %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

func TestLearnUnknownLesson(t *testing.T) {
	if code, _, errs := runCLI(t, "learn", "nosuch", "--headless"); code != exitUsage || !strings.Contains(errs, "groups") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestValidateRefusesBrokenPredict: validate names a broken predict:
// item's position and exits 2.
func TestValidateRefusesBrokenPredict(t *testing.T) {
	p := writeFile(t, "p.yaml", "name: p\nsummary: s\nmodel: multi\nduration: 1s\nserver: {protocol: echo}\npredict:\n"+
		"  - {at: 2s, question: q, answer: worker-0.accepted, why: w}\n"+
		"  - {at: 500ms, question: q, answer: worker-0.acepted, why: w}\n")
	code, _, errs := runCLI(t, "validate", p)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d: %s", code, exitUsage, errs)
	}
	for _, want := range []string{p + ":7:10: this moment, 2s, is past the run's end at 1s", p + ":8:47: unknown loop counter acepted"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
