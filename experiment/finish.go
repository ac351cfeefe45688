package experiment

import (
	"context"
	"sync"
	"time"

	"github.com/baton-lab/baton/reports"
)

// startMistakes measures the mistakes (see [plan.observeMistakes]) on
// their own goroutines, the sweep's workers being idle, and returns what
// waits for them.
func (pl *plan) startMistakes(workers int) func() observedMistakes {
	done := make(chan observedMistakes, 1)
	go func() {
		m := observedMistakes{start: time.Now()}
		m.runs, m.cores, m.left = pl.noted.counted(pl)
		m.counts, m.err = pl.observeMistakes(context.Background(), workers)
		m.end = time.Now()
		done <- m
	}()
	return sync.OnceValue(func() observedMistakes { return <-done })
}

// observedMistakes are the mistakes measured, or why not, and for the
// debug log when and from what.
type observedMistakes struct {
	counts []reports.MistakeCount
	err    error

	start, end        time.Time
	runs, cores, left int // the integrated and core runs the sweep counted, the core runs left
}

// log logs the mistakes' phase.
func (m observedMistakes) log(ph *phases) {
	ph.span("mistakes", m.start, m.end)
	ph.log.Debug().Int("integrated_runs", m.runs).Int("core_runs", m.cores).Int("core_runs_left", m.left).
		Msg("mistakes counted on the sweep's clean runs")
}

// startSelectionUse counts what the selection executed and took (see
// [store.selectionUse]) into sel on its own goroutine, while the results
// are aggregated, and returns what waits for it; nothing when sel is nil.
func startSelectionUse(s *store, sel *reports.Selection) func() error {
	if sel == nil {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() { done <- s.selectionUse(sel) }()
	return sync.OnceValue(func() error { return <-done })
}
