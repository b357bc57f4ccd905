package scenarios

import (
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// FieldHelp lists the scenario format's fields from the decoder's tables,
// by the dotted paths --set takes, for `reactorviz show -h`: type and
// range, default, and a line of doc. docs/scenarios.md has them in full.
func FieldHelp() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	rows := func(prefix string, specs []spec) {
		for _, f := range specs {
			if f.kind == kMap {
				continue // its fields follow under its name
			}
			typ, sep := f.typeText(), " "
			if f.kind == kStr || f.kind == kList || f.kind == kRate {
				sep = ", "
			}
			if r := f.rangeText(); r != "" {
				typ += sep + r
			}
			def := strings.TrimPrefix(f.def, "— ")
			if f.need != "" {
				def = "(required)"
			}
			tw.Write([]byte("  " + prefix + f.key + "\t" + typ + "\t" + def + "\t" + f.doc + "\n"))
		}
	}
	tw.Write([]byte("  PATH\tTYPE AND RANGE\tDEFAULT\tMEANING\n"))
	rows("", specsOf(topFields))
	rows("loop.", specsOf(loopFields))
	rows("server.", specsOf(serverFields))
	rows("clients.N.", specsOf(clientFields))
	rows("wheel.", specsOf(wheelFields))
	rows("shutdown.", specsOf(shutdownFields))
	rows("autoscale.", specsOf(autoScaleFields))
	rows("watch.N.", specsOf(watchFields))
	rows("predict.N.", specsOf(predictFields))
	for _, v := range verbs {
		takes := v.takes()
		if v.key == "inject" {
			takes = nil
			for _, f := range faults {
				takes = append(takes, f+" ("+oneOf(keysOf(faultVerbs[Fault(f)].params))+")")
			}
		}
		want := v.want
		if v.arg.kind != 0 {
			want = v.arg.typeText() + " " + v.arg.rangeText()
		}
		tw.Write([]byte("  timeline.N." + v.key + "\t" + want + "\t\twith at: and " + oneOf(takes) + "\n"))
	}
	tw.Flush()
	return "The fields, by the paths --set takes (docs/scenarios.md has them in full):\n\n" + b.String()
}

// typeText is a field's type as the docs' tables write it.
func (f *spec) typeText() string {
	switch f.kind {
	case kInt:
		return "integer"
	case kBool:
		return "boolean"
	case kStr:
		return "string"
	case kEnum:
		return strings.Join(f.enum, " | ")
	case kDuration:
		return "duration"
	case kSize:
		return "size"
	case kRate:
		return "rate"
	case kFraction:
		return "number"
	case kList:
		return "list"
	}
	return "mapping"
}

// rangeText is a field's range, as its error messages write it.
func (f *spec) rangeText() string {
	switch f.kind {
	case kInt:
		return strconv.FormatInt(f.lo, 10) + ".." + strconv.FormatInt(f.hi, 10)
	case kDuration:
		return durationString(time.Duration(f.lo)) + ".." + durationString(time.Duration(f.hi))
	case kSize:
		return formatSize(int(f.lo)) + ".." + formatSize(int(f.hi))
	case kStr:
		return "at most " + strconv.FormatInt(f.hi, 10) + " characters"
	case kRate:
		return "max or 0.1/s.." + strconv.Itoa(maxRatePerSec) + "/s"
	case kFraction:
		return "0..1"
	case kList:
		return "at most " + strconv.FormatInt(f.hi, 10) + " entries"
	}
	return ""
}
