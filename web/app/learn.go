//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/reactorviz/reactorviz/learn"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui"
)

// The lesson path in the browser (docs/tutorial.md): the page at #learn
// calls reactorvizGo.learn(name) and the program runs the terminal's
// lesson flow on the web screen. It fetches each lesson's recording from
// the site itself, and keeps the learner's progress in the page's
// localStorage rather than a configuration directory.

// progressKey is the localStorage entry the progress is kept in.
const progressKey = "reactorviz.learn"

// jsLearn is reactorvizGo.learn(name): the path from lesson name, or from
// where the learner stopped when name is "".
func (p *player) jsLearn(_ js.Value, args []js.Value) any {
	r := request{name: "learn", learn: true}
	if len(args) > 0 && args[0].Type() == js.TypeString {
		r.lesson = args[0].String()
	}
	post(p.opens, r)
	return nil
}

// startLearn runs the lesson flow on a fresh screen.
func (p *player) startLearn(r request) {
	progress := loadProgress()
	start := learn.Index(r.lesson)
	if start < 0 {
		next, ok := progress.Next()
		if !ok {
			next = 0 // every lesson done: the path again, results kept
		}
		start = next
	}
	cfg := tui.LearnConfig{Start: start, Progress: progress, Save: func() error { return saveProgress(progress) }, Open: fetchRecording}
	p.open(func(s *sizedScreen) error { return tui.RunLearn(cfg, tui.Options{Screen: s, Mouse: true}) })
}

func storage() js.Value { return js.Global().Get("localStorage") }

// loadProgress reads the progress the page kept; anything unreadable is a
// fresh start.
func loadProgress() *learn.Progress {
	st := storage()
	if st.Type() != js.TypeObject {
		return learn.NewProgress()
	}
	v := st.Call("getItem", progressKey)
	if v.Type() != js.TypeString {
		return learn.NewProgress()
	}
	p, _ := learn.ParseProgress([]byte(v.String()))
	return p
}

func saveProgress(p *learn.Progress) error {
	st := storage()
	if st.Type() != js.TypeObject {
		return errors.New("this page has no localStorage")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	st.Call("setItem", progressKey, string(b))
	return nil
}

// fetchRecording fetches a built-in recording from the site, as the page
// does for a replay. It runs on the lesson's goroutine, never in a
// callback, so it may wait for the promise.
func fetchRecording(name string) (*jsonl.Trace, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	var onResp, onBuf, onErr js.Func
	onErr = js.FuncOf(func(_ js.Value, a []js.Value) any {
		msg := "fetch failed"
		if len(a) > 0 {
			msg = a[0].Call("toString").String()
		}
		done <- result{err: errors.New(msg)}
		return nil
	})
	onBuf = js.FuncOf(func(_ js.Value, a []js.Value) any {
		u := js.Global().Get("Uint8Array").New(a[0])
		b := make([]byte, u.Get("length").Int())
		js.CopyBytesToGo(b, u)
		done <- result{data: b}
		return nil
	})
	onResp = js.FuncOf(func(_ js.Value, a []js.Value) any {
		resp := a[0]
		if !resp.Get("ok").Bool() {
			done <- result{err: fmt.Errorf("%d %s", resp.Get("status").Int(), resp.Get("statusText").String())}
			return nil
		}
		resp.Call("arrayBuffer").Call("then", onBuf, onErr)
		return nil
	})
	defer func() { onResp.Release(); onBuf.Release(); onErr.Release() }()
	js.Global().Call("fetch", "recordings/"+js.Global().Call("encodeURIComponent", name).String()+".jsonl.gz").Call("then", onResp, onErr)
	r := <-done
	if r.err != nil {
		return nil, fmt.Errorf("recording %s: %v", name, r.err)
	}
	rd, err := traceReader(r.data)
	if err != nil {
		return nil, fmt.Errorf("recording %s: %v", name, err)
	}
	return jsonl.ReadAll(rd, name)
}
