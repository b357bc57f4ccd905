// Package model folds reactorviz trace events into the state the terminal UI
// draws: per loop its lifecycle state, the phase it is in, its counters, a
// mirror of its task queue head and scheduled heap, a short queue-depth
// history; the timer wheel's cursor; and a capped log of recent events.
//
// It imports nothing from tview or tcell, so it is tested on its own. A
// Model is a trace.Sink for live runs: the collector goroutine folds batches
// into it under a mutex and the UI takes Snapshots at its own pace. A Replay
// holds a recorded trace and rebuilds the state at any event, backwards as
// fast as forwards, from periodic checkpoints.
//
// Everything is bounded whatever the event rate: mirrors are capped and say
// how much they could not show, histories and the log are rings.
package model
