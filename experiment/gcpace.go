package experiment

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcHeadroom is how far past the live heap a sweep lets its heap grow
// before collecting, once the live heap is large enough that
// DefaultGCPercent would let it grow further (see [gcPacer]).
const gcHeadroom = 320 << 20

// gcMinPercent is the lowest target a [gcPacer] sets: the runtime's
// default.
const gcMinPercent = 100

// gcPaceUnits is how many units a sweep's workers take between two looks
// of its [gcPacer] at the live heap.
const gcPaceUnits = 256

// gcPacer keeps a sweep's heap goal at most gcHeadroom past its live heap.
// The collector's goal is the live heap times 1 + GCPercent/100, and a
// sweep's live heap grows with its units (each clean unit's twin, the
// store's and the aggregation's per-unit state: 37 MB at 90% of the
// first mission's default protocol with designs A, B and C at 20 trials, 52 MB at
// 200), so at a fixed DefaultGCPercent the peak resident set grew with
// the trials (about 450 MB at 20 trials, 770 MB at 200). The pacer lowers
// the target as the live heap grows, so that the goal stays near the live
// heap plus gcHeadroom, never below gcMinPercent and never above the
// target it started from. Only memory depends on it, never a result; safe
// for concurrent use; a nil pacer does nothing.
type gcPacer struct {
	mu       sync.Mutex
	start    int           // the target the sweep started with
	percent  int           // the target set now
	liveHeap func() uint64 // the live heap the last collection marked, in bytes
}

// newGCPacer returns a pacer for a sweep whose collector target is
// percent.
func newGCPacer(percent int) *gcPacer {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return &gcPacer{start: percent, percent: percent, liveHeap: func() uint64 {
		metrics.Read(live)
		if live[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return live[0].Value.Uint64()
	}}
}

// pace sets the collector's target from the live heap the last
// collection marked. A look that finds another in progress returns at
// once.
func (p *gcPacer) pace() {
	if p == nil || !p.mu.TryLock() {
		return
	}
	defer p.mu.Unlock()
	want := paceFor(p.liveHeap(), p.start)
	// Small moves are not worth a change of the collector's pacing.
	if want == p.percent || (want > p.percent*9/10 && want < p.percent*11/10) {
		return
	}
	debug.SetGCPercent(want)
	p.percent = want
}

// paceFor is the target that puts the heap goal of a live heap of live
// bytes at live + gcHeadroom, between gcMinPercent and limit.
func paceFor(live uint64, limit int) int {
	if live == 0 {
		return limit
	}
	want := uint64(gcHeadroom) * 100 / live
	switch {
	case want >= uint64(limit):
		return limit
	case want < gcMinPercent:
		return min(gcMinPercent, limit)
	}
	return int(want)
}
