package codec

import "testing"

// handlerInputs are the benchmark clients' requests, one and sixteen
// pipelined (wrk with pipeline.lua, redis-benchmark -P 16).
var handlerInputs = []struct {
	name string
	h    Handler
	in   string
}{
	{name: "HTTP/one", h: HandleHTTP, in: wrkGet},
	{name: "HTTP/pipelined16", h: HandleHTTP, in: repeat(wrkGet, 16)},
	{name: "HTTP/curl", h: HandleHTTP, in: curlGet},
	{name: "RESP/inline-one", h: HandleRESP, in: pingInline},
	{name: "RESP/inline-pipelined16", h: HandleRESP, in: repeat(pingInline, 16)},
	{name: "RESP/mbulk-one", h: HandleRESP, in: pingMbulk},
	{name: "RESP/mbulk-pipelined16", h: HandleRESP, in: repeat(pingMbulk, 16)},
	{name: "Mixed/http-pipelined16", h: HandleMixed, in: repeat(wrkGet, 16)},
	{name: "Mixed/mbulk-pipelined16", h: HandleMixed, in: repeat(pingMbulk, 16)},
}

// TestZeroAllocs holds the handlers to no allocation when out has room,
// which the engine relies on to keep the read path free of garbage.
func TestZeroAllocs(t *testing.T) {
	for _, tc := range handlerInputs {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			out := make([]byte, 0, 64<<10)
			allocs := testing.AllocsPerRun(100, func() {
				n, _, reply, _, err := tc.h(in, out[:0], 0)
				if n != len(in) || err != nil || len(reply) == 0 {
					t.Fatalf("consumed %d of %d, err %v", n, len(in), err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per call, want 0", allocs)
			}
		})
	}
}

// BenchmarkHandlers measures a read batch: every request in it parsed and
// its reply copied out. ns/op is per batch; divide by 16 for the pipelined
// ones.
func BenchmarkHandlers(b *testing.B) {
	for _, tc := range handlerInputs {
		b.Run(tc.name, func(b *testing.B) {
			in := []byte(tc.in)
			out := make([]byte, 0, 64<<10)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				n, _, reply, _, err := tc.h(in, out[:0], 0)
				if n != len(in) || err != nil {
					b.Fatalf("consumed %d of %d, err %v", n, len(in), err)
				}
				out = reply
			}
		})
	}
}
