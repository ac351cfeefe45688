package score

import (
	"fmt"

	"github.com/baton-lab/baton/internal/binom"
)

// Rate is Count out of N with its 95% Wilson interval. Value is nil when N
// is 0, and the interval is then [0, 1]: no evidence either way.
type Rate struct {
	Count int        `json:"count"`
	N     int        `json:"n"`
	Value *float64   `json:"rate"`
	CI95  [2]float64 `json:"ci95"`
}

// NewRate returns count out of n with its interval.
func NewRate(count, n int) Rate {
	lo, hi := binom.Wilson(count, n)
	return Rate{Count: count, N: n, Value: ratio(count, n), CI95: [2]float64{lo, hi}}
}

// String formats r as "10/12 = 0.833 [0.552, 0.953]".
func (r Rate) String() string {
	return fmt.Sprintf("%d/%d = %s %s", r.Count, r.N, fmtRate(r.Value), r.Interval())
}

// Interval formats the interval as "[0.552, 0.953]".
func (r Rate) Interval() string {
	return fmt.Sprintf("[%.3f, %.3f]", r.CI95[0], r.CI95[1])
}

// Figure is a [Rate] that says what its n counts and how many records were
// left out of n for want of evidence (shown, never silently folded in).
type Figure struct {
	Rate
	Of      string `json:"of"`      // what n counts
	Unknown int    `json:"unknown"` // records left out of n: their evidence is missing
}

// namedFigure is a figure with the label a table shows it under.
type namedFigure struct {
	name string
	fig  Figure
}
