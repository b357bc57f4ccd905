// Package counters is the one definition of a loop's counters and of how
// events fold into them. It sits beside the event schema (reactor/trace) and
// imports only that, so the engine's atomics and their snapshot, the UI's
// model, the headless replay and the run summary share one declaration
// (Set), one fold and one table of names read from it, and the breakpoint
// rule that reads them.
package counters
