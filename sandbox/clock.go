package sandbox

import "time"

// Epoch is the virtual time every run starts at, unless a scenario's day
// says otherwise.
var Epoch = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Clock is a run's virtual clock. Latency and back-off advance it; nothing in
// a run sleeps or reads the wall clock. It satisfies backoff.Clock.
type Clock struct {
	start time.Time
	now   time.Time
}

// NewClock returns a clock standing at start.
func NewClock(start time.Time) *Clock { return &Clock{start: start, now: start} }

// Now returns the virtual time.
func (c *Clock) Now() time.Time { return c.now }

// Advance moves the clock forward by d (never backward).
func (c *Clock) Advance(d time.Duration) {
	if d > 0 {
		c.now = c.now.Add(d)
	}
}

// Elapsed returns the virtual time since the clock started, in milliseconds.
func (c *Clock) Elapsed() int64 { return c.now.Sub(c.start).Milliseconds() }
