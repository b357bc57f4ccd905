package scenarios

import (
	"cmp"
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

const (
	minScaleWindow = 10 * time.Millisecond
	maxScaleWindow = time.Minute
	maxPatience    = 100
)

// autoScaleFields are the autoscale block's fields. Under model single
// the I/O group is one loop, reactor-0: workers does not apply there (a
// warning, so that --set workers=… stays harmless), and neither can a max
// above 1 or a min above 1, which would have the group scale loops it does
// not have. They are warnings, as for workers, and the group runs with
// max 1.
var autoScaleFields = []field[*AutoScale]{
	num("min", 0, maxWorkers, "1", "minThreads: never suspend below this many active loops",
		func(d *decoder, a *AutoScale, v value) {
			if a.Min = v.i; d.s.Model == ModelSingle && v.i > 1 {
				a.Min = 1
				d.warnf(v.n, "autoscale.min %d is more than model single has: its group is one loop, reactor-0, so min is 1", v.i)
			}
		}),
	num("max", 1, maxWorkers, "workers", "maxThreads: the group's size; must equal workers",
		func(d *decoder, a *AutoScale, v value) {
			switch {
			case d.s.Model == ModelSingle && v.i != 1:
				d.warnf(v.n, "autoscale.max %d does not apply to model single: its group is one loop, reactor-0", v.i)
			case d.s.Model != ModelSingle:
				if a.Max = v.i; d.s.Workers != 0 && v.i != d.s.Workers {
					d.errorf(v.n, "autoscale.max must equal workers (%d)%s: the group has max loops and suspends down to min", d.s.Workers, d.setNote(d.workersNode))
				}
			}
		}),
	dur("window", minScaleWindow, maxScaleWindow, "1s", "utilizationWindow",
		func(_ *decoder, a *AutoScale, v value) { a.Window = v.d }),
	of("down", kFraction, 0, "0.1", "scaleDownThreshold, below up", func(_ *decoder, a *AutoScale, v value) { a.Down = v.f }),
	of("up", kFraction, 0, "0.7", "scaleUpThreshold", func(_ *decoder, a *AutoScale, v value) { a.Up = v.f }),
	num("step", 1, maxWorkers, "1", "maxRampUpStep, and maxRampDownStep unless step_down",
		func(_ *decoder, a *AutoScale, v value) { a.Step, a.StepDown = v.i, v.i }),
	num("step_down", 1, maxWorkers, "step", "maxRampDownStep", func(_ *decoder, a *AutoScale, v value) { a.StepDown = v.i }),
	num("patience", 0, maxPatience, "2", "scalingPatienceCycles", func(_ *decoder, a *AutoScale, v value) { a.Patience = v.i }),
}

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
	a := AutoScale{Min: 1, Window: time.Second, Down: 0.1, Up: 0.7, Step: 1, StepDown: 1, Patience: 2}
	if s.Model == ModelSingle {
		a.Max = 1
	}
	fields(d, n, "autoscale", "autoscale.", autoScaleFields, &a)
	if size := cmp.Or(a.Max, s.Workers); s.Model != ModelSingle && size != 0 && a.Min > size {
		d.errorf(n, "autoscale.min (%d) must not be greater than max, the worker group's size (%d)", a.Min, size)
	}
	if a.Down >= a.Up {
		d.errorf(n, "autoscale.down (%v) must be below up (%v)", a.Down, a.Up)
	}
	if s.Workers == 0 && s.Model != ModelSingle {
		s.Workers = a.Max
	}
	s.AutoScale = &a
}
