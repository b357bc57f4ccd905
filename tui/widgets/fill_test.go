package widgets

import (
	"os"
	"os/exec"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// Under RUNEWIDTH_EASTASIAN the rules' lines are two cells wide, and a
// rule drawn w cells wide must still end within its w cells: Fill paints
// such a rune cell by cell, not from its one-cell run. The variable is
// read when the program starts, so the check runs in a child process.
func TestFillKeepsAWideRuneInItsCells(t *testing.T) {
	if os.Getenv("FILL_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestFillKeepsAWideRuneInItsCells$")
		cmd.Env = append(os.Environ(), "FILL_CHILD=1", "RUNEWIDTH_EASTASIAN=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("under RUNEWIDTH_EASTASIAN=1: %v\n%s", err, out)
		}
		return
	}
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(40, 1)
	Fill(scr, 0, 0, 10, '─', tcell.StyleDefault)
	scr.Show()
	cells, w, _ := scr.GetContents()
	for x := 11; x < w; x++ {
		if r := cells[x].Runes; len(r) > 0 && r[0] != ' ' {
			t.Fatalf("a rule 10 cells wide reached cell %d (%q)", x, string(r))
		}
	}
}
