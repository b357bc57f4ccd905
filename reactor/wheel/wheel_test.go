package wheel

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestExpiresAtEndOfTickContainingDeadline(t *testing.T) {
	// With 10 ms ticks, tick n covers [10n, 10n+10) ms and is processed
	// once the clock reaches 10n+10 ms; a timeout fires then and not before.
	tests := []struct {
		name      string
		delay     time.Duration
		fireTicks int // ticks after which the task has run, not one fewer
	}{
		{name: "zero delay", delay: 0, fireTicks: 1},
		{name: "inside first tick", delay: 9 * time.Millisecond, fireTicks: 1},
		{name: "on a tick boundary", delay: 10 * time.Millisecond, fireTicks: 2},
		{name: "mid third tick", delay: 25 * time.Millisecond, fireTicks: 3},
		{name: "last slot", delay: 79 * time.Millisecond, fireTicks: 8},
		{name: "one revolution", delay: 80 * time.Millisecond, fireTicks: 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm, clk := newTestTimer(t, Config{})
			var f flag
			to := mustTimeout(t, tm, tc.name, tc.delay, f.task())
			clk.ticks(t, tc.fireTicks-1, testTick)
			if f.runs() != 0 || to.Expired() {
				t.Fatalf("fired after %d ticks, want after %d", tc.fireTicks-1, tc.fireTicks)
			}
			clk.ticks(t, 1, testTick)
			if f.runs() != 1 || !to.Expired() {
				t.Fatalf("runs = %d, expired = %v after %d ticks; want 1, true", f.runs(), to.Expired(), tc.fireTicks)
			}
			if st := tm.Stats(); st.Expired != 1 || st.Pending != 0 || st.Ticks != int64(tc.fireTicks) {
				t.Fatalf("stats = %+v", st)
			}
		})
	}
}

func TestRemainingRoundsDecrementPerPass(t *testing.T) {
	tm, clk := newTestTimer(t, Config{})
	var f flag
	// 195 ms: calc = 19, slot 19 & 7 = 3, rounds (19 − 0) / 8 = 2.
	to := mustTimeout(t, tm, "long", 195*time.Millisecond, f.task())
	steps := []struct {
		toTick int // total ticks processed after this step
		rounds int64
	}{
		{toTick: 1, rounds: 2},  // moved into slot 3 on tick 0
		{toTick: 3, rounds: 2},  // cursor has not reached slot 3 yet
		{toTick: 4, rounds: 1},  // first pass over slot 3 (tick 3)
		{toTick: 11, rounds: 1}, // not yet at tick 11
		{toTick: 12, rounds: 0}, // second pass (tick 11)
		{toTick: 19, rounds: 0}, // tick 19 not processed yet
	}
	done := 0
	for _, s := range steps {
		clk.ticks(t, s.toTick-done, testTick)
		done = s.toTick
		if to.remainingRounds != s.rounds || f.runs() != 0 {
			t.Fatalf("after %d ticks: rounds = %d, runs = %d; want %d, 0", done, to.remainingRounds, f.runs(), s.rounds)
		}
	}
	clk.ticks(t, 1, testTick) // tick 19, the one containing 195 ms
	if f.runs() != 1 {
		t.Fatalf("not fired at tick 19")
	}
}

func TestPlace(t *testing.T) {
	tm, err := New(Config{Tick: testTick, TicksPerWheel: testSlots}, WithClock(newFakeClock(0)))
	if err != nil {
		t.Fatal(err)
	}
	maxCalc := int64(math.MaxInt64 / testTick)
	tests := []struct {
		name       string
		deadline   time.Duration
		tick       int64
		slot       int64
		rounds     int64
		wantExpire bool // rounds ≤ 0: due the first time the cursor passes
	}{
		{name: "now", deadline: 0, tick: 0, slot: 0, rounds: 0},
		{name: "this revolution", deadline: 35 * time.Millisecond, tick: 0, slot: 3, rounds: 0},
		{name: "next revolution same slot", deadline: 115 * time.Millisecond, tick: 0, slot: 3, rounds: 1},
		{name: "two revolutions", deadline: 200 * time.Millisecond, tick: 0, slot: 4, rounds: 2},
		{name: "wraps past the cursor", deadline: 95 * time.Millisecond, tick: 5, slot: 1, rounds: 0},
		{name: "past deadline takes current slot", deadline: 35 * time.Millisecond, tick: 5, slot: 5, rounds: 0},
		{name: "long past", deadline: 0, tick: 21, slot: 5, rounds: -2},
		{name: "saturated deadline", deadline: math.MaxInt64, tick: 0, slot: maxCalc & 7, rounds: maxCalc / 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			slot, rounds := tm.place(tc.deadline, tc.tick)
			if slot != tc.slot || rounds != tc.rounds {
				t.Fatalf("place(%v, %d) = slot %d, rounds %d; want %d, %d", tc.deadline, tc.tick, slot, rounds, tc.slot, tc.rounds)
			}
		})
	}
}

func TestSnapshotShowsSlots(t *testing.T) {
	tm, clk := newTestTimer(t, Config{})
	for _, d := range []time.Duration{35, 115, 200} {
		mustTimeout(t, tm, "t", d*time.Millisecond, func() {})
	}
	clk.waitIdle(t)
	s := tm.Snapshot()
	if s.Queued != 3 || sum(s.Slots) != 0 || s.Pending != 3 || s.Tick != 0 {
		t.Fatalf("before the first tick: %+v", s)
	}
	clk.ticks(t, 1, testTick)
	s = tm.Snapshot()
	want := []int{0, 0, 0, 2, 1, 0, 0, 0}
	if !slices.Equal(s.Slots, want) || s.Queued != 0 || s.Tick != 1 || s.Cursor != 1 || s.Pending != 3 || s.TickDuration != testTick {
		t.Fatalf("after one tick: %+v, want slots %v", s, want)
	}
	clk.ticks(t, 8, testTick)
	if s = tm.Snapshot(); s.Cursor != 1 || s.Tick != 9 {
		t.Fatalf("cursor after a revolution: %+v", s)
	}
}

func TestPastDeadlineFiresThisTick(t *testing.T) {
	tm, clk := newTestTimer(t, Config{})
	mustTimeout(t, tm, "keeps the wheel busy", time.Hour, func() {})
	clk.ticks(t, 5, testTick)
	var f flag
	// 30 ms ago is tick 2, long passed: the timeout goes into slot 5, the
	// cursor's, and fires at the end of tick 5.
	mustTimeout(t, tm, "late", -30*time.Millisecond, f.task())
	clk.ticks(t, 1, testTick)
	if f.runs() != 1 {
		t.Fatalf("a past deadline did not fire on the next tick")
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name        string
		ticksBefore int // ticks between NewTimeout and Cancel
	}{
		{name: "still queued", ticksBefore: 0},
		{name: "in its slot", ticksBefore: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm, clk := newTestTimer(t, Config{})
			var f flag
			to := mustTimeout(t, tm, "idle", 55*time.Millisecond, f.task())
			clk.ticks(t, tc.ticksBefore, testTick)
			if !to.Cancel() || !to.Cancelled() || to.Cancel() {
				t.Fatalf("Cancel: first must succeed, second fail; cancelled = %v", to.Cancelled())
			}
			// As in Netty, the timeout stays pending until the next tick
			// unlinks it.
			if st := tm.Stats(); st.Pending != 1 || st.Cancelled != 1 {
				t.Fatalf("right after Cancel: %+v", st)
			}
			clk.ticks(t, 1, testTick)
			if s := tm.Snapshot(); s.Pending != 0 || sum(s.Slots) != 0 || s.Queued != 0 {
				t.Fatalf("after the next tick: %+v", s)
			}
			clk.ticks(t, 10, testTick)
			if f.runs() != 0 || to.Expired() || tm.Stats().Expired != 0 {
				t.Fatalf("cancelled task ran")
			}
		})
	}
}

func TestCancelAfterExpiryFails(t *testing.T) {
	tm, clk := newTestTimer(t, Config{})
	to := mustTimeout(t, tm, "quick", 0, func() {})
	clk.ticks(t, 1, testTick)
	if to.Cancel() || to.Cancelled() || !to.Expired() {
		t.Fatalf("Cancel after expiry: cancelled = %v, expired = %v", to.Cancelled(), to.Expired())
	}
}

func TestTransferLimitPerTick(t *testing.T) {
	tm, clk := newTestTimer(t, Config{})
	const n = MaxTransferPerTick + 5
	noop := func() {}
	for range n {
		mustTimeout(t, tm, "bulk", time.Hour, noop)
	}
	clk.waitIdle(t)
	steps := []struct{ queued, linked int }{
		{queued: 5, linked: MaxTransferPerTick},
		{queued: 0, linked: n},
	}
	for i, want := range steps {
		clk.ticks(t, 1, testTick)
		s := tm.Snapshot()
		if s.Queued != want.queued || sum(s.Slots) != want.linked || s.Pending != n {
			t.Fatalf("after tick %d: queued %d, linked %d, pending %d; want %d, %d, %d",
				i+1, s.Queued, sum(s.Slots), s.Pending, want.queued, want.linked, n)
		}
	}
	left, err := tm.Stop()
	if err != nil || len(left) != n {
		t.Fatalf("Stop returned %d timeouts, %v; want %d", len(left), err, n)
	}
}

func TestStopReturnsUnprocessed(t *testing.T) {
	tm, clk := newTestTimer(t, Config{})
	var f flag
	// The later slot holds the older timeout, so walking the slots alone
	// would not give id order.
	lateSlot := mustTimeout(t, tm, "slot-4", time.Second, f.task())
	earlySlot := mustTimeout(t, tm, "slot-1", 15*time.Millisecond, f.task())
	cancelled := mustTimeout(t, tm, "cancelled", time.Second, f.task())
	fired := mustTimeout(t, tm, "fired", 0, func() {})
	cancelled.Cancel()
	clk.ticks(t, 1, testTick)
	queued := mustTimeout(t, tm, "queued", time.Second, f.task())

	left, err := tm.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if want := []*Timeout{lateSlot, earlySlot, queued}; !slices.Equal(left, want) {
		t.Fatalf("Stop returned %v, want %v", names(left), names(want))
	}
	for _, to := range left {
		if !to.Cancelled() {
			t.Errorf("%s returned by Stop but not cancelled", to.Name())
		}
	}
	if !fired.Expired() || f.runs() != 0 {
		t.Fatalf("fired.Expired = %v, other runs = %d", fired.Expired(), f.runs())
	}
	if st := tm.Stats(); st.Pending != 0 {
		t.Fatalf("pending after Stop = %d", st.Pending)
	}
	if again, err := tm.Stop(); again != nil || err != nil {
		t.Fatalf("second Stop = %v, %v", again, err)
	}
	if _, err := tm.NewTimeout("late", 0, func() {}); !errors.Is(err, ErrStopped) {
		t.Fatalf("NewTimeout after Stop: %v, want ErrStopped", err)
	}
}

func TestStopBeforeStart(t *testing.T) {
	tm, _ := newTestTimer(t, Config{})
	if left, err := tm.Stop(); left != nil || err != nil {
		t.Fatalf("Stop = %v, %v", left, err)
	}
	if _, err := tm.NewTimeout("late", 0, func() {}); !errors.Is(err, ErrStopped) {
		t.Fatalf("NewTimeout after Stop: %v, want ErrStopped", err)
	}
	if tm.TID() != 0 {
		t.Fatalf("a stopped, never started timer has a thread: %d", tm.TID())
	}
}

func TestConcurrentStop(t *testing.T) {
	tm, _ := newTestTimer(t, Config{})
	mustTimeout(t, tm, "pending", time.Second, func() {})
	var wg sync.WaitGroup
	results := make([]int, 4)
	for i := range results {
		wg.Go(func() {
			left, err := tm.Stop()
			if err != nil {
				t.Error(err)
			}
			results[i] = len(left)
		})
	}
	wg.Wait()
	if sum(results) != 1 {
		t.Fatalf("the pending timeout was returned %d times, want once", sum(results))
	}
}

func TestStopFromTaskIsRejected(t *testing.T) {
	tm, clk := newTestTimer(t, Config{})
	errc := make(chan error, 1)
	mustTimeout(t, tm, "stopper", 0, func() {
		_, err := tm.Stop()
		errc <- err
	})
	clk.ticks(t, 1, testTick)
	if err := <-errc; !errors.Is(err, ErrStopFromTask) {
		t.Fatalf("Stop from a task: %v, want ErrStopFromTask", err)
	}
}

func TestPanicIsRecoveredAndWheelKeepsTicking(t *testing.T) {
	var mu sync.Mutex
	var errs []error
	tm, clk := newTestTimer(t, Config{}, WithErrorHandler(func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}))
	boom := errors.New("boom")
	bad := mustTimeout(t, tm, "bad", 0, func() { panic(boom) })
	var f flag
	mustTimeout(t, tm, "after", 25*time.Millisecond, f.task())
	clk.ticks(t, 3, testTick)
	if f.runs() != 1 {
		t.Fatalf("the wheel stopped firing after a panic")
	}
	if st := tm.Stats(); st.Panics != 1 || st.Expired != 2 || st.Ticks != 3 {
		t.Fatalf("stats = %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	var pe *TaskPanicError
	if len(errs) != 1 || !errors.As(errs[0], &pe) || !errors.Is(errs[0], boom) {
		t.Fatalf("reported %v, want one TaskPanicError wrapping boom", errs)
	}
	if pe.ID != bad.ID() || pe.Name != "bad" || len(pe.Stack) == 0 {
		t.Fatalf("panic error = %+v", pe)
	}
}

func TestMaxPending(t *testing.T) {
	tm, clk := newTestTimer(t, Config{MaxPending: 2})
	a := mustTimeout(t, tm, "a", time.Second, func() {})
	mustTimeout(t, tm, "b", time.Second, func() {})
	if _, err := tm.NewTimeout("c", time.Second, func() {}); !errors.Is(err, ErrTooManyPending) {
		t.Fatalf("third timeout: %v, want ErrTooManyPending", err)
	}
	a.Cancel()
	// The cancelled timeout counts until the next tick unlinks it.
	if _, err := tm.NewTimeout("c", time.Second, func() {}); !errors.Is(err, ErrTooManyPending) {
		t.Fatalf("before the tick: %v, want ErrTooManyPending", err)
	}
	clk.ticks(t, 1, testTick)
	mustTimeout(t, tm, "c", time.Second, func() {})
}

func TestMaxPendingUnderContention(t *testing.T) {
	const limit = 50
	tm, _ := newTestTimer(t, Config{MaxPending: limit})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, rejected := 0, 0
	for range 8 {
		wg.Go(func() {
			for range 20 {
				_, err := tm.NewTimeout("x", time.Second, func() {})
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, ErrTooManyPending):
					rejected++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != limit || rejected != 160-limit {
		t.Fatalf("accepted %d, rejected %d; want %d, %d", ok, rejected, limit, 160-limit)
	}
}

func TestMisplacedTimeoutIsReportedNotFired(t *testing.T) {
	var got error
	tm, err := New(Config{Tick: testTick, TicksPerWheel: testSlots},
		WithClock(newFakeClock(0)), WithErrorHandler(func(err error) { got = err }))
	if err != nil {
		t.Fatal(err)
	}
	var f flag
	to := &Timeout{timer: tm, id: 1, task: f.task(), deadline: 100 * time.Millisecond}
	b := &tm.wheel[0]
	b.add(to)
	// Only a clock running backwards could put a timeout due in 100 ms in
	// the slot swept at 50 ms with no rounds left.
	if n := tm.expireTimeouts(b, 50*time.Millisecond, 0, 0); n != 0 || f.runs() != 0 {
		t.Fatalf("misplaced timeout fired early")
	}
	if !errors.Is(got, ErrMisplaced) || b.head != to || to.Expired() {
		t.Fatalf("reported %v; still linked = %v", got, b.head == to)
	}
}

func TestNewTimeoutNilTask(t *testing.T) {
	tm, _ := newTestTimer(t, Config{})
	if _, err := tm.NewTimeout("nil", time.Second, nil); !errors.Is(err, ErrNilTask) {
		t.Fatalf("nil task: %v, want ErrNilTask", err)
	}
	if tm.TID() != 0 {
		t.Fatalf("a rejected timeout started the thread")
	}
}

func TestLazyStart(t *testing.T) {
	checkGoroutines(t)
	tm, err := New(Config{Tick: time.Second}, WithClock(newFakeClock(0)))
	if err != nil {
		t.Fatal(err)
	}
	if tm.TID() != 0 {
		t.Fatalf("thread started before the first timeout")
	}
	mustTimeout(t, tm, "first", time.Hour, func() {})
	if tm.TID() <= 0 {
		t.Fatalf("TID = %d after the first timeout", tm.TID())
	}
	if _, err := tm.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantErr   bool
		wantTick  time.Duration
		wantSlots int
	}{
		{name: "defaults", cfg: Config{}, wantTick: 100 * time.Millisecond, wantSlots: 512},
		{name: "tick raised to 1 ms", cfg: Config{Tick: 500 * time.Microsecond}, wantTick: time.Millisecond, wantSlots: 512},
		{name: "one slot", cfg: Config{TicksPerWheel: 1}, wantTick: DefaultTick, wantSlots: 1},
		{name: "3 rounds up to 4", cfg: Config{TicksPerWheel: 3}, wantTick: DefaultTick, wantSlots: 4},
		{name: "512 stays", cfg: Config{TicksPerWheel: 512}, wantTick: DefaultTick, wantSlots: 512},
		{name: "513 rounds up to 1024", cfg: Config{TicksPerWheel: 513}, wantTick: DefaultTick, wantSlots: 1024},
		{name: "negative tick", cfg: Config{Tick: -time.Second}, wantErr: true},
		{name: "negative slots", cfg: Config{TicksPerWheel: -1}, wantErr: true},
		{name: "too many slots", cfg: Config{TicksPerWheel: MaxTicksPerWheel + 1}, wantErr: true},
		{name: "revolution overflows", cfg: Config{Tick: math.MaxInt64 / 8, TicksPerWheel: 8}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm, err := New(tc.cfg)
			if tc.wantErr {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Fatalf("New(%+v) = %v, want ErrInvalidConfig", tc.cfg, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := tm.Snapshot()
			if s.TickDuration != tc.wantTick || len(s.Slots) != tc.wantSlots || tm.Name() != "wheel" {
				t.Fatalf("tick %v, %d slots, name %q; want %v, %d, wheel", s.TickDuration, len(s.Slots), tm.Name(), tc.wantTick, tc.wantSlots)
			}
		})
	}
}

func TestWithTraceNeedsAllParts(t *testing.T) {
	if _, err := New(Config{}, WithTrace(nil, nil, nil)); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("WithTrace(nil...) = %v, want ErrInvalidConfig", err)
	}
}

func names(tos []*Timeout) []string {
	out := make([]string, len(tos))
	for i, to := range tos {
		out[i] = to.Name()
	}
	return out
}
