package tui

import "github.com/reactorviz/reactorviz/sim/remote"

// RemoteRun is a run of another process as a Session: a page's live run,
// whose run is in the server's process and whose loops' controls are sent
// to it (sim/remote's Client makes them), as LocalRun is a run of this one.
type RemoteRun struct {
	*remote.Session
	loops []Loop
}

var _ Session = (*RemoteRun)(nil)

// NewRemoteRun wraps s.
func NewRemoteRun(s *remote.Session) *RemoteRun {
	return &RemoteRun{Session: s, loops: asLoops(s.Loops())}
}

// Loops implements Session.
func (r *RemoteRun) Loops() []Loop { return r.loops }
