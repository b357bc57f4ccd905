package tui

import "github.com/reactorviz/reactorviz/tui/model"

// Following a task or a channel, on the live and the replay screens: f
// follows the item of the newest event shown, F the task at the head of
// the focused loop's queue; either key again stops following.

// followHead returns what to follow next: nothing when following already,
// else the task at the head of the focused loop's queue.
func followHead(cur model.FollowQuery, f *model.Frame, focus int, say func(string)) model.FollowQuery {
	if cur.Field != "" {
		return model.FollowQuery{}
	}
	l, ok := loopAt(f.Snapshot, focus)
	switch {
	case !ok:
		say("nothing to follow: focus a loop first (tab)")
	case len(l.QueueHead) == 0:
		say("nothing to follow: " + l.Name + "'s task queue is empty")
	default:
		return model.FollowQuery{Field: "id", ID: l.QueueHead[0].ID}
	}
	return model.FollowQuery{}
}

// toggleFollow returns what to follow next: nothing when following
// already, else the item of the newest of lines that names one.
func toggleFollow(cur model.FollowQuery, lines []model.LogLine, say func(string)) model.FollowQuery {
	if cur.Field != "" {
		return model.FollowQuery{}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if fq, ok := model.FollowOf(&lines[i].Event); ok {
			return fq
		}
	}
	say("nothing to follow: the event pane shows no task or channel event")
	return model.FollowQuery{}
}
