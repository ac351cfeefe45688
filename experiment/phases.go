package experiment

import (
	"time"

	"github.com/rs/zerolog"
)

// phases times the steps of a run for the debug log (--log-level debug):
// where the wall time goes outside the sweep. Durations go to the log
// alone, never into the results or the reports. Its methods are called
// on the run's goroutine.
type phases struct {
	log         zerolog.Logger
	start, last time.Time
}

func newPhases(log zerolog.Logger) *phases {
	now := time.Now()
	return &phases{log: log, start: now, last: now}
}

// done logs the step that ends now, begun when the previous one ended.
func (p *phases) done(step string) {
	now := time.Now()
	p.log.Debug().Str("phase", step).Dur("took", now.Sub(p.last)).Dur("at", now.Sub(p.start)).Msg("run phase")
	p.last = now
}

// span logs a step that ran from start to end alongside the others (it
// does not move the start of the next). Like done, it is called on the
// run's goroutine: a logger's writer need not be safe for concurrent use.
func (p *phases) span(step string, start, end time.Time) {
	p.log.Debug().Str("phase", step).Dur("took", end.Sub(start)).Dur("at", end.Sub(p.start)).Msg("run phase")
}
