package reactor

// EngineVersion numbers what the engine records: which events a run emits,
// in what order, and what they count. Every trace header carries it, and the
// built-in recordings (package recordings) are checked against it. Raise it
// with any change that alters a recording of a built-in scenario, then
// re-record them with `go generate ./recordings` on Linux and redraw the
// screen elements drawn from them (`go test ./tui -run TestConceptElements
// -update`); a change that leaves traces as they were (a refactor, a
// faster path) keeps it.
const EngineVersion = 6
