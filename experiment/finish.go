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
func (pl *plan) startMistakes(workers int, ph *phases) func() observedMistakes {
	done := make(chan observedMistakes, 1)
	go func() {
		start := time.Now()
		runs, cores, left := pl.noted.counted(pl)
		counts, err := pl.observeMistakes(context.Background(), workers)
		ph.took("mistakes", start)
		ph.log.Debug().Int("integrated_runs", runs).Int("core_runs", cores).Int("core_runs_left", left).
			Msg("mistakes counted on the sweep's clean runs")
		done <- observedMistakes{counts, err}
	}()
	return sync.OnceValue(func() observedMistakes { return <-done })
}

// observedMistakes are the mistakes measured, or why not.
type observedMistakes struct {
	counts []reports.MistakeCount
	err    error
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
