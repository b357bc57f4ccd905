package model

import (
	"strconv"
	"strings"
	"time"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// maxDescribe bounds a described event: a replayed file may carry long
// strings, and a log line is one screen row.
const maxDescribe = 160

// Describe renders an event's kind and fields as one short line, for the
// log: "select_end ready=0 took=1.2ms select_cnt=3 premature".
func Describe(e *trace.Event) string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	var buf [8]trace.Field
	for _, f := range e.Fields(buf[:0]) {
		if b.Len() > maxDescribe {
			break
		}
		if skipDescribe(e, &f) {
			continue
		}
		switch f.Type {
		case trace.FieldBool:
			if w := boolWord(e.Kind, f); w != "" {
				b.WriteByte(' ')
				b.WriteString(w)
			}
		case trace.FieldString:
			if f.Str == "" {
				continue
			}
			b.WriteByte(' ')
			b.WriteString(f.Name)
			b.WriteByte('=')
			b.WriteString(clean(f.Str, maxDescribe))
		default:
			b.WriteByte(' ')
			// Durations and deadlines read better without the unit suffix
			// of their schema name: took=1.5ms, deadline=@00:01.200.
			b.WriteString(strings.TrimSuffix(f.Name, "_ns"))
			b.WriteByte('=')
			b.WriteString(describeInt(e.Kind, f))
		}
	}
	s := b.String()
	if len(s) > maxDescribe {
		s = clean(s, maxDescribe)
	}
	return s
}

// skipDescribe leaves out the fields a line's note says better: an
// accept's loop index and counter (ChooserPick), a submission's producer
// index (submitNote), and a state change's shutdown figures when it is not
// a shutdown's start.
func skipDescribe(e *trace.Event, f *trace.Field) bool {
	switch e.Kind {
	case trace.KindAccept:
		return f.Name == "worker" || f.Name == "pick" || f.Name == "chosen"
	case trace.KindTaskSubmit:
		return f.Name == "producer"
	case trace.KindState:
		return (f.Name == "quiet_ns" || f.Name == "timeout_ns") && f.Int == 0
	}
	return false
}

// boolWord is a flag as a word when it says something: "premature",
// "hit", "external"; the wakeup's flag reads written or coalesced.
func boolWord(k trace.Kind, f trace.Field) string {
	switch {
	case k == trace.KindWakeup && f.Bool:
		return "written"
	case k == trace.KindWakeup:
		return "coalesced"
	case k == trace.KindSelectBegin || k == trace.KindTasksBegin:
		// The iteration mark is for readers that count iterations; a
		// learner reads the boundary from the select_begin itself.
		return ""
	case f.Bool:
		return f.Name
	}
	return ""
}

func describeInt(k trace.Kind, f trace.Field) string {
	switch {
	case f.State:
		return trace.State(f.Int).String()
	case k == trace.KindPause || k == trace.KindResume:
		return trace.Phase(f.Int).String()
	case f.Name == "deadline_ns":
		return "@" + Clock(f.Int)
	case f.Name == "period_ns":
		// Netty's sign convention: positive fixed rate, negative fixed delay.
		switch {
		case f.Int > 0:
			return "rate:" + Duration(f.Int)
		case f.Int < 0:
			return "delay:" + Duration(-f.Int)
		}
		return "once"
	case strings.HasSuffix(f.Name, "_ns"):
		if f.Int < 0 {
			return "unlimited"
		}
		return Duration(f.Int)
	case f.Name == "ops" || f.Name == "old_ops":
		return Ops(f.Int)
	}
	return strconv.FormatInt(f.Int, 10)
}

// Ops renders an epoll interest set the way Netty names SelectionKey ops.
func Ops(ops int64) string {
	if ops == 0 {
		return "0"
	}
	var parts []string
	// Bit values of golang.org/x/sys/unix EPOLLIN, EPOLLOUT, EPOLLRDHUP.
	for _, o := range []struct {
		bit  int64
		name string
	}{{0x1, "IN"}, {0x4, "OUT"}, {0x2000, "RDHUP"}, {1 << 31, "ET"}} {
		if ops&o.bit != 0 {
			parts = append(parts, o.name)
			ops &^= o.bit
		}
	}
	if ops != 0 {
		parts = append(parts, "0x"+strconv.FormatInt(ops, 16))
	}
	return strings.Join(parts, "|")
}

// clean drops control characters and cuts s to n bytes on a rune boundary,
// so a string from a file cannot move the cursor or break a row.
func clean(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= n {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Clock renders ns since the run's epoch as mm:ss.mmm.
func Clock(ns int64) string {
	neg := ns < 0
	if neg {
		ns = -ns
	}
	ms := ns / 1e6
	s := ms / 1000
	out := pad(s/60, 2) + ":" + pad(s%60, 2) + "." + pad(ms%1000, 3)
	if neg {
		return "-" + out
	}
	return out
}

// ClockTenths renders ns since the epoch as mm:ss.d, for the header.
func ClockTenths(ns int64) string {
	c := Clock(ns)
	return c[:len(c)-2]
}

// pad renders n in at least width digits, zeros in front.
func pad(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	for lim := int64(10); width > 1; width, lim = width-1, lim*10 {
		if n < lim {
			s = "0" + s
		}
	}
	return s
}

// Duration renders ns compactly with at most three significant digits:
// 850ns, 12µs, 1.5ms, 2.25s.
func Duration(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d < 0:
		return "-" + Duration(-ns)
	case d < time.Microsecond:
		return strconv.FormatInt(ns, 10) + "ns"
	case d < time.Millisecond:
		return trim(float64(ns)/1e3) + "µs"
	case d < time.Second:
		return trim(float64(ns)/1e6) + "ms"
	case d < time.Hour:
		return trim(float64(ns)/1e9) + "s"
	}
	return d.Truncate(time.Second).String()
}

func trim(v float64) string {
	prec := 0
	switch {
	case v < 10:
		prec = 2
	case v < 100:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Count renders a counter compactly: 999, 12.3k, 4.5M.
func Count(n int64) string {
	switch {
	case n < 0:
		return "-" + Count(-n)
	case n < 10_000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return trim(float64(n)/1e3) + "k"
	case n < 1_000_000_000:
		return trim(float64(n)/1e6) + "M"
	}
	return trim(float64(n)/1e9) + "G"
}

// Bytes renders a byte count: 512B, 12KiB, 3.4MiB.
func Bytes(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1<<20:
		return trim(float64(n)/1024) + "KiB"
	case n < 1<<30:
		return trim(float64(n)/(1<<20)) + "MiB"
	}
	return trim(float64(n)/(1<<30)) + "GiB"
}
