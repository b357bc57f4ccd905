package tui

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/reactorviz/reactorviz/reactor/trace"
	"github.com/reactorviz/reactorviz/tracefile/jsonl"
	"github.com/reactorviz/reactorviz/tui/model"
)

// Limits on what a replay reads (docs/security.md), the terminal's and the
// browser page's alike, so that both refuse the same trace with the same
// words. A gzipped trace may inflate a thousandfold: it is read up to
// MaxGunzipBytes. The replay holds every event in memory (about 80 bytes
// each, plus strings); it reads at most MaxReplayEvents events and
// MaxReplayStringBytes of string fields, which keeps it under 500 MB, and
// refuses a bigger trace saying that the headless replay, which streams,
// reads it. Variables so tests can lower them.
var (
	MaxGunzipBytes       int64 = 1 << 30
	MaxReplayEvents            = 1_000_000
	MaxReplayStringBytes       = 64 << 20
)

// Gunzip reads the gzipped trace r, failing past MaxGunzipBytes
// decompressed: a gzip bomb is refused at the cap, not when memory or
// patience runs out.
func Gunzip(r io.Reader) (io.Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return &gunzipCap{r: zr, left: MaxGunzipBytes}, nil
}

// gunzipCap passes at most left bytes of a decompressed stream and fails
// past them.
type gunzipCap struct {
	r    io.Reader
	left int64
}

func (g *gunzipCap) Read(p []byte) (int, error) {
	if g.left <= 0 {
		var one [1]byte
		if n, err := g.r.Read(one[:]); n == 0 && err != nil {
			return 0, err // the stream ended exactly at the cap
		}
		limit := fmt.Sprintf("%d MiB", MaxGunzipBytes>>20)
		if MaxGunzipBytes%(1<<30) == 0 {
			limit = fmt.Sprintf("%d GiB", MaxGunzipBytes>>30)
		}
		return 0, fmt.Errorf("decompresses to more than %s, the limit for a gzipped trace (gunzip it and replay the .jsonl)", limit)
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n, err := g.r.Read(p)
	g.left -= int64(n)
	return n, err
}

// ReadReplay reads a whole trace for the replay screen, its events and
// its samples (what the screen reads beside the events: the clients, the
// system calls, the wheel's slots, the script actions fired), within the
// limits above, a sample counting as one event for itself and one for each
// of its loops: a trace cut short is shown up to its last complete event
// (cut says where it stops); any other bad line, and a trace beyond the
// limits, is an error, FILE:LINE: message, before the screen opens.
func ReadReplay(r io.Reader, name string) (tr *jsonl.Trace, cut error, err error) {
	rd, err := jsonl.NewReader(r, name)
	if err != nil {
		return nil, nil, err
	}
	tr = &jsonl.Trace{Header: rd.Header()}
	// Events go into fixed chunks and are copied once into a slice of the
	// exact size: growing one slice by append would leave its earlier
	// arrays, several times the trace, for the collector.
	const chunk = 1 << 16
	var chunks [][]trace.Event
	n, held, strs := 0, 0, 0 // events; what is held, samples' loops counted; string bytes
	for {
		ev, s, err := rd.NextRecord()
		if err != nil {
			tr.Header.Loops = rd.Loops()
			tr.End, _ = rd.End()
			switch {
			case errors.Is(err, io.EOF):
			case errors.Is(err, jsonl.ErrTruncated):
				cut = err
			default:
				return nil, nil, err
			}
			tr.Events = make([]trace.Event, 0, n)
			for _, c := range chunks {
				tr.Events = append(tr.Events, c...)
			}
			return tr, cut, nil
		}
		if s != nil {
			held += 1 + len(s.Loops)
		} else {
			held++
			strs += len(ev.Str)
		}
		if held > MaxReplayEvents || strs > MaxReplayStringBytes {
			return nil, nil, fmt.Errorf("%s:%d: the trace is larger than the TUI replay holds in memory (%d events, %d MiB of strings); 'reactorviz replay --headless %s' reads a trace of any size",
				name, rd.Line(), MaxReplayEvents, MaxReplayStringBytes>>20, name)
		}
		if s != nil {
			tr.Samples = append(tr.Samples, jsonl.Placed{Events: n, Sample: s})
			continue
		}
		if n%chunk == 0 {
			chunks = append(chunks, make([]trace.Event, 0, chunk))
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], ev)
		n++
	}
}

// headerConfig reads the loops' starting ioRatio, rebuild threshold and
// loop design from a trace header's config words; ioRatio -1, threshold 0
// and no design when the trace does not say.
func headerConfig(cfg string) model.Settings {
	words := headerWords(cfg)
	set := model.Settings{IORatio: -1, Netty: words["netty"]}
	if n, err := strconv.Atoi(words["io_ratio"]); err == nil {
		set.IORatio = n
	}
	if n, err := strconv.Atoi(words["rebuild_threshold"]); err == nil {
		set.Threshold = n
	}
	return set
}

// newReplay is the replay of a trace read whole: its events and samples.
func newReplay(tr *jsonl.Trace) *model.Replay {
	rep := model.NewReplay(tr.Header.Loops, tr.Events, tr.End.Dropped)
	for _, s := range tr.Samples {
		rep.AddSample(s.Events, s.Sample)
	}
	return rep
}
