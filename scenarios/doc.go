// Package scenarios defines reactorviz's scenario files: the YAML format, its
// strict parser and validator, --set overrides, the expectation language,
// and the built-in scenarios embedded in the binary.
//
// A scenario says which Reactor model to build (single, multi or
// master-slave) and how big its groups are, how every event loop is
// configured, what load clients put on the server, what happens on a
// timeline (tasks, timers, injected faults, a graceful shutdown) and which
// expectations over the run summary must hold at the end. The simulation in
// sim/ runs a *Scenario; this package only reads and checks it, and never
// panics on any input: every problem is reported as FILE:LINE:COL: message.
//
// docs/scenarios.md is the reference for the format.
package scenarios
