package chrome

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/reactorviz/reactorviz/reactor/trace"
)

// FuzzExport turns arbitrary bytes into event streams (any kind, loop, time
// step and field values) and checks that the document stays well formed.
func FuzzExport(f *testing.F) {
	f.Add([]byte{byte(trace.KindSelectBegin), 0, 10, 0, byte(trace.KindSelectEnd), 0, 10, 1})
	f.Add([]byte{byte(trace.KindTasksBegin), 1, 1, 0, byte(trace.KindTaskRun), 1, 0, 200, byte(trace.KindTasksEnd), 1, 0, 0})
	f.Add([]byte{byte(trace.KindAccept), 0, 5, 3, byte(trace.KindRegister), 1, 5, 3, byte(trace.KindRebuildEnd), 2, 255, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		var evs []trace.Event
		now := int64(0)
		for len(data) >= 4 {
			k, loop, step, v := data[0], data[1], int8(data[2]), data[3]
			data = data[4:]
			now += int64(step) * 37 // mostly forward, sometimes back
			e := trace.Event{Time: now, Loop: uint16(loop % 6), Kind: trace.Kind(k % byte(trace.NumKinds+1)),
				Flag: v&1 == 1, A: int64(v % 5), B: int64(v) * 13, C: int64(v), D: -int64(v)}
			if len(data) >= 8 && v&0x80 != 0 {
				e.B = int64(binary.LittleEndian.Uint64(data))
				data = data[8:]
			}
			evs = append(evs, e)
		}
		var buf bytes.Buffer
		if err := Export(&buf, "fuzz", loops[:2], evs); err != nil {
			t.Fatal(err)
		}
		var d doc
		if err := jsonUnmarshal(buf.Bytes(), &d); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
		}
		if err := nestingOnly(&d); err != nil {
			t.Fatalf("%v\n%s", err, buf.Bytes())
		}
	})
}
