package compare

import (
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
)

// Every figure a compare clause may name is one the figures give: the
// parser's list and the figures' switch are two lists of one set.
func TestEveryClauseFigureIsGiven(t *testing.T) {
	for _, name := range scenarios.CompareFigures {
		if _, ok := clauseFigures[name]; !ok {
			t.Errorf("a compare clause may read %q, which the figures do not give", name)
		}
	}
}
