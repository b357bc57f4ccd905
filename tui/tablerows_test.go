package tui

import (
	"slices"
	"strconv"
	"testing"

	"github.com/reactorviz/reactorviz/tui/model"
)

// TestTableRowsAllocateOnce checks that a table's rows come in one
// allocation and its trace indexes reuse the buffer given: the panels
// build them on every frame.
func TestTableRowsAllocateOnce(t *testing.T) {
	snap := &model.Snapshot{}
	for i := range 8 {
		snap.Loops = append(snap.Loops, model.Loop{Index: 10 + i, Name: "worker-" + strconv.Itoa(i)})
	}
	f := model.NewFrame(snap, model.Settings{IORatio: -1})
	order := []int{7, 2, 5, 0, 1, 3, 4, 6}
	rows, idx, at := tableRows(f, order, 15, nil)
	if want := []int{17, 12, 15, 10, 11, 13, 14, 16}; !slices.Equal(idx, want) || at != 2 || len(rows) != len(order) || rows[2].Name != "worker-5" {
		t.Fatalf("indexes %v, focus row %d, %d rows; want %v, 2, 8", idx, at, len(rows), want)
	}
	if _, _, at := tableRows(f, order, 99, idx); at != -1 {
		t.Errorf("focus row %d for a loop not in the table, want -1", at)
	}
	allocs := testing.AllocsPerRun(100, func() { _, idx, _ = tableRows(f, order, 15, idx) })
	if allocs > 1 {
		t.Errorf("%v allocations a table, want 1 (the rows)", allocs)
	}
}
