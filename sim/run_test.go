package sim

import (
	"testing"

	"github.com/reactorviz/reactorviz/scenarios"
)

func TestBuiltinsPassTheirExpectations(t *testing.T) {
	for _, info := range scenarios.Builtin() {
		t.Run(info.Name, func(t *testing.T) {
			sc, err := scenarios.Load(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := New(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if s.Failed() > 0 {
				t.Errorf("%d expectation(s) failed:\n%s", s.Failed(), s.Text())
			}
		})
	}
}
