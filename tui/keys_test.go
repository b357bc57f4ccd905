package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/reactorviz/reactorviz/tui/widgets"
)

var screens = []struct {
	name string
	on   screenKind
}{{"live", onLive}, {"replay", onReplay}, {"compare", onCompare}}

func TestKeyTableHasNoClashes(t *testing.T) {
	for _, sc := range screens {
		seen := map[key]string{}
		for _, b := range helpKeys(sc.on) {
			if b.label == "" || b.help == "" {
				t.Errorf("%s: binding for action %d has no label or help", sc.name, b.act)
			}
			for _, k := range b.keys {
				if prev, ok := seen[k]; ok {
					t.Errorf("%s: key %v is bound to both %q and %q", sc.name, k, prev, b.label)
				}
				seen[k] = b.label
			}
		}
	}
}

func TestKeyLookup(t *testing.T) {
	tests := []struct {
		on   screenKind
		ev   *tcell.EventKey
		want action
	}{
		{onLive, runeEv(' '), actPauseAll},
		{onReplay, runeEv(' '), actPlay},
		{onLive, runeEv('n'), actStep},
		{onLive, runeEv('N'), actStepIter},
		{onLive, keyEv(tcell.KeyTab), actNextLoop},
		{onLive, keyEv(tcell.KeyBacktab), actPrevLoop},
		{onReplay, keyEv(tcell.KeyLeft), actBack},
		{onReplay, runeEv('>'), actNextBreak},
		{onCompare, runeEv('s'), actSkip},
		{onCompare, runeEv('n'), actNone},
		{onLive, keyEv(tcell.KeyCtrlC), actQuit},
		{onLive, runeEv('='), actFaster},
	}
	for _, tc := range tests {
		if got := lookup(tc.on, tc.ev); got != tc.want {
			t.Errorf("lookup(%d, %v) = %d, want %d", tc.on, tc.ev.Name(), got, tc.want)
		}
	}
}

// TestFooterAndHelpComeFromOneTable checks that every footer hint is a key
// the help explains, and that help and quit always fit at 80 columns.
func TestFooterAndHelpComeFromOneTable(t *testing.T) {
	th := widgets.NewTheme(true)
	for _, sc := range screens {
		var help strings.Builder
		for _, e := range helpEntries(sc.on) {
			help.WriteString(e.Term + "\n")
		}
		for _, h := range footerHints(sc.on) {
			found := false
			for _, b := range helpKeys(sc.on) {
				if b.label == h.Key || b.footKey == h.Key {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: footer hint %q is not in the key table", sc.name, h.Key)
			}
		}
		var footer strings.Builder
		for _, s := range widgets.HintSegs(footerHints(sc.on), 80, th) {
			footer.WriteString(s.Text)
		}
		for _, want := range []string{"? help", "q quit"} {
			if !strings.Contains(footer.String(), want) {
				t.Errorf("%s: the 80-column footer %q lacks %q", sc.name, footer.String(), want)
			}
		}
	}
}
