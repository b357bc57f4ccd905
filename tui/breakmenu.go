package tui

import (
	"github.com/reactorviz/reactorviz/reactor/trace/counters"
	"github.com/reactorviz/reactorviz/tui/model"
	"github.com/reactorviz/reactorviz/tui/widgets"
)

// The breakpoint menu (b), which the live and the replay screens share:
// the live screen's breakpoints stop every loop of the run, the replay's
// are where < and > jump to.

// openBreakMenu opens the breakpoint menu titled title on b; set is given
// the breakpoints as the menu changes them.
func (sh *shell) openBreakMenu(title string, b model.Breaks, set func(model.Breaks)) {
	sh.openMenu(widgets.NewCheckMenu(sh.th, title, "space toggles · ←→ or digits set N · esc closes", breakItems(b)),
		func(items []widgets.MenuItem) { set(breaksOf(items)) })
}

// breakItems is the breakpoint menu: one item per row of the breakpoint
// table, keyed by its kind.
func breakItems(b model.Breaks) []widgets.MenuItem {
	var items []widgets.MenuItem
	for _, s := range counters.BreakTable() {
		it := widgets.MenuItem{Key: int(s.Break), Label: s.Label, Numeric: s.Numeric}
		if s.Numeric {
			it.Value = b.Get(s.Break)
		} else {
			it.On = b.Get(s.Break) > 0
		}
		items = append(items, it)
	}
	return items
}

// breaksOf reads the menu's items back by their keys.
func breaksOf(items []widgets.MenuItem) model.Breaks {
	var b model.Breaks
	for _, it := range items {
		v := it.Value
		if !it.Numeric && it.On {
			v = 1
		}
		b.Set(counters.Break(it.Key), v)
	}
	return b
}
