package scenarios

import (
	"cmp"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// AutoScale makes the I/O group an auto-scaling group of Netty 4.2: the
// arguments of AutoScalingEventExecutorChooserFactory, written
//
//	autoscale: {min: 1, max: 4, window: 500ms, down: 0.1, up: 0.7, step: 1, patience: 2}
//
// max is the group's size, and defaults to it; step bounds both ramps unless step_down is
// given (maxRampUpStep, maxRampDownStep).
type AutoScale struct {
	Min, Max int
	Window   time.Duration
	Down, Up float64
	Step     int
	StepDown int
	Patience int
}

var autoScaleKeys = []string{"min", "max", "window", "down", "up", "step", "step_down", "patience"}

const (
	minScaleWindow = 10 * time.Millisecond
	maxScaleWindow = time.Minute
	maxPatience    = 100
)

// autoScale reads the autoscale block, after netty and workers.
func (d *decoder) autoScale(n *yaml.Node, s *Scenario) {
	if n == nil {
		return
	}
	if s.Netty != Netty42 {
		// A warning, as for the other settings of one design, so the
		// scenario still runs under --set netty=… and compare --flavours:
		// the group then stays fixed, as in that Netty.
		d.warnf(n, "autoscale has no effect under netty %s: auto-scaling groups are new in 4.2.5 (AutoScalingEventExecutorChooserFactory)", s.Netty)
		return
	}
	m := d.mapping(n, "autoscale", autoScaleKeys)
	a := AutoScale{Min: 1, Window: time.Second, Down: 0.1, Up: 0.7, Step: 1, Patience: 2}
	if s.Model == ModelSingle {
		d.singleBounds(m, &a)
	} else {
		d.groupBounds(m, n, s, &a)
	}
	if v := m.get("window"); v != nil {
		if r, ok := d.duration(v, "autoscale.window", minScaleWindow, maxScaleWindow); ok {
			a.Window = r
		}
	}
	d.threshold(m.get("down"), "autoscale.down", &a.Down)
	d.threshold(m.get("up"), "autoscale.up", &a.Up)
	if a.Down >= a.Up {
		d.errorf(n, "autoscale.down (%v) must be below up (%v)", a.Down, a.Up)
	}
	if v := m.get("step"); v != nil {
		if r, ok := d.integer(v, "autoscale.step", 1, maxWorkers); ok {
			a.Step = r
		}
	}
	a.StepDown = a.Step
	if v := m.get("step_down"); v != nil {
		if r, ok := d.integer(v, "autoscale.step_down", 1, maxWorkers); ok {
			a.StepDown = r
		}
	}
	if v := m.get("patience"); v != nil {
		if r, ok := d.integer(v, "autoscale.patience", 0, maxPatience); ok {
			a.Patience = r
		}
	}
	if s.Workers == 0 && s.Model != ModelSingle {
		s.Workers = a.Max
	}
	s.AutoScale = &a
}

// groupBounds reads min and max for the worker group: max is its size.
func (d *decoder) groupBounds(m *mapping, n *yaml.Node, s *Scenario, a *AutoScale) {
	if v := m.get("max"); v != nil {
		if r, ok := d.integer(v, "autoscale.max", 1, maxWorkers); ok {
			a.Max = r
			if s.Workers != 0 && r != s.Workers {
				d.errorf(v, "autoscale.max must equal workers (%d)%s: the group has max loops and suspends down to min", s.Workers, d.setNote(d.workersNode))
			}
		}
	}
	if v := m.get("min"); v != nil {
		if r, ok := d.integer(v, "autoscale.min", 0, maxWorkers); ok {
			a.Min = r
		}
	}
	if size := cmp.Or(a.Max, s.Workers); size != 0 && a.Min > size {
		d.errorf(n, "autoscale.min (%d) must not be greater than max, the worker group's size (%d)", a.Min, size)
	}
}

// singleBounds reads min and max under model single, whose I/O group is
// one loop, reactor-0: workers does not apply there (a warning, so that
// --set workers=… stays harmless), and neither can a max above 1 or a min
// above 1, which would have the group scale loops it does not have. They
// are warnings, as for workers, and the group runs with max 1.
func (d *decoder) singleBounds(m *mapping, a *AutoScale) {
	a.Max = 1
	if v := m.get("max"); v != nil {
		if r, ok := d.integer(v, "autoscale.max", 1, maxWorkers); ok && r != 1 {
			d.warnf(v, "autoscale.max %d does not apply to model single: its group is one loop, reactor-0", r)
		}
	}
	if v := m.get("min"); v != nil {
		if r, ok := d.integer(v, "autoscale.min", 0, maxWorkers); ok {
			a.Min = min(r, 1)
			if r > 1 {
				d.warnf(v, "autoscale.min %d is more than model single has: its group is one loop, reactor-0, so min is 1", r)
			}
		}
	}
}

// threshold reads a utilisation threshold, a number from 0 to 1.
func (d *decoder) threshold(n *yaml.Node, name string, dst *float64) {
	if n == nil {
		return
	}
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") {
		d.errorf(n, "%s must be a number from 0 to 1, got %s", name, describe(n))
		return
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || f < 0 || f > 1 {
		d.errorf(n, "%s must be a number from 0 to 1, got %s", name, clip(n.Value))
		return
	}
	*dst = f
}
