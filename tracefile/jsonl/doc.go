// Package jsonl records reactorviz trace events as JSON lines and reads them
// back without loss (docs/architecture.md, "How events flow").
//
// A trace file is UTF-8 text, one JSON object per line, in this order:
//
//	{"format":"reactorviz-trace","version":2,"scenario":"tour","model":"multi",
//	 "started":"2026-01-02T15:04:05.123456789Z","engine":1,
//	 "loops":[{"name":"boss-0","group":"boss"},{"name":"worker-0","group":"worker"}]}
//	{"seq":1,"t":1200,"loop":"worker-0","kind":"state","from":"NOT_STARTED","to":"STARTED","tid":4312}
//	{"seq":2,"t":1800,"loop":"worker-0","kind":"select_begin","timeout_ns":1000000000,"mode":"select"}
//	{"add_loop":"wheel","group":"wheel","index":2}
//	{"seq":3,"t":2100,"loop":"wheel","kind":"wheel_tick","tick":1,"slot":1,"expired":0,"pending":3}
//	{"sample_loop":"worker-0","state":"STARTED","stats":{"iterations":1,"epoll_ctl":1},"tid":4312,"gate":{},"io_ratio":50,"split":{...},"clients":{}}
//	{"sample":2200,"reason":"tick","elapsed_ns":1000,"active_ns":1000,"clients":{...},"pool":{},"dropped":0}
//	{"end":2100,"events":3,"emitted":3,"dropped":0}
//
// The header (line 1) names the loops; an event's "loop" is looked up in that
// table, so the position of a name is the event's trace.Event.Loop index. A
// loop registered after the header was written is announced by an "add_loop"
// line before its first event, carrying the index it takes. Event fields after
// "kind" are those trace.Event.Fields lists for the kind, under the schema's
// names; loop states are written by name ("NOT_STARTED"). The last line,
// written by Writer.Close, gives the time of the last event, the number of
// event lines, and the run's emitted and dropped counts, so a reader can tell
// a complete trace from a cut one and knows how many events the run lost
// (each loss is also in the stream as a "drop" event where it happened).
//
// Since version 2 a trace holds the run's samples (reactor/trace/sample)
// among its events, where the collector delivered them: a "sample_loop" line
// per loop, then the "sample" line that completes the sample (sample.go).
// Reader.NextRecord returns them in their place; Next skips them. A version
// 1 trace has none, and reads as before.
//
// The round trip is exact for every field of every kind, within limits that
// keep any line the writer produces under MaxLineBytes and valid JSON: string
// values are cut to MaxStringBytes (names to MaxNameBytes) on a rune
// boundary, and invalid UTF-8 becomes U+FFFD. A state outside the five names is written as
// its number. Loop names are made unique ("a#2", "loop-3" for an empty one),
// since events refer to loops by name.
//
// The header's "engine", when present, is the version of the engine that
// recorded the run (reactor.EngineVersion): a stored recording made by an
// older engine may no longer show what the engine does.
//
// Events are in delivery order: "seq" increases strictly from one event line
// to the next, "t" is 0..MaxTime ns and may lag the latest "t" before it by
// at most MaxTimeSkew (batches are merged by time; an event stamped just
// before its thread was descheduled can come a batch late), and counts,
// sizes and durations are 0..MaxTime. A reader refuses the first event that
// breaks one of these rules: a reversed or doctored file would otherwise
// replay wrong counters without a word.
//
// Readers accept the keys of a line in any order, blank lines anywhere, and
// lines without some field of their kind (read as zero, so older files stay
// readable when the schema gains a field). They reject unknown keys, kinds,
// loops and states, values of the wrong type, lines longer than
// MaxLineBytes, an end line whose count disagrees with the file, and a file
// that ends without its end line, each with an *Error naming the file and
// line: "trace.jsonl:17: unknown kind \"selct_end\"".
package jsonl
