package experiment

import (
	"runtime/debug"
	"testing"
)

// paceFor puts the heap goal at the live heap plus gcHeadroom, within
// gcMinPercent and the sweep's starting target.
func TestPaceFor(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live  uint64
		limit int
		want  int
	}{
		{0, 800, 800},                      // no collection yet
		{20 * mib, 800, 800},               // 9 × 20 MiB is within the headroom
		{40 * mib, 800, 800},               // exactly live + headroom at 800
		{64 * mib, 800, 500},               // 320 / 64
		{80 * mib, 800, 400},               // 320 / 80
		{320 * mib, 800, 100},              // the headroom itself
		{1024 * mib, 800, gcMinPercent},    // never below the runtime's default
		{64 * mib, 300, 300},               // never above the start
		{1024 * mib, 50, 50},               // a start below the floor stays
		{gcHeadroom*100/500 + 1, 800, 499}, // rounds down
		{uint64(gcHeadroom) * 100 / 800, 8000, 800},
	} {
		if got := paceFor(tc.live, tc.limit); got != tc.want {
			t.Errorf("paceFor(%d MiB, %d) = %d, want %d", tc.live/mib, tc.limit, got, tc.want)
		}
	}
}

// pace sets the collector's target from the live heap, and leaves it
// alone on a move of less than a tenth.
func TestGCPacer(t *testing.T) {
	prev := debug.SetGCPercent(DefaultGCPercent)
	defer debug.SetGCPercent(prev)
	var live uint64
	p := newGCPacer(DefaultGCPercent)
	p.liveHeap = func() uint64 { return live }
	target := func() int {
		v := debug.SetGCPercent(-1)
		debug.SetGCPercent(v)
		return v
	}
	for _, step := range []struct {
		live uint64
		want int
	}{
		{30 << 20, DefaultGCPercent},
		{80 << 20, 400},
		{84 << 20, 400}, // 380 is within a tenth of 400: no change
		{128 << 20, 250},
		{40 << 20, DefaultGCPercent}, // back up as the live heap shrinks
	} {
		live = step.live
		p.pace()
		if got := target(); got != step.want {
			t.Errorf("live %d MiB: GC percent = %d, want %d", step.live>>20, got, step.want)
		}
	}
	var none *gcPacer
	none.pace() // a nil pacer does nothing
	if got := target(); got != DefaultGCPercent {
		t.Errorf("a nil pacer changed the GC percent to %d", got)
	}
}
