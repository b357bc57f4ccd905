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

// TestFooterKeysAreExplained checks the footer against the help overlay:
// a footer key is either a key the help explains, or a pair written by
// hand (footKey, such as "+/-" or "< >") whose every key it explains. It
// also checks that each footer slot is taken once, each hint has a word,
// and that help and quit always fit at 80 columns.
func TestFooterKeysAreExplained(t *testing.T) {
	th := widgets.NewTheme(true)
	for _, sc := range screens {
		// The keys the help explains: its first section, up to the panes.
		terms := map[string]bool{}
		for i, e := range helpEntries(sc.on, nil, nil, 0) {
			if e.Heading && i > 0 {
				break
			}
			if !e.Heading && e.Text != "" {
				terms[e.Term] = true
			}
		}
		for _, h := range footerHints(sc.on) {
			if h.Desc == "" {
				t.Errorf("%s: footer key %q has no word", sc.name, h.Key)
			}
			if terms[h.Key] {
				continue
			}
			parts := strings.FieldsFunc(h.Key, func(r rune) bool { return r == ' ' || r == '/' })
			for _, k := range parts {
				if !terms[k] {
					t.Errorf("%s: footer key %q: the help does not explain %q", sc.name, h.Key, k)
				}
			}
			if len(parts) == 0 {
				t.Errorf("%s: a footer hint has no key", sc.name)
			}
		}
		slot := map[int]string{}
		for _, b := range helpKeys(sc.on) {
			if b.footer == 0 {
				continue
			}
			if prev, ok := slot[b.footer]; ok {
				t.Errorf("%s: %q and %q both take footer slot %d", sc.name, prev, b.label, b.footer)
			}
			slot[b.footer] = b.label
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
