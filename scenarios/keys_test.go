package scenarios

import "testing"

// A swapped pair of letters is one edit, so a transposed key gets its
// suggestion as a mistyped letter does.
func TestSuggestTakesATranspositionAsOneEdit(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"io_ratoi", "io_ratio", 1}, {"abc", "abc", 0}, {"ab", "ba", 1}, {"workerz", "workers", 1}, {"abc", "cab", 2},
	} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
	if s := suggest("io_ratoi", []string{"io_ratio", "selector", "trigger"}); s != "io_ratio" {
		t.Errorf("suggest(io_ratoi) = %q", s)
	}
}
