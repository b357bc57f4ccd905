package netty

import "testing"

func TestChooser(t *testing.T) {
	for n, want := range map[int]string{0: ChooserGeneric, 1: ChooserPowerOfTwo, 2: ChooserPowerOfTwo,
		3: ChooserGeneric, 4: ChooserPowerOfTwo, 6: ChooserGeneric, 8: ChooserPowerOfTwo, -4: ChooserGeneric} {
		if got := Chooser(n); got != want {
			t.Errorf("Chooser(%d) = %s, want %s", n, got, want)
		}
	}
}
