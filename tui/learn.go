package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/learn"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
)

// The lesson flow (docs/tutorial.md) on the replay screen: the caption
// lines carry the lesson's scene and question, the run is held a moment
// before the question's moment while the learner answers on the prompt
// line, then it plays on to the moment, the rows and log lines of the
// answer's figures are marked, and the caption gives the verdict, the
// run's figure and why. A wrong answer brings the lesson's second
// question; the outcome is saved before the next lesson opens.

// LearnConfig says where the path starts and how it is kept.
type LearnConfig struct {
	Start    int // index in learn.Path
	Progress *learn.Progress
	// Save keeps Progress after each lesson; nil keeps nothing.
	Save func() error
	// Open reads the recording of a built-in scenario.
	Open func(scenario string) (*jsonl.Trace, error)
}

// learnStage is where a lesson stands.
type learnStage int

const (
	stageAsk     learnStage = iota // held before the moment, the prompt open
	stageMove                      // playing on to the moment
	stageVerdict                   // at the moment, the verdict shown
	stageDone                      // the path is over: the summary
)

type learnView struct {
	*replayView
	cfg    LearnConfig
	idx    int
	lesson learn.Lesson
	qs     [2]learn.Question
	second bool // the second question is asked
	stage  learnStage
	right  bool
	out    learn.Outcome
	target time.Duration // the moment on the recording's clock
}

// RunLearn plays the path from cfg.Start in the terminal.
func RunLearn(cfg LearnConfig, o Options) error {
	sh := newShell(o)
	lv := &learnView{cfg: cfg}
	if err := lv.open(sh, cfg.Start); err != nil {
		sh.restore()
		return err
	}
	return sh.run(lv)
}

// open loads lesson i's recording and asks its first question.
func (lv *learnView) open(sh *shell, i int) error {
	l := learn.Path[i]
	tr, err := lv.cfg.Open(l.Scenario)
	if err != nil {
		return fmt.Errorf("lesson %s: %w", l.Name, err)
	}
	// The questions' figures and the screen come from one replay: the
	// verdict reads what the screen beside it shows.
	rec := NewRecorded(tr)
	first, again, err := l.Questions(rec)
	if err != nil {
		return err
	}
	lv.replayView = newReplayView(sh, l.Scenario, tr.Header, rec.rep)
	lv.banner = "lesson " + fmt.Sprint(i+1) + " of " + fmt.Sprint(len(learn.Path)) + ": " + l.Title + " (" + strings.Join(l.Concepts, ", ") + ")"
	lv.filter = model.ParseFilter(l.Log)
	lv.idx, lv.lesson, lv.qs, lv.second, lv.out = i, l, [2]learn.Question{first, again}, false, learn.Outcome{}
	lv.ask()
	return nil
}

func (lv *learnView) q() *learn.Question {
	if lv.second {
		return &lv.qs[1]
	}
	return &lv.qs[0]
}

// ask holds the run a little before the question's moment and opens the
// prompt.
func (lv *learnView) ask() {
	q := lv.q()
	lv.target = min(q.At, time.Duration(lv.rep.EndTime()))
	if sc := lv.sc; sc != nil && q.At >= sc.Duration {
		lv.target = time.Duration(lv.rep.EndTime())
	}
	var since time.Duration
	if lv.second {
		since = lv.qs[0].At
	}
	lv.setPlaying(false)
	// Seek, not SeekTime: the questions' figures were read from this
	// replay, which may stand past the hold.
	hold := min(learn.HoldAt(lv.sc, q.At, since), lv.target)
	lv.rep.Seek(lv.rep.PosAtTime(int64(hold)))
	lv.stage = stageAsk
	lv.prompt()
}

// prompt opens the answer line, or the line that goes on.
func (lv *learnView) prompt() {
	q := lv.q()
	switch lv.stage {
	case stageAsk:
		lv.sh.openPrompt("your answer ("+q.Hint()+"; esc looks around, space comes back): ", "", lv.answer)
	case stageVerdict:
		next := "the next lesson"
		switch {
		case !lv.right && !lv.second:
			next = "a second question"
		case lv.idx+1 == len(learn.Path):
			next = "the summary"
		}
		lv.sh.openPrompt("Enter: "+next+" (esc looks around, space comes back) ", "", func(string) { lv.next() })
	case stageDone:
		lv.sh.openPrompt("Enter quits ", "", func(string) { lv.act(actQuit) })
	}
}

// answer checks what was typed and plays on to the moment.
func (lv *learnView) answer(typed string) {
	q := lv.q()
	right, ok := q.Check(typed, q.Figure)
	if !ok {
		lv.sh.say(fmt.Sprintf("%q is not an answer here: %s", strings.TrimSpace(typed), q.Hint()))
		lv.prompt()
		return
	}
	lv.right = right
	if lv.second {
		lv.out.Again = right
	} else {
		lv.out.First = right
	}
	lv.stage = stageMove
	lv.setSpeed(recordedPace)
	lv.setPlaying(true)
}

// next goes on after a verdict: the second question, or the next lesson.
func (lv *learnView) next() {
	if !lv.right && !lv.second {
		lv.second, lv.out.Second = true, true
		lv.ask()
		return
	}
	if lv.cfg.Progress != nil {
		lv.cfg.Progress.Lessons[lv.lesson.Name] = lv.out
		if lv.cfg.Save != nil {
			if err := lv.cfg.Save(); err != nil {
				lv.sh.say("progress not kept: " + err.Error())
			}
		}
	}
	if lv.idx+1 >= len(learn.Path) {
		lv.stage = stageDone
		lv.prompt()
		return
	}
	if err := lv.open(lv.sh, lv.idx+1); err != nil {
		lv.sh.say(err.Error())
		lv.stage = stageDone
		lv.prompt()
	}
}

func (lv *learnView) title() string { return "learn · " + lv.lesson.Name }

// act lets the learner look around the replay, but not past the moment
// before answering: space brings the prompt back instead of playing.
func (lv *learnView) act(a action) {
	switch a {
	case actPlay:
		if !lv.sh.promptOn {
			lv.prompt()
		}
	case actFwd, actBack, actFwdPage, actBackPage, actStart, actEnd, actGoto, actNextBreak, actPrevBreak:
		if lv.stage == stageAsk || lv.stage == stageMove {
			lv.sh.say("the run waits for your answer: space")
			return
		}
		lv.replayView.act(a)
	default:
		lv.replayView.act(a)
	}
}

func (lv *learnView) refresh() {
	lv.replayView.refresh()
	if lv.stage == stageMove && (lv.rep.Time() >= int64(lv.target) || !lv.playing.Load()) {
		lv.setPlaying(false)
		lv.rep.SeekTime(int64(lv.target))
		lv.stage = stageVerdict
		lv.replayView.refresh()
		lv.prompt()
	}
	lv.caption.action = ""
	lv.caption.watch = lv.words()
	lv.caption.points = nil
	if lv.stage == stageVerdict {
		// Point at the answer: the rows of the loops its figures read,
		// and the log lines of the events that count them.
		lv.caption.points = lv.q().Points(frameResolver{lv.frame}.Loops())
		markWatched(lv.frame, lv.caption)
		lv.body.show(lv.frame, lv.focus, lv.filter, emptyReplayLog(lv.filter))
		lv.body.point(lv.caption)
	}
}

// words is what the caption lines say at this stage.
func (lv *learnView) words() string {
	q := lv.q()
	scene := strings.Join(strings.Fields(lv.lesson.Scene), " ")
	switch lv.stage {
	case stageAsk, stageMove:
		// The question first: a long scene pages, and the question must
		// be on the first page.
		ask := "Before " + learn.Seconds(q.At) + ": " + strings.ReplaceAll(q.Prompt(), "\n  ", "   ")
		if lv.second {
			return "Second question. " + ask
		}
		return ask + " ▸ " + scene
	case stageVerdict:
		verdict := "Wrong."
		if lv.right {
			verdict = "Right."
		}
		return verdict + " At " + learn.Seconds(q.At) + " the run shows " + q.FigureText() + ". " + q.Why
	}
	const done = "The path is done. "
	if lv.cfg.Progress == nil {
		return done
	}
	var results []string
	for _, c := range lv.cfg.Progress.Summary() {
		results = append(results, c.Concept+" "+c.Result)
	}
	return done + strings.Join(results, " · ")
}
